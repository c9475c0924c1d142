/**
 * State that grows with an account (docs/design/account-state.md): 10,000 runs waiting and 10,000
 * chats paused at once through the real code paths, nothing live forgotten, and what the packed
 * string keeps byte for byte. A second "process" is a second instance of the module
 * (jest.isolateModules), with its own memory, over the same static data. Several processes under
 * random interleavings, with a clock: accountStateModel.test.ts.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import type * as ChatPauseModule from '../../../../nodes/MessagingRelayTrigger/chatPause';
import type * as WaitingRunsModule from '../../../../nodes/shared/sendAndWait/waitingRuns';
import type { WaitEntry } from '../../../../nodes/shared/sendAndWait/waitingRuns';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

/** A fresh n8n process: the module with empty memory. */
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
const waitingRunsProcess = () =>
	processOf<typeof WaitingRunsModule>(
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- see processOf
		() => require('../../../../nodes/shared/sendAndWait/waitingRuns'),
	);
const chatPauseProcess = () =>
	processOf<typeof ChatPauseModule>(
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- see processOf
		() => require('../../../../nodes/MessagingRelayTrigger/chatPause'),
	);

const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;
const listener = (workflowId: string) => ({
	getWorkflow: () => ({ id: workflowId }),
	getNode: () => ({ name: 'Messaging Relay Trigger' }),
	getMode: () => 'webhook',
});
const chatOf = (i: number) => `49176${String(i).padStart(8, '0')}@c.us`;

function wait(executionId: string, chat: string, changes: Partial<WaitEntry> = {}): WaitEntry {
	// The resume path as n8n signs it (about 190 characters), so that sizes are real.
	const resumePath = `/webhook-waiting/${executionId}/4e0d1f5a-2b7c-4a4e-9f3e-8c1d2e3f4a5b?chat=${encodeURIComponent(chat)}&relay-wait=v1&channel=num_main&since=${NOW}&until=${NOW + HOUR}&signature=${'a'.repeat(64)}`;
	return {
		executionId,
		resumePath,
		chat,
		channelId: 'num_main',
		since: NOW,
		until: NOW + HOUR,
		questionId: null,
		...changes,
	};
}

const received = (chat: string, changes: IDataObject = {}): IDataObject => ({
	chatId: chat,
	from: `+${chat.split('@')[0]}`,
	channelId: 'num_main',
	group: null,
	replyTo: null,
	...changes,
});

/** n8n's request cycle: each request gets its own copy of what was saved, and saves its whole copy if it changed. */
/** A wait as given, without the row id static data keys it by. */
function withoutRowId(w: WaitEntry & { id?: string }): WaitEntry {
	const copy = { ...w };
	delete copy.id;
	return copy;
}

const load = (saved: string): WebhookState => JSON.parse(saved) as WebhookState;

/** The waits static data holds, by execution id (one question each here). */
const byExecution = (runs: typeof WaitingRunsModule, state: WebhookState) =>
	Object.fromEntries(
		Object.values(runs.waitsInStaticData(state)).map((w) => [w.executionId, withoutRowId(w)]),
	);

describe('10,000 runs waiting at once on one account', () => {
	test("each contact's message finds its own run, from static data alone after a restart; the 10,001st is refused, never an older one dropped", () => {
		const before = waitingRunsProcess();
		const context = listener('wf-10k-waits');
		let saved = '{}';
		let state = load(saved);
		// In hand-offs of 100 waits (what a campaign's outbox sends, waitOutbox.ts), saved and loaded
		// again every 500: what n8n keeps is the packed string.
		for (let i = 0; i < 10_000; i += 100) {
			const batch = Array.from({ length: 100 }, (_, j) => wait(String(i + j), chatOf(i + j)));
			expect(before.recordWaits(context, state, batch, NOW, before.WAIT_CAPACITY)).toEqual(
				batch.map(() => ({ recorded: true })),
			);
			if (i % 500 === 400) state = load((saved = JSON.stringify(state)));
		}
		saved = JSON.stringify(state);
		const bytesPerWait = Math.round(saved.length / 10_000);
		// About 124 bytes: n8n's signed resume path packed (resumePathPacking.ts), times in base 36, the
		// row id the execution and when it asked. Whole it took about 300, an object per wait about 460.
		expect(bytesPerWait).toBeLessThan(130);

		// n8n restarted: a new process knows only static data.
		const after = waitingRunsProcess();
		const fresh = load(saved);
		expect(Object.keys(byExecution(after, fresh))).toHaveLength(10_000);
		expect(after.liveWaitCount(context, fresh, NOW)).toBe(10_000);
		for (let i = 0; i < 10_000; i++) {
			expect(
				after
					.waitsForReply(context, fresh, received(chatOf(i)), `d-${i}`, NOW)
					.map((w) => w.executionId),
			).toEqual([String(i)]);
		}
		// Full: a new wait is refused with the reason; the oldest is still there; an update of a known wait is taken.
		expect(
			after.recordWait(context, fresh, wait('10000', chatOf(10_000)), NOW, after.WAIT_CAPACITY),
		).toEqual({
			recorded: false,
			reason: 'this account already has 10000 runs waiting for a reply',
		});
		expect(
			after
				.waitsForReply(context, fresh, received(chatOf(0)), 'd-x', NOW)
				.map((w) => w.executionId),
		).toEqual(['0']);
		expect(
			after.recordWait(
				context,
				fresh,
				wait('0', chatOf(0), { questionId: 'msg-0' }),
				NOW,
				after.WAIT_CAPACITY,
			),
		).toEqual({ recorded: true });
		// A run that took its answer no longer counts: a new one fits again.
		after.recordWait(context, fresh, wait('1', chatOf(1), { resumedBy: 'd-1' }), NOW);
		expect(
			after.recordWait(context, fresh, wait('10000', chatOf(10_000)), NOW, after.WAIT_CAPACITY),
		).toEqual({ recorded: true });
	});

	test('only an ended wait goes: an hour past its end, not before, whatever the count', () => {
		const runs = waitingRunsProcess();
		const context = listener('wf-expiry');
		const state: WebhookState = {};
		for (let i = 0; i < 1_500; i++)
			runs.recordWait(
				context,
				state,
				wait(String(i), chatOf(i), { until: i === 0 ? NOW + 1_000 : NOW + 10 * HOUR }),
				NOW,
			);
		runs.recordWait(context, state, wait('late', chatOf(9_999)), NOW + 1_000 + HOUR);
		expect(Object.keys(byExecution(runs, state))).toHaveLength(1_501);
		// Ended rows are swept once a minute per process: the next write a minute on drops it.
		runs.recordWait(context, state, wait('later', chatOf(9_998)), NOW + 1_001 + HOUR + 60_000);
		const kept = byExecution(runs, state);
		expect(Object.keys(kept)).toHaveLength(1_501);
		expect(kept['0']).toBeUndefined();
		expect(kept['1']).toBeDefined();
	});
});

