/**
 * The holder's record of members (memberHealth.ts): the set-aside bound, and the races of n8n's
 * static data (each request saves its whole copy; the last save wins) that it must survive.
 */
import {
	failedHandoff,
	forgetMissed,
	isSetAside,
	missedEvent,
	missedSummary,
	setAsideLimits,
	tookHandoff,
} from '../../../../nodes/shared/sharedWebhook/memberHealth';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

let nextWorkflow = 1;
function listener() {
	const id = `wf-health-${nextWorkflow++}`;
	return { getWorkflow: () => ({ id }), getNode: () => ({ name: 'Messaging Relay Trigger' }), getMode: () => 'webhook' };
}
const MEMBER = '/webhook/member/webhook';
const MINUTE = 60_000;

test('set aside only at the 3rd failed hand-off AND 2 minutes after the first; a success in between starts over', () => {
	expect(setAsideLimits).toMatchObject({ failures: 3, spanMs: 2 * MINUTE });
	const context = listener();
	const state: WebhookState = {};
	const t0 = 1_000_000;
	expect(failedHandoff(context, state, MEMBER, t0)).toEqual({ setAside: false, justNow: false });
	expect(failedHandoff(context, state, MEMBER, t0 + 10_000)).toEqual({ setAside: false, justNow: false });
	// Third failure, but only 20 s after the first.
	expect(failedHandoff(context, state, MEMBER, t0 + 20_000)).toEqual({ setAside: false, justNow: false });
	// A success: the run of failures starts over.
	tookHandoff(context, state, MEMBER, t0 + 30_000);
	expect(failedHandoff(context, state, MEMBER, t0 + 2 * MINUTE + 1)).toEqual({ setAside: false, justNow: false });
	expect(failedHandoff(context, state, MEMBER, t0 + 3 * MINUTE)).toEqual({ setAside: false, justNow: false });
	expect(isSetAside(context, state, MEMBER)).toBe(false);
	expect(failedHandoff(context, state, MEMBER, t0 + 4 * MINUTE + 2)).toEqual({ setAside: true, justNow: true });
	expect(isSetAside(context, state, MEMBER)).toBe(true);
	expect(failedHandoff(context, state, MEMBER, t0 + 5 * MINUTE)).toEqual({ setAside: true, justNow: false });
	tookHandoff(context, state, MEMBER, t0 + 6 * MINUTE);
	expect(isSetAside(context, state, MEMBER)).toBe(false);
});

test('a stale copy of static data saved after the holder forgot reported misses does not bring them back', () => {
	const context = listener();
	const database: WebhookState = {};
	missedEvent(context, database, MEMBER, 'old-1', 'message.received', 1_000);
	missedEvent(context, database, MEMBER, 'old-2', 'group.updated', 2_000);
	// Two requests load the database; the first forgets what was reported up to 2 000 and saves.
	const first: WebhookState = structuredClone(database);
	const second: WebhookState = structuredClone(database);
	expect(missedSummary(context, first, MEMBER)).toMatchObject({ count: 2, upTo: 2_000 });
	forgetMissed(context, first, MEMBER, 2_000);
	// The second one, loaded before that, records a new miss and saves last (n8n: last save wins).
	missedEvent(context, second, MEMBER, 'new-1', 'number.disconnected', 3_000);
	expect(Object.keys(second.members![MEMBER].missed!)).toEqual(['new-1']);
	expect(missedSummary(context, second, MEMBER)).toMatchObject({ count: 1, types: { 'number.disconnected': 1 }, firstAt: 3_000 });
});

test('two requests recording misses at the same time: the later save carries both', () => {
	const context = listener();
	const database: WebhookState = {};
	const first: WebhookState = structuredClone(database);
	const second: WebhookState = structuredClone(database);
	missedEvent(context, first, MEMBER, 'a', 'message.received', 1_000);
	missedEvent(context, second, MEMBER, 'b', 'message.received', 1_001);
	expect(Object.keys(second.members![MEMBER].missed!).sort()).toEqual(['a', 'b']);
	// A redelivery of one event is one miss.
	missedEvent(context, second, MEMBER, 'a', 'message.received', 5_000);
	expect(missedSummary(context, second, MEMBER)).toMatchObject({ count: 2, types: { 'message.received': 2 } });
});

test('a holder that stops holding forgets its record of members', async () => {
	const { forgetHolder } = await import('../../../../nodes/shared/sharedWebhook/webhookState');
	const context = listener();
	const state: WebhookState = { webhookUrl: 'https://n8n.example.com/webhook/x/webhook', webhookSecret: 's' };
	failedHandoff(context, state, MEMBER, 1_000);
	expect(state.members).toBeDefined();
	forgetHolder(state);
	expect(state.members).toBeUndefined();
});
