/**
 * The one record of deliveries (deliveryLedger.ts) that both the holder (`pending`) and a member
 * (`taken`) keep: bounded by count and age, in static data and this process's memory, the union
 * written on every save.
 */
import { deliveryIdOf } from '../../../../nodes/shared/readDelivery';
import {
	DeliveryLedger,
	holderLedger,
	memberLedger,
} from '../../../../nodes/MessagingRelayTrigger/sharing/deliveryLedger';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

let nextWorkflow = 1;
function listener(
	mode: 'webhook' | 'manual' = 'webhook',
	workflowId = `wf-ledger-${nextWorkflow++}`,
) {
	return {
		getWorkflow: () => ({ id: workflowId }),
		getNode: () => ({ name: 'Messaging Relay Trigger' }),
		getMode: () => mode,
	};
}

test('two requests that save at the same time: the later save still carries the earlier entry', () => {
	const context = listener();
	const database: WebhookState = {};
	// n8n gives each request its own copy of static data, loaded before either saved.
	const first: WebhookState = structuredClone(database);
	const second: WebhookState = structuredClone(database);
	holderLedger.record(context, first, 'a', { at: Date.now(), ran: ['/webhook/1/webhook'] });
	holderLedger.record(context, second, 'b', { at: Date.now(), ran: ['self'] });
	// Last write wins in n8n: `second` is what the database keeps, and it holds both.
	expect(Object.keys(second.pending!).sort()).toEqual(['a', 'b']);
	expect(holderLedger.find(context, {}, 'a')?.ran).toEqual(['/webhook/1/webhook']);
});

test('what is known of one delivery is merged: who ran it grows, never shrinks', () => {
	const context = listener();
	const state: WebhookState = {};
	holderLedger.record(context, state, 'x', { at: 1_000, ran: ['self'] }, 1_000);
	holderLedger.record(context, state, 'x', { at: 2_000, ran: ['/m'] }, 2_000);
	expect(holderLedger.find(context, state, 'x', 2_000)).toEqual({ at: 2_000, ran: ['self', '/m'] });
	expect(state.pending!.x).toEqual({ at: 2_000, ran: ['self', '/m'] });
});

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

test('forgetting removes both copies; an empty record is empty in this process and in static data', () => {
	const context = listener();
	const state: WebhookState = {};
	expect(holderLedger.isEmpty(context, state)).toBe(true);
	holderLedger.record(context, state, 'y', { at: Date.now(), ran: [] });
	expect(holderLedger.isEmpty(context, state)).toBe(false);
	expect(holderLedger.isEmpty(context, {})).toBe(false); // this process still knows it
	holderLedger.forget(context, state, 'y');
	expect(state.pending).toBeUndefined();
	expect(holderLedger.isEmpty(context, state)).toBe(true);
});

test('a test listener and the published trigger of one workflow keep separate records', () => {
	const published = listener('webhook', 'wf-ledger-both');
	const test = listener('manual', 'wf-ledger-both');
	memberLedger.record(published, {}, 'z', { at: Date.now() });
	expect(memberLedger.find(published, {}, 'z')).toBeDefined();
	expect(memberLedger.find(test, {}, 'z')).toBeUndefined();
});

test("a delivery id is the first 128 bits of the body's SHA-256, the same for the same bytes", () => {
	const body = JSON.stringify({ type: 'message.received' });
	expect(deliveryIdOf(body)).toMatch(/^[0-9a-f]{32}$/);
	expect(deliveryIdOf(Buffer.from(body))).toBe(deliveryIdOf(body));
	expect(deliveryIdOf(`${body} `)).not.toBe(deliveryIdOf(body));
});