test('a run that took its answer goes an hour after it, even with no time limit; a redelivery of that answer is still recognised until then', () => {
	const runs = waitingRunsProcess();
	const context = listener('wf-resumed-expiry');
	const state: WebhookState = {};
	const forever = Date.parse('3000-01-01T00:00:00.000Z');
	runs.recordWait(context, state, wait('1', chatOf(1), { until: forever }), NOW);
	runs.recordWait(
		context,
		state,
		wait('1', chatOf(1), { until: forever, resumedBy: 'd-1', resumedAt: NOW }),
		NOW,
	);
	runs.recordWait(context, state, wait('2', chatOf(2), { until: forever }), NOW + HOUR);
	expect(
		runs
			.waitsForReply(context, state, received(chatOf(1)), 'd-1', NOW + HOUR)
			.map((w) => w.executionId),
	).toEqual(['1']);
	runs.recordWait(context, state, wait('3', chatOf(3), { until: forever }), NOW + HOUR + 60_001);
	expect(Object.keys(byExecution(runs, state)).sort()).toEqual(['2', '3']);
});

describe('10,000 chats paused at once', () => {
	const settings = { minutes: 30, keyword: 'bot on', apiOrigins: ['api'] };
	const sent = (chat: string, at: number, text = 'I will handle this') => ({
		type: 'message.sent',
		occurredAt: new Date(at).toISOString(),
		message: { chatId: chat, origin: 'phone', text },
	});
	const pauseCommand = (chat: string, at: number) =>
		JSON.stringify({ chat, pause: true, minutes: 0, at });

	test('each is honoured after a restart, and so is a week-old pause with no end; the keyword ends one', () => {
		const before = chatPauseProcess();
		const node = {
			...listener('wf-10k-pauses'),
			getNodeParameter: () => ({ settings: { ...settings, apiOrigins: 'api' } }),
		};
		const context = node as unknown as Parameters<typeof before.applyChatPause>[0];
		let state = load('{}');
		const weekAgo = NOW - 7 * 24 * HOUR;
		expect(
			before.applyPauseCommand(
				context,
				state,
				pauseCommand('4917699999999@c.us', weekAgo),
				weekAgo,
			),
		).toEqual({ applied: true });
		for (let i = 0; i < 10_000; i++) {
			before.applyChatPause(context, state, sent(chatOf(i), NOW - 60_000 + i), settings, NOW);
			if (i % 500 === 499) state = load(JSON.stringify(state));
		}
		const saved = JSON.stringify(state);
		// About 34 bytes a pause (times in base 36; 47 in decimal).
		expect(Math.round(saved.length / 10_001)).toBeLessThan(40);

		const after = chatPauseProcess();
		const fresh = load(saved);
		expect(Object.keys(after.pausesInStaticData(fresh))).toHaveLength(10_001);
		for (let i = 0; i < 10_000; i++)
			expect(
				after.applyChatPause(
					context,
					fresh,
					{ type: 'message.received', message: received(chatOf(i)) },
					settings,
					NOW,
				),
			).toBe(after.PAUSED);
		expect(
			after.applyChatPause(
				context,
				fresh,
				{ type: 'message.received', message: received('4917699999999@c.us') },
				settings,
				NOW,
			),
		).toBe(after.PAUSED);
		expect(
			after.applyChatPause(
				context,
				fresh,
				{ type: 'message.received', message: received('4917600000000@c.us') },
				settings,
				NOW + 60_000,
			),
		).toBe(after.PAUSED);
		expect(
			after.applyChatPause(
				context,
				fresh,
				{ type: 'message.received', message: received(chatOf(10_001)) },
				settings,
				NOW,
			),
		).toBeUndefined();
		after.applyChatPause(
			context,
			fresh,
			sent(chatOf(5), NOW + 1_000, 'bot on'),
			settings,
			NOW + 1_000,
		);
		expect(
			after.applyChatPause(
				context,
				fresh,
				{ type: 'message.received', message: received(chatOf(5)) },
				settings,
				NOW + 2_000,
			),
		).toBeUndefined();
		// A pause that ended goes a day after the person's message, not before.
		after.applyChatPause(context, fresh, sent(chatOf(6), NOW + 2_000), settings, NOW + 25 * HOUR);
		expect(after.pausesInStaticData(fresh)[chatOf(7)]).toBeUndefined();
		expect(after.pausesInStaticData(fresh)['4917699999999@c.us']).toBeDefined();
	});
});

