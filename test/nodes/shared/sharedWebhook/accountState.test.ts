/**
 * State that grows with an account (docs/design/account-state.md): 10,000 runs waiting and 10,000
 * chats paused at once through the real code paths, nothing live forgotten, and, under random
 * interleavings (fast-check), routing that matches a plain scan and two processes' saves that lose
 * nothing. A second "process" is a second instance of the module (jest.isolateModules), with its
 * own memory, over the same static data, which n8n gives each request as a copy of what was saved.
 */
import fc from 'fast-check';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type * as ChatPauseModule from '../../../../nodes/MessagingRelayTrigger/chatPause';
import type * as WaitingRunsModule from '../../../../nodes/shared/sendAndWait/waitingRuns';
import type { WaitEntry } from '../../../../nodes/shared/sendAndWait/waitingRuns';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';
import type { RelaySimulator } from '../../../simulator';
import {
	executeFrom,
	PackageNodeTypes,
	relayCredentials,
	relayNode,
} from '../../../support/harness/n8nRuntime';
import { withSharedN8nPerTest, type SharedN8n } from '../../../support/harness/sharedN8n';
import { Workflow } from 'n8n-workflow';

/** A fresh n8n process: the module with empty memory. */
function processOf<M>(path: string): M {
	let module!: M;
	jest.isolateModules(() => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- a second module instance is a second process's memory
		module = require(path) as M;
	});
	return module;
}
const waitingRunsProcess = () =>
	processOf<typeof WaitingRunsModule>('../../../../nodes/shared/sendAndWait/waitingRuns');
const chatPauseProcess = () =>
	processOf<typeof ChatPauseModule>('../../../../nodes/MessagingRelayTrigger/chatPause');

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
const load = (saved: string): WebhookState => JSON.parse(saved) as WebhookState;