test("a forward answered at its run's end counts as taken only once answered 2xx; a 5xx or a dropped connection forgets it, so the next forward runs it", () => {
	// Queue-mode hard-kill soak: a worker died mid-run, n8n gave the job up (5xx), and the member's
	// in-memory record still said "already ran" to the holder's next forward: the event was lost.
	const { EventEmitter } = jest.requireActual<typeof import('node:events')>('node:events');
	const answer = (status: number, finished: boolean) =>
		Object.assign(new EventEmitter(), { statusCode: status, writableFinished: finished });
	const context = listener('webhook', 'wf-ledger-answered');
	const state: WebhookState = {};

	const failed = answer(500, true);
	memberLedger.recordUntilAnswered(context, state, 'f', failed);
	expect(memberLedger.isRunning(context, 'f')).toBe(true);
	failed.emit('finish');
	expect(memberLedger.isRunning(context, 'f')).toBe(false);
	expect(memberLedger.find(context, state, 'f')).toBeUndefined();

	const dropped = answer(200, false);
	memberLedger.recordUntilAnswered(context, state, 'd', dropped);
	dropped.emit('close');
	expect(memberLedger.find(context, state, 'd')).toBeUndefined();

	const ran = answer(200, true);
	memberLedger.recordUntilAnswered(context, state, 'r', ran);
	ran.emit('finish');
	ran.emit('close');
	expect(memberLedger.isRunning(context, 'r')).toBe(false);
	expect(memberLedger.find(context, state, 'r')).toBeDefined();
});

test('a forward still running is not written into static data by another request\'s save: if its run then fails, no later request finds it "already ran"', () => {
	// Queue-mode hard-kill soak after the 5,000-delivery soak (CI): while one forward's run sat on a
	// killed worker, other forwards of the same workflow saved static data with that forward's
	// entry in their union; its run then failed, only the in-memory copy was forgotten, and the
	// holder's next forward was told "already ran": the event was lost in that workflow.
	const { EventEmitter } = jest.requireActual<typeof import('node:events')>('node:events');
	const answer = (status: number) =>
		Object.assign(new EventEmitter(), { statusCode: status, writableFinished: true });
	const context = listener('webhook', 'wf-ledger-running-union');
	let database: WebhookState = {};
	const load = () => structuredClone(database);

	const dying = answer(500);
	memberLedger.recordUntilAnswered(context, load(), 'q40', dying);
	// Another request of the workflow, loaded while q40 runs, saves (last write wins).
	const secondCopy = load();
	memberLedger.record(context, secondCopy, 'q41', { at: Date.now() });
	database = secondCopy;
	expect(Object.keys(database.taken ?? {})).toEqual(['q41']);
	// q40's worker dies: n8n gives the job up with a 500.
	dying.emit('finish');
	expect(memberLedger.find(context, load(), 'q40')).toBeUndefined();
	expect(memberLedger.find(context, load(), 'q41')).toBeDefined();
	// Once answered 2xx, an entry travels with the next save.
	const ran = answer(200);
	memberLedger.recordUntilAnswered(context, load(), 'q42', ran);
	ran.emit('finish');
	const thirdCopy = load();
	memberLedger.record(context, thirdCopy, 'q43', { at: Date.now() });
	expect(Object.keys(thirdCopy.taken!).sort()).toEqual(['q41', 'q42', 'q43']);
});

test('a forward whose run n8n answers 500 "Error in workflow" leaves nothing in static data, although n8n saves that request\'s copy before it answers', () => {
	// live-webhooks.js:141-147 saves static data also for that 500, which n8n gives both for a run
	// that failed and for a job whose worker died (queue hard-kill test: the member lost the event).
	const { EventEmitter } = jest.requireActual<typeof import('node:events')>('node:events');
	const context = listener('webhook', 'wf-ledger-own-copy');
	const ownCopy: WebhookState = {};
	const failed = Object.assign(new EventEmitter(), { statusCode: 500, writableFinished: true });
	memberLedger.recordUntilAnswered(context, ownCopy, 'e1', failed);
	expect(ownCopy.taken?.e1).toBeUndefined();
	const database = structuredClone(ownCopy); // n8n saves, then answers
	failed.emit('finish');
	expect(memberLedger.find(context, database, 'e1')).toBeUndefined();
	expect(memberLedger.isRunning(context, 'e1')).toBe(false);
});