test('any chat id, number id or question id is kept byte for byte in the packed string (fast-check)', () => {
	let workflow = 0;
	const runs = waitingRunsProcess();
	// Every ASCII character (controls, space, ";", "%", quotes) and any well-formed Unicode text.
	const text = (minLength: number) =>
		fc.oneof(
			fc.string({ unit: 'binary-ascii', minLength }),
			fc.string({ unit: 'grapheme', minLength }),
		);
	fc.assert(
		fc.property(text(1), text(1), fc.option(text(0)), (chat, channelId, questionId) => {
			const context = listener(`wf-bytes-${workflow++}`);
			const w = wait('7', chat, {
				channelId,
				questionId,
				resumePath: `/webhook-waiting/7/n?chat=${chat}`,
			});
			const state: WebhookState = {};
			runs.recordWait(context, state, w, NOW);
			const packed = state.waitRows!;
			expect(JSON.stringify(packed)).toBe(`"${packed}"`); // nothing JSON would escape
			expect(byExecution(runs, load(JSON.stringify(state)))['7']).toEqual({
				...w,
				questionId: questionId === '' ? null : questionId,
			});
		}),
		{ numRuns: 300 },
	);
});

test('any time a wait or a pause holds is kept exactly in the packed string: whole or not, no limit, ended, before or after the wait began (fast-check)', () => {
	let workflow = 0;
	const times = waitingRunsProcess();
	// Times as n8n and the hand-offs give them, and anything a JSON number could be.
	const time = fc.oneof(
		fc.integer({ min: 0, max: 4_102_444_800_000 }),
		fc.constantFrom(0, 32_503_680_000_000, Number.MAX_SAFE_INTEGER),
		fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
	);
	fc.assert(
		fc.property(
			time,
			time,
			fc.option(time, { nil: undefined }),
			fc.nat(5),
			(since, until, resumedAt, asked) => {
				const context = listener(`wf-times-${workflow++}`);
				const w = wait('9', '4917600000009@c.us', {
					since,
					until,
					...(resumedAt === undefined ? {} : { resumedAt, resumedBy: 'd-1' }),
					...(asked ? { asked } : {}),
				});
				const state: WebhookState = {};
				// Never swept: the point is the encoding, not the expiry.
				times.recordWait(context, state, w, Number.NEGATIVE_INFINITY);
				const kept = byExecution(times, load(JSON.stringify(state)))['9'];
				// A resumed wait keeps only what recognises its answer: its times and that delivery.
				if (resumedAt === undefined) expect(kept).toEqual(w);
				else
					expect(kept).toEqual({
						executionId: '9',
						resumePath: '',
						chat: '',
						channelId: '',
						questionId: null,
						since,
						until: Math.min(until, resumedAt),
						resumedAt,
						resumedBy: 'd-1',
					});
			},
		),
		{ numRuns: 300 },
	);
	const pauses = chatPauseProcess();
	const pauseContext = (id: string) => ({
		...listener(id),
		getNodeParameter: () => ({ settings: { minutes: 30, keyword: '#bot', apiOrigins: 'api' } }),
	});
	fc.assert(
		// Given at its own time (a day before an ended pause may go), so that it is not swept at once.
		fc.property(
			time.filter((x) => x + 86_400_000 !== x),
			fc.oneof(
				time.filter((x) => x >= 0),
				fc.constant(0),
			),
			(at, until) => {
				const id = `wf-pause-times-${workflow++}`;
				const state: WebhookState = {};
				const context = pauseContext(id) as unknown as Parameters<
					typeof pauses.applyPauseCommand
				>[0];
				expect(
					pauses.applyPauseCommand(
						context,
						state,
						JSON.stringify({ chat: '4917600000009@c.us', pause: until > 0, at, until }),
						at,
					),
				).toEqual({ applied: true });
				expect(
					pauses.pausesInStaticData(load(JSON.stringify(state)))['4917600000009@c.us'],
				).toEqual({ at, until });
			},
		),
		{ numRuns: 300 },
	);
});