describe('10,000 runs waiting at once on one account', () => {
	test("each contact's message finds its own run, from static data alone after a restart; the 10,001st is refused, never an older one dropped", () => {
		const before = waitingRunsProcess();
		const context = listener('wf-10k-waits');
		let saved = '{}';
		let state = load(saved);
		for (let i = 0; i < 10_000; i++) {
			expect(
				before.recordWait(context, state, wait(String(i), chatOf(i)), NOW, before.WAIT_CAPACITY),
			).toEqual({ recorded: true });
			// Saved and loaded again every 500 requests: what n8n keeps is the packed string.
			if (i % 500 === 499) state = load((saved = JSON.stringify(state)));
		}
		saved = JSON.stringify(state);
		const bytesPerWait = Math.round(saved.length / 10_000);
		// About 123 bytes: n8n's signed resume path packed (resumePathPacking.ts), times in base 36.
		// Whole it took about 300, an object per wait about 460.
		expect(bytesPerWait).toBeLessThan(130);

		// n8n restarted: a new process knows only static data.
		const after = waitingRunsProcess();
		const fresh = load(saved);
		expect(Object.keys(after.waitsInStaticData(fresh))).toHaveLength(10_000);
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
		expect(Object.keys(runs.waitsInStaticData(state))).toHaveLength(1_501);
		// Ended rows are swept once a minute per process: the next write a minute on drops it.
		runs.recordWait(context, state, wait('later', chatOf(9_998)), NOW + 1_001 + HOUR + 60_000);
		const kept = runs.waitsInStaticData(state);
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
	expect(Object.keys(runs.waitsInStaticData(state)).sort()).toEqual(['2', '3']);
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

describe('properties under random interleavings (fast-check)', () => {
	const chats = [
		'4917600000001@c.us',
		'4917600000002@c.us',
		'4917600000003@c.us',
		'120363000000001@g.us',
	];
	type Op =
		| { kind: 'record'; process: 0 | 1; request: number; chat: number; questionId: boolean }
		| { kind: 'update'; process: 0 | 1; request: number; run: number }
		| { kind: 'resume'; process: 0 | 1; request: number; run: number }
		| { kind: 'save'; request: number }
		| { kind: 'load'; request: number; process: 0 | 1 };
	const process01 = fc.constantFrom<0 | 1>(0, 1);
	const request = fc.integer({ min: 0, max: 3 });
	const op: fc.Arbitrary<Op> = fc.oneof(
		fc.record({
			kind: fc.constant('record' as const),
			process: process01,
			request,
			chat: fc.integer({ min: 0, max: chats.length - 1 }),
			questionId: fc.boolean(),
		}),
		fc.record({
			kind: fc.constant('update' as const),
			process: process01,
			request,
			run: fc.nat(30),
		}),
		fc.record({
			kind: fc.constant('resume' as const),
			process: process01,
			request,
			run: fc.nat(30),
		}),
		fc.record({ kind: fc.constant('save' as const), request }),
		fc.record({ kind: fc.constant('load' as const), request, process: process01 }),
	);

	test('two processes, one static data, requests overlapping: no live wait is forgotten, and every message is routed as a plain scan of all waits would', () => {
		let workflow = 0;
		fc.assert(
			fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
				const context = listener(`wf-prop-${workflow++}`);
				const processes = [waitingRunsProcess(), waitingRunsProcess()];
				let saved = '{}';
				// Up to four requests in flight, each on a process with its own loaded copy.
				const requests = [0, 1, 2, 3].map((i) => ({
					process: (i % 2) as 0 | 1,
					state: load(saved),
				}));
				/** What each process was told (the model): run id → its wait. */
				const model = new Map<string, { wait: WaitEntry; by: Set<0 | 1> }>();
				let next = 0;
				for (const step of ops) {
					const r = requests[step.request];
					if (step.kind === 'load')
						requests[step.request] = { process: step.process, state: load(saved) };
					else if (step.kind === 'save') saved = JSON.stringify(r.state);
					else if (step.kind === 'record') {
						const id = String(next++);
						const w = wait(id, chats[step.chat], {
							since: NOW + next,
							questionId: step.questionId ? `q-${id}` : null,
						});
						processes[r.process].recordWait(context, r.state, w, NOW);
						model.set(id, { wait: w, by: new Set([r.process]) });
					} else {
						const known = model.get(String(step.run));
						if (!known) continue;
						const change =
							step.kind === 'update'
								? { asked: (known.wait.asked ?? 0) + 1 }
								: { resumedBy: `d-${step.run}` };
						known.wait = { ...known.wait, ...change };
						known.by.add(r.process);
						processes[r.process].recordWait(context, r.state, { ...known.wait }, NOW);
					}
				}
				// Property 1: every wait is found where it was recorded, by a request of that process, on any copy.
				for (const [id, { wait: w, by }] of model) {
					for (const p of by) {
						const found = processes[p]
							.waitsForReply(context, load(saved), received(w.chat), w.resumedBy ?? 'fresh', NOW)
							.map((x) => x.executionId);
						expect(found).toContain(id);
					}
				}
				// Property 2: once each process has written once more, static data alone holds every wait.
				for (const p of [0, 1] as const) {
					const state = load(saved);
					processes[p].recordWait(
						context,
						state,
						wait(`heal-${p}`, chats[0], { until: NOW + 1 }),
						NOW,
					);
					saved = JSON.stringify(state);
				}
				const stored = waitingRunsProcess().waitsInStaticData(load(saved));
				for (const [id, { wait: w }] of model) {
					expect(stored[id]).toBeDefined();
					expect(stored[id].asked ?? 0).toBe(w.asked ?? 0);
					expect(stored[id].resumedBy).toBe(w.resumedBy);
				}
				// Property 3: routing from static data alone equals a scan of every wait (its rule written out plainly).
				const reader = waitingRunsProcess();
				const state = load(saved);
				for (const chat of chats) {
					for (const delivery of ['fresh', 'd-0', 'd-1']) {
						for (const quoted of [undefined, 'q-0', 'q-1']) {
							const message = received(chat, {
								replyTo: quoted === undefined ? null : { id: quoted },
								...(chat.endsWith('@g.us') ? { group: { id: chat } } : {}),
							});
							const expected = Object.values(stored)
								.filter(
									(w) =>
										w.chat === chat && (w.resumedBy ? w.resumedBy === delivery : w.until > NOW),
								)
								.map((w) => ({
									w,
									rank:
										w.resumedBy === delivery
											? 0
											: quoted !== undefined && w.questionId === quoted
												? 1
												: 2,
								}))
								.sort((a, b) => a.rank - b.rank || a.w.since - b.w.since)
								.map(({ w }) => w.executionId);
							expect(
								reader
									.waitsForReply(context, state, message, delivery, NOW)
									.map((w) => w.executionId),
							).toEqual(expected);
						}
					}
				}
			}),
			{ numRuns: 150 },
		);
	});

	test('two processes pausing chats with overlapping saves: the newest pause of each chat survives in static data', () => {
		const settings = { minutes: 30, keyword: 'bot on', apiOrigins: ['api'] };
		let workflow = 0;
		const pauseOp = fc.record({
			process: process01,
			request,
			chat: fc.integer({ min: 0, max: 3 }),
			save: fc.boolean(),
			reload: fc.boolean(),
		});
		fc.assert(
			fc.property(fc.array(pauseOp, { maxLength: 30 }), (ops) => {
				const context = {
					...listener(`wf-pause-prop-${workflow++}`),
					getNodeParameter: () => ({ settings }),
				} as unknown as Parameters<typeof ChatPauseModule.applyChatPause>[0];
				const processes = [chatPauseProcess(), chatPauseProcess()];
				let saved = '{}';
				const copies = [0, 1, 2, 3].map(() => load(saved));
				const newest = new Map<string, number>();
				let at = NOW - 60_000;
				for (const step of ops) {
					const chat = chatOf(step.chat);
					at += 1;
					processes[step.process].applyChatPause(
						context,
						copies[step.request],
						{
							type: 'message.sent',
							occurredAt: new Date(at).toISOString(),
							message: { chatId: chat, origin: 'phone', text: 'x' },
						},
						settings,
						NOW,
					);
					newest.set(chat, at);
					if (step.save) saved = JSON.stringify(copies[step.request]);
					if (step.reload) copies[step.request] = load(saved);
				}
				for (const p of [0, 1]) {
					const state = load(saved);
					processes[p].applyChatPause(
						context,
						state,
						{
							type: 'message.sent',
							occurredAt: new Date(NOW - 120_000).toISOString(),
							message: { chatId: chatOf(99), origin: 'phone', text: 'x' },
						},
						settings,
						NOW,
					);
					saved = JSON.stringify(state);
				}
				const stored = chatPauseProcess().pausesInStaticData(load(saved));
				for (const [chat, when] of newest) expect(stored[chat]?.at).toBe(when);
			}),
			{ numRuns: 150 },
		);
	});
});

test('any chat id, number id or question id is kept byte for byte in the packed string (fast-check)', () => {
	let workflow = 0;
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
			waitingRunsProcess().recordWait(context, state, w, NOW);
			const packed = state.waitRows!;
			expect(JSON.stringify(packed)).toBe(`"${packed}"`); // nothing JSON would escape
			expect(waitingRunsProcess().waitsInStaticData(load(JSON.stringify(state)))['7']).toEqual({
				...w,
				questionId: questionId === '' ? null : questionId,
			});
		}),
		{ numRuns: 300 },
	);
});

