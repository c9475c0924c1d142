/**
 * Webhook Managed Elsewhere: the user edits the credential's Webhook Secret in n8n (no republish).
 * The old secret is refused from the bound on, the new one works at once, and once this process
 * has seen the new one the old one is never accepted again (docs/registration.md, "Webhook
 * Managed Elsewhere"). Deliveries arrive over real HTTP from the simulator.
 *
 * The bound is shortened here as the retry back-offs are (fastRetries.ts): the rule is as shipped;
 * the shipped bound itself is waited for in the real n8n (test/e2e/secrets.e2e.ts).
 */
import { sleep } from 'n8n-workflow';

import { managedSecretPolicy } from '../../../../nodes/shared/sharing/managedSecret';
import { sample } from '../../../fixtures/events';
import { startRelaySimulator, type RelaySimulator } from '../../../simulator';
import { TriggerHarness } from '../../../support/harness/triggerRuntime';
import { deliver } from '../../../support/deliver';

const OLD = 'whsec_before_the_rotation_0001';
const NEW = 'whsec_after_the_rotation_00002';
const SHIPPED_BOUND_MS = managedSecretPolicy.rereadAfterMs;

let sim: RelaySimulator;
let workflows = 0;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
afterEach(() => {
	managedSecretPolicy.rereadAfterMs = SHIPPED_BOUND_MS;
});

/** A published trigger with the webhook managed elsewhere and `OLD` in its credential (a workflow of its own). */
async function published() {
	const trigger = await TriggerHarness.start(
		sim,
		{ registration: 'manual', events: ['message.received'] },
		{ webhookSecret: OLD, workflowId: `wf-managed-${++workflows}` },
	);
	expect(await trigger.lifecycle('checkExists')).toBe(true);
	const statusWith = async (secret: string) =>
		(await deliver(sim, sample('message.received'), { url: trigger.productionUrl, secret })).status;
	return { trigger, statusWith };
}

test('the shipped bound is 5 seconds (the README states it)', () => {
	expect(SHIPPED_BOUND_MS).toBe(5_000);
});

test('after an edit, the old secret is refused from the bound on with no delivery in between; the new one works at once and the old one stays refused', async () => {
	managedSecretPolicy.rereadAfterMs = 400;
	const { trigger, statusWith } = await published();
	expect(await statusWith(OLD)).toBe(200);

	trigger.editCredential({ webhookSecret: NEW });
	const editedAt = Date.now();
	await sleep(managedSecretPolicy.rereadAfterMs + 50 - (Date.now() - editedAt));
	expect(await statusWith(OLD)).toBe(401);
	expect(await statusWith(NEW)).toBe(200);
	expect(await statusWith(OLD)).toBe(401);
	expect(trigger.runs).toHaveLength(2);
	expect(JSON.stringify(trigger.runs)).not.toContain('whsec_');
	await trigger.stop();
});

test('once the new secret has arrived, the old one is never accepted again, long before the bound', async () => {
	managedSecretPolicy.rereadAfterMs = 60_000;
	const { trigger, statusWith } = await published();
	expect(await statusWith(OLD)).toBe(200);
	trigger.editCredential({ webhookSecret: NEW });
	expect(await statusWith(NEW)).toBe(200);
	for (let i = 0; i < 3; i++) expect(await statusWith(OLD)).toBe(401);
	expect(await statusWith(NEW)).toBe(200);
	expect(trigger.runs).toHaveLength(3);
	await trigger.stop();
});

test('nothing of the secret is written to static data (n8n keeps that row unencrypted)', async () => {
	managedSecretPolicy.rereadAfterMs = 60_000;
	const { trigger, statusWith } = await published();
	expect(trigger.stored).toEqual({});
	trigger.editCredential({ webhookSecret: NEW });
	expect(await statusWith(NEW)).toBe(200);
	expect(trigger.stored).toEqual({});
	await trigger.stop();
});

