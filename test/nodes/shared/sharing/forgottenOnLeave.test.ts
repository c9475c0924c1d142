/**
 * What a trigger keeps in process memory beside its static data is forgotten with it
 * (nodes/shared/processMemory.ts, docs/design/process-memory.md). Before, unpublishing deleted the
 * holder's `pending` and `members` from static data only: the copies in memory were merged back
 * into the static data of the same workflow published again in the same process, so old records
 * of deliveries and a member set aside came back. Through n8n-core's hook context and the relay
 * simulator: the trigger is published, then unpublished (`delete`), as n8n does.
 */
import { holderLedger, memberLedger } from '../../../../nodes/shared/sharing/deliveryLedger';
import {
	failedHandoff,
	isSetAside,
	setAsideLimits,
} from '../../../../nodes/shared/sharing/memberHealth';
import { forgetListenerMemory } from '../../../../nodes/shared/processMemory';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';
import { startRelaySimulator, type RelaySimulator } from '../../../simulator';
import { TriggerHarness } from '../../../support/harness/triggerRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());

const MEMBER = '/webhook/member-of-the-account/webhook';

/** The trigger's webhook() as the ledgers see it: same workflow, node and (published) listener. */
const listenerOf = (harness: TriggerHarness) => ({
	getWorkflow: () => ({ id: harness.workflow.id }),
	getNode: () => ({ name: harness.node.name }),
	getMode: () => 'webhook',
});

/** What the holder wrote while published: a delivery answered 503, and a member set aside. */
function holderRecords(listener: ReturnType<typeof listenerOf>, state: WebhookState, now: number) {
	holderLedger.record(listener, state, 'delivery-1', { at: now, ran: ['/webhook/a/webhook'] }, now);
	// The bound: `failures` failed hand-offs spanning `spanMs`, the last one now.
	const step = setAsideLimits.spanMs / (setAsideLimits.failures - 1);
	for (let i = setAsideLimits.failures - 1; i >= 0; i--)
		failedHandoff(listener, state, MEMBER, now - i * step);
	expect(isSetAside(listener, state, MEMBER)).toBe(true);
}

test('unpublished, then published again in the same process: no record of the holder comes back from memory', async () => {
	const harness = await TriggerHarness.start(sim, { events: ['message.received'] });
	try {
		await harness.activate();
		const listener = listenerOf(harness);
		const now = Date.now();
		holderRecords(listener, {}, now);

		// n8n unpublishes the workflow: the trigger leaves the account's webhook.
		await harness.lifecycle('delete');
		const republished: WebhookState = {};
		expect(holderLedger.find(listener, republished, 'delivery-1', now)).toBeUndefined();
		expect(holderLedger.isEmpty(listener, republished)).toBe(true);
		expect(isSetAside(listener, republished, MEMBER)).toBe(false);
		// A new record writes only itself into the new static data.
		holderLedger.record(listener, republished, 'delivery-2', { at: now }, now);
		expect(Object.keys(republished.pending ?? {})).toEqual(['delivery-2']);
		expect(republished.members).toBeUndefined();
	} finally {
		await harness.stop();
	}
});

test("a trigger that stops holding forgets the holder's memory only; another listener's stays", () => {
	const one = {
		getWorkflow: () => ({ id: 'wf-one' }),
		getNode: () => ({ name: 'T' }),
		getMode: () => 'webhook',
	};
	const other = { ...one, getWorkflow: () => ({ id: 'wf-other' }) };
	const now = Date.now();
	holderRecords(one, {}, now);
	holderRecords(other, {}, now);
	memberLedger.record(one, {}, 'taken-1', { at: now }, now);

	forgetListenerMemory(one, 'holder');
	expect(holderLedger.find(one, {}, 'delivery-1', now)).toBeUndefined();
	expect(isSetAside(one, {}, MEMBER)).toBe(false);
	// What it took as a member is not the holder's: kept.
	expect(memberLedger.find(one, {}, 'taken-1', now)).toBeDefined();
	expect(holderLedger.find(other, {}, 'delivery-1', now)).toBeDefined();
	expect(isSetAside(other, {}, MEMBER)).toBe(true);
});