test('any time a wait or a pause holds is kept exactly in the packed string: whole or not, no limit, ended, before or after the wait began (fast-check)', () => {
	let workflow = 0;
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
				waitingRunsProcess().recordWait(context, state, w, Number.NEGATIVE_INFINITY);
				expect(waitingRunsProcess().waitsInStaticData(load(JSON.stringify(state)))['9']).toEqual(w);
			},
		),
		{ numRuns: 300 },
	);
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
				const pauses = chatPauseProcess();
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
					chatPauseProcess().pausesInStaticData(load(JSON.stringify(state)))['4917600000009@c.us'],
				).toEqual({ at, until });
			},
		),
		{ numRuns: 300 },
	);
});

describe('two webhook processes (docs/design/account-state.md, "Two webhook processes")', () => {
	const chats = ['4917600000001@c.us', '4917600000002@c.us', '120363000000001@g.us'];
	type Op =
		| { kind: 'record'; request: number; chat: number }
		| { kind: 'drop'; request: number; run: number }
		| { kind: 'save'; request: number }
		| { kind: 'load'; request: number; process: 0 | 1 };
	const request = fc.integer({ min: 0, max: 3 });
	const op: fc.Arbitrary<Op> = fc.oneof(
		fc.record({
			kind: fc.constant('record' as const),
			request,
			chat: fc.integer({ min: 0, max: chats.length - 1 }),
		}),
		fc.record({ kind: fc.constant('drop' as const), request, run: fc.nat(4) }),
		fc.record({ kind: fc.constant('save' as const), request }),
		fc.record({
			kind: fc.constant('load' as const),
			request,
			process: fc.constantFrom<0 | 1>(0, 1),
		}),
	);

	test("a wait another process's save dropped is back in static data after one request of any kind at the process holding it; an ended wait never comes back to life", () => {
		let workflow = 0;
		fc.assert(
			fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
				const context = listener(`wf-repair-${workflow++}`);
				const processes = [waitingRunsProcess(), waitingRunsProcess()];
				let saved = '{}';
				const requests = [0, 1, 2, 3].map((i) => ({
					process: (i % 2) as 0 | 1,
					state: load(saved),
				}));
				const model = new Map<string, { chat: string; ended: boolean }>();
				let next = 0;
				for (const step of ops) {
					const r = requests[step.request];
					if (step.kind === 'load')
						requests[step.request] = { process: step.process, state: load(saved) };
					else if (step.kind === 'save') saved = JSON.stringify(r.state);
					else if (step.kind === 'record') {
						const id = String(next++);
						processes[r.process].recordWait(
							context,
							r.state,
							wait(id, chats[step.chat], { since: NOW + next }),
							NOW,
						);
						model.set(id, { chat: chats[step.chat], ended: false });
					} else {
						const known = model.get(String(step.run));
						if (!known) continue;
						// The holder ends a wait it finds (n8n answered that the run no longer waits).
						const seen = processes[r.process]
							.waitsForReply(context, r.state, received(known.chat), 'd', NOW)
							.some((w) => w.executionId === String(step.run));
						if (!seen) continue;
						processes[r.process].dropWait(context, r.state, String(step.run), NOW);
						known.ended = true;
					}
				}
				// Requests at each process that write nothing of their own (a ping, an ignored event), in
				// both orders. A wait static data holds as ended never turns live again; after one request
				// at each process, static data holds every wait as the processes left it.
				const endedInStore = new Set<string>();
				for (const p of [0, 1, 0, 1] as const) {
					const state = load(saved);
					processes[p].repairWaits(context, state, NOW);
					saved = JSON.stringify(state);
					const stored = waitingRunsProcess().waitsInStaticData(load(saved));
					for (const id of endedInStore)
						expect(stored[id] === undefined || stored[id].until <= NOW).toBe(true);
					for (const [id, w] of Object.entries(stored)) if (w.until <= NOW) endedInStore.add(id);
				}
				const stored = waitingRunsProcess().waitsInStaticData(load(saved));
				for (const [id, { ended }] of model) {
					if (ended) expect(stored[id] === undefined || stored[id].until <= NOW).toBe(true);
					else expect(stored[id]?.until).toBeGreaterThan(NOW);
				}
			}),
			{ numRuns: 300 },
		);
	});

	test("a request on this process's own last write writes nothing; after another process's save it writes back what that save lost, and leaves a wait the other process ended ended", () => {
		const runs = waitingRunsProcess();
		const context = listener('wf-repair-own');
		const state = load('{}');
		runs.recordWait(context, state, wait('1', chats[0]), NOW);
		const saved = JSON.stringify(state);
		const again = load(saved);
		expect(runs.repairWaits(context, again, NOW)).toBe(false);
		expect(JSON.stringify(again)).toBe(saved);
		// Another process's save without it: the next request at this process writes it back.
		const other = waitingRunsProcess();
		const theirs = load('{}');
		other.recordWait(context, theirs, wait('2', chats[1]), NOW);
		const lost = load(JSON.stringify(theirs));
		expect(runs.repairWaits(context, lost, NOW)).toBe(true);
		expect(Object.keys(runs.waitsInStaticData(lost)).sort()).toEqual(['1', '2']);

		// The other process ends wait 1 (its run no longer waits) and saves; this process still
		// holds it live in memory: its next request leaves it ended.
		const ending = load(JSON.stringify(lost));
		other.dropWait(context, ending, '1', NOW);
		const afterEnd = load(JSON.stringify(ending));
		runs.repairWaits(context, afterEnd, NOW);
		runs.recordWait(context, afterEnd, wait('3', chats[2]), NOW);
		expect(runs.waitsInStaticData(afterEnd)['1'].until).toBe(NOW);
		expect(runs.waitsForReply(context, afterEnd, received(chats[0]), 'd', NOW)).toEqual([]);
	});
});

