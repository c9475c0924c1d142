/**
 * The shipped bounds of the delivery records (deliveryLedger.ts) at the sizes that made them what
 * they are: a member's 2,000 forwarded events, the holder's set-aside soak and a longer incident.
 * Moved from deliveryLedger.test.ts unchanged (together 18 s of the suite on 2 cores): the mutation
 * run (test/mutation/groups.mjs) takes that file's fast tests and deliveryLedger.test.ts's small
 * bounds, which show the same rules.
 */
import {
	DeliveryLedger,
	holderLedger,
	memberLedger,
} from '../../../../nodes/shared/sharing/deliveryLedger';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

let nextWorkflow = 1;
function listener(
	mode: 'webhook' | 'manual' = 'webhook',
	workflowId = `wf-ledger-bounds-${nextWorkflow++}`,
) {
	return {
		getWorkflow: () => ({ id: workflowId }),
		getNode: () => ({ name: 'Messaging Relay Trigger' }),
		getMode: () => mode,
	};
}

test("a member's record: bounded by count (the oldest go, and dropping one still within its age is logged) and by age (past the bound it is not found)", () => {
	const warnings: string[] = [];
	const context = { ...listener(), logger: { warn: (message: string) => warnings.push(message) } };
	const state: WebhookState = {};
	const start = Date.now();
	for (let i = 0; i < 2_001; i++)
		memberLedger.record(context, state, `id-${i}`, { at: start + i }, start + i);
	expect(Object.keys(state.taken!)).toHaveLength(2_000);
	expect(memberLedger.find(context, state, 'id-0', start + 2_001)).toBeUndefined();
	expect(memberLedger.find(context, state, 'id-2000', start + 2_001)).toBeDefined();
	expect(
		memberLedger.find(context, state, 'id-2000', start + 2_000 + 15 * 60_000 + 1),
	).toBeUndefined();
	// Reaching the bound is visible in n8n's log, once a minute at most, naming the trigger.
	expect(warnings).toEqual([
		expect.stringContaining(
			'"Messaging Relay Trigger": more than 2000 forwarded events in 15 minutes',
		),
	]);

	const small = new DeliveryLedger('pending', { maxEntries: 2, maxAgeMs: 1_000 });
	const other: WebhookState = {};
	small.record(context, other, 'old', { at: 0 }, 0);
	small.record(context, other, 'new', { at: 5_000 }, 5_000);
	expect(Object.keys(other.pending!)).toEqual(['new']);
});

test('the holder keeps every delivery answered 503 while a member fails until it is set aside (5 a second for 2 minutes)', () => {
	// At 100 entries the oldest were pruned and their redeliveries ran the holder again (set-aside soak).
	const context = listener('webhook', 'wf-ledger-setaside');
	const state: WebhookState = {};
	const start = 1_000_000;
	for (let i = 0; i < 600; i++)
		holderLedger.record(
			context,
			state,
			`d-${i}`,
			{ at: start + i * 200, ran: ['/m'] },
			start + i * 200,
		);
	const now = start + 600 * 200;
	expect(Object.keys(state.pending!)).toHaveLength(600);
	expect(holderLedger.find(context, state, 'd-0', now)?.ran).toEqual(['/m']);
});

test('the holder keeps every delivery answered 503 within the hour, however many (no count bound: a dropped one would run again)', () => {
	const context = listener('webhook', 'wf-ledger-long-incident');
	const state: WebhookState = {};
	const start = 1_000_000;
	// 5 a second for 5 minutes: the old bound of 1,000 dropped the first 500 of them.
	for (let i = 0; i < 1_500; i++)
		holderLedger.record(
			context,
			state,
			`d-${i}`,
			{ at: start + i * 200, ran: ['self'] },
			start + i * 200,
		);
	const now = start + 1_500 * 200;
	expect(Object.keys(state.pending!)).toHaveLength(1_500);
	expect(holderLedger.find(context, state, 'd-0', now)?.ran).toEqual(['self']);
	expect(holderLedger.find(context, state, 'd-0', start + 60 * 60_000 + 1)).toBeUndefined();
});