test('publishing removes the copy of the secret that earlier versions kept in static data', async () => {
	const trigger = await TriggerHarness.start(
		sim,
		{ registration: 'manual', events: ['message.received'] },
		{ webhookSecret: NEW, workflowId: `wf-managed-${++workflows}` },
	);
	trigger.stored.managedSecret = OLD;
	expect(await trigger.lifecycle('checkExists')).toBe(true);
	expect(trigger.stored.managedSecret).toBeUndefined();
	expect(
		(await sim.deliver(sample('message.received'), { url: trigger.productionUrl, secret: OLD }))
			.status,
	).toBe(401);
	await trigger.stop();
});

test('the credential is read once per bound on the fast path, and once (or twice) for a burst of wrong secrets', async () => {
	managedSecretPolicy.rereadAfterMs = 60_000;
	const { trigger, statusWith } = await published();
	const afterPublish = trigger.credentialReads;
	for (let i = 0; i < 5; i++) expect(await statusWith(OLD)).toBe(200);
	expect(trigger.credentialReads).toBe(afterPublish);

	// Ten wrong secrets at once, while a read takes 200 ms: each waits for a read that started
	// after it arrived, shared with the others.
	trigger.credentialReadMs = 200;
	const statuses = await Promise.all(
		Array.from({ length: 10 }, async (_, i) => await statusWith(`whsec_a_wrong_guess_number_${i}`)),
	);
	expect(statuses).toEqual(Array(10).fill(401));
	expect(trigger.credentialReads - afterPublish).toBeGreaterThanOrEqual(1);
	expect(trigger.credentialReads - afterPublish).toBeLessThanOrEqual(2);

	// Past the bound the next delivery reads again, once.
	trigger.credentialReadMs = 0;
	managedSecretPolicy.rereadAfterMs = 1;
	await sleep(5);
	const beforeBound = trigger.credentialReads;
	expect(await statusWith(OLD)).toBe(200);
	expect(trigger.credentialReads).toBe(beforeBound + 1);
	await trigger.stop();
});

test('two processes (queue mode: main and a webhook process, or two webhook processes) each refuse the old secret from the bound on, on their own', async () => {
	// A second copy of the node's modules is a second process: it keeps its own secret in memory.
	let other!: { harness: typeof TriggerHarness; policy: typeof managedSecretPolicy };
	await jest.isolateModulesAsync(async () => {
		other = {
			harness: (await import('../../../support/harness/triggerRuntime')).TriggerHarness,
			policy: (await import('../../../../nodes/shared/sharing/managedSecret')).managedSecretPolicy,
		};
	});
	managedSecretPolicy.rereadAfterMs = 400;
	other.policy.rereadAfterMs = 400;
	const workflowId = `wf-managed-${++workflows}`;
	const parameters = { registration: 'manual', events: ['message.received'] };
	const main = await TriggerHarness.start(sim, parameters, { webhookSecret: OLD, workflowId });
	const webhookProcess = await other.harness.start(sim, parameters, {
		webhookSecret: OLD,
		workflowId,
	});
	expect(await main.lifecycle('checkExists')).toBe(true); // publishing runs in the main process only
	const statusFrom = async (trigger: TriggerHarness, secret: string) =>
		(await deliver(sim, sample('message.received'), { url: trigger.productionUrl, secret })).status;
	expect(await statusFrom(main, OLD)).toBe(200);
	expect(await statusFrom(webhookProcess, OLD)).toBe(200);

	// The credential is saved once, in n8n's database, which both read.
	main.editCredential({ webhookSecret: NEW });
	webhookProcess.editCredential({ webhookSecret: NEW });
	const editedAt = Date.now();
	expect(await statusFrom(main, NEW)).toBe(200); // at once, in the process it reaches
	expect(await statusFrom(main, OLD)).toBe(401); // and that process refuses the old one from then on

	await sleep(400 + 50 - (Date.now() - editedAt));
	expect(await statusFrom(webhookProcess, OLD)).toBe(401); // the other one, with no delivery in between
	expect(await statusFrom(webhookProcess, NEW)).toBe(200);
	expect(await statusFrom(webhookProcess, OLD)).toBe(401);
	await main.stop();
	await webhookProcess.stop();
});