describe('Send and Wait on an account at its capacity', () => {
	let sim: RelaySimulator;
	let n8n: SharedN8n;
	withSharedN8nPerTest((s, n) => ([sim, n8n] = [s, n]));

	test('fails before it asks: a clear error that says why and what to do, and no message goes out', async () => {
		const holder = n8n.addWorkflow('campaign trigger', {
			events: ['message.received'],
		} as INodeParameters);
		await holder.publish();
		// An earlier n8n process recorded 10,000 live waits; this one starts with static data only.
		const earlier = waitingRunsProcess();
		const db = JSON.parse(holder.db) as Record<string, WebhookState>;
		const state = db[`node:${holder.node.name}`];
		const context = listener(`wf-${holder.node.webhookId}`);
		for (let i = 0; i < earlier.WAIT_CAPACITY; i++)
			earlier.recordWait(
				context,
				state,
				wait(`old-${i}`, chatOf(i), { since: Date.now(), until: Date.now() + HOUR }),
				Date.now(),
			);
		holder.db = JSON.stringify(db);

		const asking = relayNode({
			resource: 'message',
			operation: 'sendAndWait',
			message: 'Can you come on Friday?',
			waitTo: '+4917612345678',
			waitChannelId: 'num_main',
		});
		const workflow = new Workflow({
			id: 'wf-campaign',
			nodes: [asking],
			connections: {},
			active: true,
			nodeTypes: new PackageNodeTypes(),
		});
		const before = sim.requests.length;
		const run = await executeFrom(
			workflow,
			asking,
			[[{ json: {} }]],
			relayCredentials(sim.baseUrl),
			'webhook',
			n8n.baseUrl,
		);
		expect(run.data.resultData.error).toMatchObject({
			message:
				'This account already has 10,000 runs waiting for a reply, the most one account can hold',
			description: expect.stringContaining('The question was not sent.'),
		});
		expect(
			sim.requests.slice(before).filter((r) => r.method === 'POST' && r.path === '/v1/messages'),
		).toEqual([]);
		// Nothing was dropped to make room.
		expect(
			Object.keys(
				earlier.waitsInStaticData(
					JSON.parse(holder.db)[`node:${holder.node.name}`] as WebhookState,
				),
			),
		).toHaveLength(10_000);
	});
});
