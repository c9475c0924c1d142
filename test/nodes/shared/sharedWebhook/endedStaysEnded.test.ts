/**
 * Issue 41, item 5: with two webhook processes, what one process ended never comes back from the other's
 * memory, after the keep window has passed and the ended row was swept. Process B records a wait (or a
 * pause), process A ends it (the answer, Resume, the keyword), A's sweep removes the ended row an hour (a
 * day) later, and B's next request must not write its live copy back. On f97c44d B's repair did, and a chat
 * resumed from a workflow went silent again a day later. Each process is a module instance of its own
 * (jest.isolateModules); static data is saved and loaded as n8n does, as JSON.
 */
import type * as ChatPauseModule from '../../../../nodes/MessagingRelayTrigger/chatPause';
import type * as WaitingRunsModule from '../../../../nodes/shared/sendAndWait/waitingRuns';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

/**
 * A module loaded in an isolated registry: a second instance is a second process's memory. Each
 * caller names its module in a literal require, which jest's findRelatedTests reads (the mutation
 * gate runs this file against accountTable.ts's mutants only through it).
 */
function processOf<M>(load: () => unknown): M {
	let module!: M;
	jest.isolateModules(() => {
		module = load() as M;
	});
	return module;
}
const runsOf = () =>
	processOf<typeof WaitingRunsModule>(
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- see processOf
		() => require('../../../../nodes/shared/sendAndWait/waitingRuns'),
	);
const pausesOf = () =>
	processOf<typeof ChatPauseModule>(
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- see processOf
		() => require('../../../../nodes/MessagingRelayTrigger/chatPause'),
	);

const T = 1_800_000_000_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const CHAT = '4917600000001@c.us';
const listener = {
	getWorkflow: () => ({ id: 'wf-ended' }),
	getNode: () => ({ name: 'Messaging Relay Trigger' }),
	getMode: () => 'webhook',
};
const load = (saved: string) => JSON.parse(saved) as WebhookState;

test('a wait ended by one process, and swept an hour later, does not come back from the other process', () => {
	const [a, b] = [runsOf(), runsOf()];
	const wait = {
		executionId: '7',
		resumePath: '/webhook-waiting/7/ask?x=1',
		chat: CHAT,
		channelId: 'num_main',
		since: T,
		until: T + 100 * HOUR,
	};
	// B records the wait, saved; A loads it and ends it (its run took an answer).
	let state = load('{}');
	b.recordWait(listener, state, wait, T);
	let saved = JSON.stringify(state);
	state = load(saved);
	const id = a.waitIdOf(wait);
	a.updateWaits(
		listener,
		state,
		[[id, { ...wait, resumedBy: 'd1', resumedAt: T + MINUTE }]],
		T + MINUTE,
	);
	saved = JSON.stringify(state);
	// An hour and more later A writes (another wait) and sweeps the ended row.
	state = load(saved);
	a.recordWait(listener, state, { ...wait, executionId: '8', since: T + 2 * HOUR }, T + 2 * HOUR);
	saved = JSON.stringify(state);
	expect(Object.keys(a.waitsInStaticData(load(saved)))).toEqual([
		a.waitIdOf({ executionId: '8', since: T + 2 * HOUR }),
	]);

	// B's next requests (a repair, a write of its own): the wait stays gone, never live again.
	const offered = () =>
		b
			.waitsForReply(
				listener,
				load(saved),
				{ chatId: CHAT, channelId: 'num_main' },
				'd9',
				T + 3 * HOUR,
			)
			.map((w) => w.executionId);
	state = load(saved);
	b.repairWaits(listener, state, T + 2 * HOUR + MINUTE);
	saved = JSON.stringify(state);
	expect(a.waitsInStaticData(load(saved))[id]).toBeUndefined();
	expect(offered()).toEqual(['8']);
	state = load(saved);
	b.recordWait(listener, state, { ...wait, executionId: '9', since: T + 3 * HOUR }, T + 3 * HOUR);
	saved = JSON.stringify(state);
	expect(a.waitsInStaticData(load(saved))[id]).toBeUndefined();
	expect(offered()).toEqual(['8', '9']);
});

