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
} from '../../../../nodes/shared/sharing/deliveryLedger';
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
	// A join: every runner once, in one order whatever order the copies came in.
	expect(holderLedger.find(context, state, 'x', 2_000)).toEqual({ at: 2_000, ran: ['/m', 'self'] });
	expect(state.pending!.x).toEqual({ at: 2_000, ran: ['/m', 'self'] });
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

test.each([
	['member', memberLedger, 15 * 60_000],
	['holder', holderLedger, 60 * 60_000],
] as const)(
	'the shipped %s record keeps an event its age, to the millisecond',
	(_, ledger, age) => {
		const context = listener();
		const state: WebhookState = {};
		const at = 1_800_000_000_000;
		ledger.record(context, state, 'kept', { at }, at);
		expect(ledger.find(context, state, 'kept', at + age)).toEqual({ at });
		expect(ledger.find(context, state, 'kept', at + age + 1)).toBeUndefined();
	},
);

describe('the rules with small bounds (2 entries, 1 s)', () => {
	const bounds = { maxEntries: 2, maxAgeMs: 1_000 };
	const withLog = () => {
		const warnings: string[] = [];
		const context = {
			...listener(),
			logger: { warn: (message: string) => warnings.push(message) },
		};
		return { context, warnings };
	};

	test('empty once every entry is past its age, in memory and in static data alike', () => {
		const ledger = new DeliveryLedger('pending', bounds);
		const context = listener();
		const state: WebhookState = {};
		ledger.record(context, state, 'a', { at: 10_000 }, 10_000);
		expect(ledger.isEmpty(context, state, 11_000)).toBe(false);
		expect(ledger.isEmpty(context, {}, 11_000)).toBe(false); // memory alone
		expect(ledger.isEmpty(listener(), state, 11_000)).toBe(false); // static data alone
		expect(ledger.isEmpty(context, state, 11_001)).toBe(true);
		expect(ledger.isEmpty(listener(), state, 11_001)).toBe(true);
		// The aged memory is gone for good: an earlier clock does not bring it back.
		expect(ledger.isEmpty(context, {}, 10_500)).toBe(true);
	});

	test('found up to its age bound, to the millisecond, in memory or in static data', () => {
		const ledger = new DeliveryLedger('taken', bounds);
		const context = listener();
		const state: WebhookState = {};
		ledger.record(context, state, 'a', { at: 10_000 }, 10_000);
		expect(ledger.find(context, state, 'a', 11_000)).toEqual({ at: 10_000 });
		expect(ledger.find(context, state, 'a', 11_001)).toBeUndefined();
		// Static data alone (another process's memory) and memory alone each find it.
		expect(ledger.find(listener(), state, 'a', 10_500)).toEqual({ at: 10_000 });
		expect(ledger.find(context, {}, 'a', 10_500)).toEqual({ at: 10_000 });
		expect(ledger.find(context, state, 'b', 10_500)).toBeUndefined();
		// Its field, not the other ledger's.
		expect(state).toEqual({ taken: { a: { at: 10_000 } } });
	});

	test('without a time, now: a fresh entry is found, one past its age is not', () => {
		const ledger = new DeliveryLedger('pending', bounds);
		const context = listener();
		const state: WebhookState = {};
		ledger.record(context, state, 'now', { at: Date.now() });
		expect(ledger.find(context, state, 'now')).toBeDefined();
		ledger.record(context, state, 'old', { at: Date.now() - 1_500 }, Date.now() - 1_500);
		expect(ledger.find(context, state, 'old')).toBeUndefined();
	});

	test('a save carries what static data held, this process knows, and the new entry; merged per delivery', () => {
		const ledger = new DeliveryLedger('pending', { maxEntries: 10, maxAgeMs: 1_000 });
		const context = listener();
		const loaded: WebhookState = { pending: { s: { at: 100, ran: ['/a'] }, x: { at: 100 } } };
		ledger.record(context, {}, 'm', { at: 200, ran: ['self'] }, 200);
		ledger.record(context, loaded, 'x', { at: 300, ran: ['/b', '/b'] }, 300);
		expect(loaded.pending).toEqual({
			s: { at: 100, ran: ['/a'] },
			m: { at: 200, ran: ['self'] },
			x: { at: 300, ran: ['/b'] },
		});
		// Merged both ways: the later time, who ran it from both, no "ran" when neither says.
		ledger.record(context, loaded, 'x', { at: 250, ran: ['/c'] }, 300);
		expect(loaded.pending!.x).toEqual({ at: 300, ran: ['/b', '/c'] });
		ledger.record(context, loaded, 'x', { at: 300 }, 300);
		expect(loaded.pending!.x).toEqual({ at: 300, ran: ['/b', '/c'] });
		ledger.record(context, loaded, 'n', { at: 300 }, 300);
		ledger.record(context, loaded, 'n', { at: 300 }, 300);
		expect(loaded.pending!.n).toEqual({ at: 300 });
	});

	test('past its age an entry is dropped from both copies at the next save; at its age it stays', () => {
		const ledger = new DeliveryLedger('taken', { maxEntries: 10, maxAgeMs: 1_000 });
		const context = listener();
		const state: WebhookState = { taken: { stored: { at: 0 } } };
		ledger.record(context, state, 'kept', { at: 0 }, 0);
		ledger.record(context, state, 'late', { at: 1_000 }, 1_000);
		expect(Object.keys(state.taken!).sort()).toEqual(['kept', 'late', 'stored']);
		ledger.record(context, state, 'later', { at: 1_001 }, 1_001);
		expect(Object.keys(state.taken!).sort()).toEqual(['late', 'later']);
		// Gone from memory too: a save into empty static data does not bring it back.
		const fresh: WebhookState = {};
		ledger.record(context, fresh, 'last', { at: 1_001 }, 1_001);
		expect(Object.keys(fresh.taken!).sort()).toEqual(['last', 'late', 'later']);
	});

	test('beyond the count the oldest go, in both copies; dropping one within its age is logged once a minute', () => {
		const ledger = new DeliveryLedger('taken', { maxEntries: 2, maxAgeMs: 10 * 60_000 });
		const { context, warnings } = withLog();
		const state: WebhookState = {};
		const T = 1_900_000_000_000;
		ledger.record(context, state, 'b', { at: T + 2 }, T + 2);
		ledger.record(context, state, 'a', { at: T + 1 }, T + 2);
		expect(warnings).toEqual([]);
		ledger.record(context, state, 'c', { at: T + 3 }, T + 3);
		expect(Object.keys(state.taken!).sort()).toEqual(['b', 'c']);
		expect(ledger.find(context, {}, 'a', T + 3)).toBeUndefined();
		expect(warnings).toEqual([
			'Messaging Relay Trigger "Messaging Relay Trigger": more than 2 forwarded events in 10 minutes; the oldest records of what this trigger ran were dropped, so one of those events forwarded again would run again.',
		]);
		ledger.record(context, state, 'd', { at: T + 60_002 }, T + 60_002);
		expect(warnings).toHaveLength(1);
		ledger.record(context, state, 'e', { at: T + 60_003 }, T + 60_003);
		expect(warnings).toHaveLength(2);
		expect(Object.keys(state.taken!).sort()).toEqual(['d', 'e']);
	});

	test('the first drop is logged whenever it comes; a save without a logger drops as well, silently', () => {
		const ledger = new DeliveryLedger('taken', { maxEntries: 1, maxAgeMs: 90_000 });
		const { context, warnings } = withLog();
		const T = 1_900_000_000_000;
		ledger.record(context, {}, 'a', { at: T + 5 }, T + 5);
		ledger.record(context, {}, 'b', { at: T + 6 }, T + 6);
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toContain('more than 1 forwarded events in 2 minutes');
		const quiet = new DeliveryLedger('taken', { maxEntries: 1, maxAgeMs: 90_000 });
		const state: WebhookState = {};
		const bare = listener();
		quiet.record(bare, state, 'a', { at: 5 }, 5);
		quiet.record(bare, state, 'b', { at: 6 }, 6);
		expect(Object.keys(state.taken!)).toEqual(['b']);
	});

	test('forgetting one entry keeps the others, and writes static data only if it held it', () => {
		const ledger = new DeliveryLedger('pending', { maxEntries: 10, maxAgeMs: 1_000 });
		const context = listener();
		const state: WebhookState = {};
		ledger.record(context, state, 'a', { at: 0 }, 0);
		ledger.record(context, state, 'b', { at: 0 }, 0);
		ledger.forget(context, state, 'a');
		expect(state.pending).toEqual({ b: { at: 0 } });
		expect(ledger.find(context, {}, 'b', 0)).toEqual({ at: 0 });
		expect(ledger.isEmpty(context, {}, 0)).toBe(false);
		const untouched = { pending: { other: { at: 0 } } } as WebhookState;
		const before = untouched.pending;
		ledger.forget(context, untouched, 'b');
		expect(untouched.pending).toBe(before);
		expect(untouched.pending).toEqual({ other: { at: 0 } });
		expect(ledger.isEmpty(context, {}, 0)).toBe(true);
		expect(ledger.isEmpty(context, untouched, 0)).toBe(false);
		// Forgetting what nobody holds changes nothing.
		const empty: WebhookState = {};
		ledger.forget(listener(), empty, 'zzz');
		expect(empty).toEqual({});
	});

	test('a forward answered 2xx (up to 299) counts once its answer has gone out; 300 or more does not', () => {
		const { EventEmitter } = jest.requireActual<typeof import('node:events')>('node:events');
		const answer = (status: number) =>
			Object.assign(new EventEmitter(), { statusCode: status, writableFinished: true });
		const ledger = new DeliveryLedger('taken', { maxEntries: 10, maxAgeMs: 60_000 });
		const context = listener();
		const state: WebhookState = {};
		const ok = answer(299);
		ledger.recordUntilAnswered(context, state, 'ok', ok, 1_000);
		// Known at once in this process (the holder's repeated forward finds it), never in static data yet.
		expect(ledger.find(context, {}, 'ok', 1_000)).toEqual({ at: 1_000 });
		expect(state.taken).toBeUndefined();
		ok.emit('finish');
		expect(ledger.find(context, {}, 'ok', 1_000)).toEqual({ at: 1_000 });
		const redirect = answer(300);
		ledger.recordUntilAnswered(context, state, 'r', redirect, 1_000);
		redirect.emit('finish');
		expect(ledger.find(context, {}, 'r', 1_000)).toBeUndefined();
		expect(ledger.isRunning(context, 'r')).toBe(false);
	});

	test('an answer settles once: a close after a 2xx finish forgets nothing', () => {
		const { EventEmitter } = jest.requireActual<typeof import('node:events')>('node:events');
		const ledger = new DeliveryLedger('taken', { maxEntries: 10, maxAgeMs: 60_000 });
		const context = listener();
		const response = Object.assign(new EventEmitter(), {
			statusCode: 200,
			writableFinished: true,
		});
		ledger.recordUntilAnswered(context, {}, 'once', response, 1_000);
		response.emit('finish');
		response.writableFinished = false;
		response.emit('close');
		expect(ledger.find(context, {}, 'once', 1_000)).toEqual({ at: 1_000 });
	});

	test('running is per listener: the test listener of the workflow does not see the published one running', () => {
		const { EventEmitter } = jest.requireActual<typeof import('node:events')>('node:events');
		const ledger = new DeliveryLedger('taken', { maxEntries: 10, maxAgeMs: 60_000 });
		const published = listener('webhook', 'wf-ledger-running-per-listener');
		const test = listener('manual', 'wf-ledger-running-per-listener');
		const response = Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: true });
		ledger.recordUntilAnswered(published, {}, 'p', response, 1_000);
		expect(ledger.isRunning(published, 'p')).toBe(true);
		expect(ledger.isRunning(test, 'p')).toBe(false);
		expect(ledger.isRunning(published, 'q')).toBe(false);
		response.emit('finish');
	});

	test('a save of another entry leaves a running forward out, even one static data already held', () => {
		const { EventEmitter } = jest.requireActual<typeof import('node:events')>('node:events');
		const ledger = new DeliveryLedger('taken', { maxEntries: 10, maxAgeMs: 60_000 });
		const context = listener();
		const running = Object.assign(new EventEmitter(), { statusCode: 500, writableFinished: true });
		ledger.recordUntilAnswered(context, {}, 'run', running, 1_000);
		const copy: WebhookState = {};
		ledger.record(context, copy, 'other', { at: 1_000 }, 1_000);
		expect(Object.keys(copy.taken!)).toEqual(['other']);
		// A record of the running forward itself is a save of it (its own request's answer was 2xx).
		ledger.record(context, copy, 'run', { at: 1_000 }, 1_000);
		expect(Object.keys(copy.taken!).sort()).toEqual(['other', 'run']);
		running.emit('finish');
	});
});