test('a chat resumed from a workflow stays resumed after the day its ended pause is kept', () => {
	const [a, b] = [pausesOf(), pausesOf()];
	const settings = { minutes: 0, keyword: '#bot', apiOrigins: ['api'] };
	const sent = (text: string, at: number) => ({
		type: 'message.sent',
		occurredAt: new Date(at).toISOString(),
		message: {
			id: `m-${at}`,
			chatId: CHAT,
			text,
			origin: 'phone',
			timestamp: new Date(at).toISOString(),
		},
	});
	const received = {
		type: 'message.received',
		message: { id: 'in', chatId: CHAT, from: '+4917600000001', channelId: 'num_main' },
	};
	// B notes a person's message: paused until resumed.
	let state = load('{}');
	b.applyChatPause(listener as never, state, sent('I will take this', T), settings, T);
	let saved = JSON.stringify(state);
	// A takes the keyword: resumed.
	state = load(saved);
	a.applyChatPause(listener as never, state, sent('#bot', T + MINUTE), settings, T + MINUTE);
	saved = JSON.stringify(state);
	// A day and more later A sweeps the ended pause (with a pause of another chat).
	state = load(saved);
	a.applyChatPause(
		listener as never,
		state,
		{
			...sent('x', T + 25 * HOUR),
			message: { ...sent('x', T + 25 * HOUR).message, chatId: 'other@c.us' },
		},
		settings,
		T + 25 * HOUR,
	);
	saved = JSON.stringify(state);
	expect(a.pausesInStaticData(load(saved))[CHAT]).toBeUndefined();

	// B's next request: its old "paused until resumed" does not come back.
	state = load(saved);
	b.repairPauses(listener, state, T + 25 * HOUR + MINUTE);
	saved = JSON.stringify(state);
	expect(
		b.applyChatPause(listener as never, load(saved), received, settings, T + 26 * HOUR),
	).toBeUndefined();
	expect(a.pausesInStaticData(load(saved))[CHAT]).toBeUndefined();
});

/** A listener whose n8n logger keeps what it is told at debug level. */
function debugLogged() {
	const debug: string[] = [];
	const logged = {
		...listener,
		logger: { warn: () => undefined, debug: (m: string) => debug.push(m) },
	};
	return { debug, logged };
}

/** A wait of run `executionId` in CHAT, for an hour from T. */
const waitOf = (executionId: string) => ({
	executionId,
	resumePath: `/webhook-waiting/${executionId}/ask?x=1`,
	chat: CHAT,
	channelId: 'num_main',
	since: T,
	until: T + HOUR,
});

test("a save of one process that another process's save dropped is said at debug level, with the table, and written again", () => {
	const [a, b] = [runsOf(), runsOf()];
	const { debug, logged } = debugLogged();
	// Both load the same static data; B's save lands after A's and drops A's wait.
	const saved = JSON.stringify(load('{}'));
	const [forA, forB] = [load(saved), load(saved)];
	a.recordWait(logged, forA, waitOf('1'), T);
	b.recordWait(logged, forB, waitOf('2'), T + 1);
	expect(debug).toEqual([]);
	const afterB = load(JSON.stringify(forB));
	// A's next request loads B's save: its wait is missing, said once, and written back.
	expect(a.repairWaits(logged, afterB, T + 2)).toBe(true);
	expect(debug).toEqual([
		"Messaging Relay: static data this request loaded lacks waitRows this process wrote (another process's revision without 1 row(s)); written again",
	]);
	expect(
		Object.values(a.waitsInStaticData(afterB))
			.map((w) => w.executionId)
			.sort(),
	).toEqual(['1', '2']);
});

test('a load without the table, or with an older revision of this process, is said with what was found', () => {
	const a = runsOf();
	const { debug, logged } = debugLogged();
	const first = load('{}');
	a.recordWait(logged, first, waitOf('1'), T);
	const afterFirst = JSON.stringify(first);
	const second = load(afterFirst);
	a.recordWait(logged, second, waitOf('2'), T + 1);
	// A request that loaded before the second write: this process's own older revision.
	expect(a.repairWaits(logged, load(afterFirst), T + 2)).toBe(true);
	// Static data saved whole without the table (the field dropped): no revision at all.
	expect(a.repairWaits(logged, load('{}'), T + 3)).toBe(true);
	expect(debug.map((m) => /\(([^)]*)\)/.exec(m)?.[1])).toEqual([
		'an older revision',
		'no revision',
	]);
});
