/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @typescript-eslint/no-require-imports -- outside n8n (a test): a module instance is a process's memory, MODEL_RUNS sets a soak, the gate's config is read */
/**
 * A model of the account state with a clock (issue 42), checked against the package after every step:
 * 2 to 4 webhook processes (each a module instance of its own: jest.isolateModules) sharing one static data
 * saved whole, the last save winning, with requests that overlap (a request loads, works, and saves later,
 * or never: a lost save), the clock advancing past every keep window, rows swept, processes restarting
 * with empty memory, a row corrupted, and the registration handed to another trigger. Operations: record
 * a wait, confirm it, answer it (and its redelivery), ask again, end it, let it time out, pause a chat,
 * resume it, the keyword. After every step each process serves one request (time passes only while
 * processes serve requests), then the invariants:
 *   - nothing ended is live again: in static data, and in what any process offers or counts;
 *   - every live wait is found by every process, and a chat's message goes to its oldest live wait;
 *   - the capacity counts exactly the runs that wait;
 *   - an answer and its redelivery resume one wait, once;
 *   - a chat is paused exactly when the newest word on it says so.
 * Runs of hundreds of steps, sizes set explicitly, the seed printed by fast-check on a failure; a failing
 * case found while building it is kept as an example below. Rare cases the mutation gate's one seed does
 * not meet are walked on purpose (RARE_WALKS), and a test checks the gate's walks against that list.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import type * as ChatPauseModule from '../../../../nodes/MessagingRelayTrigger/chatPause';
import type * as WaitingRunsModule from '../../../../nodes/shared/sendAndWait/waitingRuns';
import type * as AccountTableModule from '../../../../nodes/shared/sharedWebhook/accountTable';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

/**
 * n8n's save of each request, as the model decides it (staticDataSave.ts watches n8n's real save): a table's
 * watch learns `true` when the model saves the request, `false` when it loses it, in that same step.
 */
const mockSaves = new WeakMap<
	object,
	{ settled: boolean; then: Array<(saved: boolean) => void> }
>();
function mockWatch(context: object) {
	let save = mockSaves.get(context);
	if (!save) mockSaves.set(context, (save = { settled: false, then: [] }));
	const known = save;
	return {
		get settled() {
			return known.settled;
		},
		saved: { then: (callback: (saved: boolean) => void) => void known.then.push(callback) },
	};
}
function settle(context: object, saved: boolean) {
	const save = mockSaves.get(context);
	if (!save) {
		mockSaves.set(context, { settled: true, then: [] });
		return;
	}
	save.settled = true;
	for (const callback of save.then.splice(0)) callback(saved);
}
jest.mock('../../../../nodes/shared/n8n/staticDataSave', () => ({
	...jest.requireActual('../../../../nodes/shared/n8n/staticDataSave'),
	watchSave: (context: object) => mockWatch(context),
}));

/**
 * Libraries hold no state of a process: loaded once, shared by every process (re-evaluating n8n-workflow
 * and zod per process was nine tenths of this test's time).
 */
const mockLibraries: { [name: string]: unknown } = {};
jest.mock('n8n-workflow', () => (mockLibraries.n8n ??= jest.requireActual('n8n-workflow')));
jest.mock('zod', () => (mockLibraries.zod ??= jest.requireActual('zod')));

interface Process {
	runs: typeof WaitingRunsModule;
	pauses: typeof ChatPauseModule;
	tables: typeof AccountTableModule;
}

function newProcess(): Process {
	let loaded!: Process;
	jest.isolateModules(() => {
		loaded = {
			runs: require('../../../../nodes/shared/sendAndWait/waitingRuns') as typeof WaitingRunsModule,
			pauses:
				require('../../../../nodes/MessagingRelayTrigger/chatPause') as typeof ChatPauseModule,
			tables:
				require('../../../../nodes/shared/sharedWebhook/accountTable') as typeof AccountTableModule,
		};
	});
	return loaded;
}

const T0 = 1_800_000_000_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const CHATS = ['4917600000001@c.us', '4917600000002@c.us', '4917600000003@c.us'];
const SETTINGS = { minutes: 30, keyword: '#bot', apiOrigins: 'api' };

/** The plain model: what the state must say. */
interface ModelWait {
	id: string;
	executionId: string;
	chat: string;
	since: number;
	until: number;
	/** Recorded in a request that was saved (a wait never saved was never confirmed: the node did not ask). */
	saved: boolean;
	state: 'live' | 'resumed' | 'ended';
	resumedBy?: string;
	/** When its answer was saved: a redelivery of that answer is recognised for an hour after it. */
	resumedAt?: number;
}
interface ModelPause {
	at: number;
	until: number;
}

interface Request {
	process: number;
	/** The request's context (its save is watched by it). */
	context: ReturnType<Real['listener']>;
	state: WebhookState;
	/** What the request changed in the model, applied when (if) it is saved. */
	onSave: Array<() => void>;
	/** A webhook request carries one delivery: a second answer in it is not a thing n8n can do. */
	answered?: boolean;
	/** The chat it answered, if any. */
	answeredChat?: string;
	/** The static data as it loaded it. */
	loaded: string;
}

/**
 * The rare cases a walk met, counted as the commands run: the mutation gate replays one seed, so
 * a test below checks that the gate's walks meet every one (otherwise a mutant that only a rare
 * case kills would survive every measure, on that seed alone).
 */
const met = new Map<string, number>();
const meet = (situation: string) => met.set(situation, (met.get(situation) ?? 0) + 1);
const RARE_CASES = [
	'a save overwrites a newer revision it did not load',
	'a save drops a wait another request saved',
	'two requests answer one chat at once',
	'an answer is redelivered',
	'a wait runs out of time',
	'an answered wait is swept',
	'a process restarts with a request open',
	'a corrupted row is read',
	'the registration is handed over with live waits',
	'a paused chat is resumed',
	'a second wait in one chat',
	'a wait is ended',
] as const;

/** Runs `apply` the first time it is called. */
function once(apply: () => void): () => void {
	let done = false;
	return () => {
		if (!done) apply();
		done = true;
	};
}

class Real {
	processes: Process[];
	/**
	 * What is in a process's view but not known saved, by process: written there by a request, it is saved
	 * with that request, or with any later request of the process (which writes what the process wrote
	 * recently), also after n8n failed the first save. A restart before that loses it (its request was never
	 * answered, or answered 503: its sender tries again).
	 */
	unsaved: Array<Array<() => void>>;
	/** Changes a request made to the process's view (a record, an end, a pause): saved with any of its requests. */
	inView(request: Request, apply: () => void) {
		const first = once(apply);
		request.onSave.push(first);
		this.unsaved[request.process].push(first);
	}
	/** A request whose save n8n failed: its process's watch marks the tables unsaved (staticDataSave.ts). */
	lose(slot: number) {
		const request = this.requests[slot];
		if (!request) return;
		settle(request.context, false);
		this.requests[slot] = undefined;
	}
	loseAll() {
		for (let slot = 0; slot < this.requests.length; slot++) this.lose(slot);
	}
	db = '{}';
	requests: Array<Request | undefined> = [undefined, undefined, undefined];
	trigger = 0;
	constructor(readonly count: number) {
		this.processes = Array.from({ length: count }, newProcess);
		this.unsaved = this.processes.map(() => []);
	}
	listener(p: number) {
		return {
			getWorkflow: () => ({ id: `wf-model-${this.trigger}` }),
			getNode: () => ({ name: `Trigger ${p}` }),
			getMode: () => 'webhook',
			getNodeParameter: () => ({ settings: SETTINGS }),
			getResponseObject: () => ({}),
		};
	}
	load(): WebhookState {
		return JSON.parse(this.db) as WebhookState;
	}
}

interface Model {
	now: number;
	waits: Map<string, ModelWait>;
	pauses: Map<string, ModelPause>;
	nextExecution: number;
	nextDelivery: number;
	/** Answers given, by delivery: the wait each resumed (redeliveries must find the same). */
	answers: Map<string, { chat: string; wait: string; at: number }>;
}

const liveNow = (w: ModelWait, now: number) => w.state === 'live' && w.saved && w.until > now;
const received = (chat: string): IDataObject => ({
	chatId: chat,
	from: `+${chat.split('@')[0]}`,
	channelId: 'num_main',
	group: null,
});

/** Each process serves one request (a repair), saved in turn: time passes only while processes serve. */
function serveEach(real: Real, now: number) {
	for (let p = 0; p < real.processes.length; p++) {
		const state = real.load();
		const context = real.listener(p);
		real.processes[p].runs.repairWaits(context, state, now);
		real.processes[p].pauses.repairPauses(context, state, now);
		real.db = JSON.stringify(state);
		settle(context, true);
		for (const apply of real.unsaved[p].splice(0)) apply();
	}
}

function checkInvariants(model: Model, real: Real) {
	const now = model.now;
	const stored = real.processes[0].runs.waitsInStaticData(real.load());
	for (const w of model.waits.values()) {
		const inDb = stored[w.id];
		// Nothing ended is live again, in static data.
		if (w.state !== 'live' || w.until <= now)
			expect({ id: w.id, live: !!inDb && !inDb.resumedBy && inDb.until > now }).toEqual({
				id: w.id,
				live: false,
			});
	}
	for (let p = 0; p < real.processes.length; p++) {
		const { runs, pauses } = real.processes[p];
		const listener = real.listener(p);
		const state = real.load();
		const live = [...model.waits.values()].filter((w) => liveNow(w, now));
		// The capacity counts exactly the runs that wait.
		expect({ process: p, live: runs.liveWaitCount(listener, state, now) }).toEqual({
			process: p,
			live: live.length,
		});
		for (const chat of CHATS) {
			// Every live wait is found by every process; the oldest first.
			const offered = runs
				.waitsForReply(listener, state, received(chat), 'a-new-delivery', now)
				.map((w) => w.id);
			const expected = live
				.filter((w) => w.chat === chat)
				.sort((a, b) => a.since - b.since)
				.map((w) => w.id);
			expect({ process: p, chat, offered }).toEqual({ process: p, chat, offered: expected });
			// Paused exactly when the newest word says so.
			const word = model.pauses.get(chat);
			const paused = pauses.applyChatPause(
				listener as never,
				state,
				{ type: 'message.received', message: received(chat) },
				{ ...SETTINGS, apiOrigins: ['api'] },
				now,
			);
			expect({ process: p, chat, paused: paused !== undefined }).toEqual({
				process: p,
				chat,
				paused: !!word && word.until > now,
			});
		}
		// An answer's redelivery is recognised by the wait it resumed, and by no other.
		for (const [delivery, { chat, wait }] of model.answers) {
			const w = model.waits.get(wait);
			// Kept an hour after it was answered (or ran out), then swept: a redelivery comes within minutes.
			if (!w || Math.min(w.until, w.resumedAt ?? Infinity) + HOUR < now) continue;
			const again = runs.waitsForReply(listener, state, received(chat), delivery, now);
			expect({ process: p, delivery, first: again[0]?.id }).toEqual({
				process: p,
				delivery,
				first: wait,
			});
		}
		// What the checks wrote is not saved.
		settle(listener, false);
	}
}

type Cmd = fc.Command<Model, Real>;

/** A step in an open request slot (a request loaded earlier, at some process). */
abstract class InRequest implements Cmd {
	constructor(readonly slot: number) {}
	check() {
		return true;
	}
	abstract act(model: Model, real: Real, request: Request): void;
	run(model: Model, real: Real) {
		const request = real.requests[this.slot];
		if (!request) return;
		this.act(model, real, request);
	}
	abstract toString(): string;
}

class Open implements Cmd {
	constructor(
		readonly slot: number,
		readonly process: number,
	) {}
	check = () => true;
	run(_model: Model, real: Real) {
		real.lose(this.slot);
		const process = this.process % real.processes.length;
		real.requests[this.slot] = {
			process,
			context: real.listener(process),
			state: real.load(),
			onSave: [],
			loaded: real.db,
		};
	}
	toString = () => `open(${this.slot} at ${this.process})`;
}

class Save implements Cmd {
	constructor(readonly slot: number) {}
	check = () => true;
	run(model: Model, real: Real) {
		const request = real.requests[this.slot];
		if (!request) return;
		if (real.db !== request.loaded) meet(RARE_CASES[0]);
		const saved = JSON.stringify(request.state);
		const before = real.db;
		if ([...model.waits.keys()].some((id) => before.includes(id) && !saved.includes(id)))
			meet(RARE_CASES[1]);
		real.db = saved;
		settle(request.context, true);
		for (const apply of request.onSave) apply();
		real.requests[this.slot] = undefined;
		serveEach(real, model.now);
		checkInvariants(model, real);
	}
	toString = () => `save(${this.slot})`;
}

class RecordWait extends InRequest {
	constructor(
		slot: number,
		readonly chat: number,
		readonly limit: 'short' | 'long' | 'none',
	) {
		super(slot);
	}
	act(model: Model, real: Real, request: Request) {
		const executionId = String(++model.nextExecution);
		const since = model.now + model.nextExecution; // distinct, ordered
		const until =
			this.limit === 'none'
				? Date.parse('3000-01-01')
				: since + (this.limit === 'short' ? 2 * MINUTE : 3 * HOUR);
		const wait = {
			executionId,
			resumePath: `/webhook-waiting/${executionId}/ask?since=${since}`,
			chat: CHATS[this.chat],
			channelId: 'num_main',
			since,
			until,
		};
		if ([...model.waits.values()].some((w) => w.chat === wait.chat && liveNow(w, model.now)))
			meet(RARE_CASES[10]);
		const { runs } = real.processes[request.process];
		runs.recordWaits(request.context, request.state, [wait], model.now);
		const id = runs.waitIdOf(wait);
		const modelWait: ModelWait = {
			id,
			executionId,
			chat: wait.chat,
			since,
			until,
			saved: false,
			state: 'live',
		};
		model.waits.set(id, modelWait);
		// The node asks only once its wait is in the database (the confirm): it counts once saved.
		real.inView(request, () => (modelWait.saved = true));
	}
	toString = () => `record(${this.slot}, chat ${this.chat}, ${this.limit})`;
}

class Answer extends InRequest {
	constructor(
		slot: number,
		readonly chat: number,
		readonly redeliver: boolean,
	) {
		super(slot);
	}
	act(model: Model, real: Real, request: Request) {
		// One delivery per request (found 2026-11-28: two answers in one request offered one wait twice, a
		// shape no webhook request has; two requests answering one chat stay in the model).
		if (request.answered) return;
		request.answered = true;
		const chat = CHATS[this.chat];
		request.answeredChat = chat;
		if (real.requests.some((r) => r && r !== request && r.answeredChat === chat))
			meet(RARE_CASES[2]);
		const earlier = [...model.answers].find(([, a]) => a.chat === chat);
		const delivery = this.redeliver && earlier ? earlier[0] : `d${++model.nextDelivery}`;
		const { runs } = real.processes[request.process];
		const listener = request.context;
		const [first] = runs.waitsForReply(
			listener,
			request.state,
			received(chat),
			delivery,
			model.now,
		);
		const known = model.answers.get(delivery);
		// A redelivery is known for an hour after its answer (waitingRuns.ts KEEP_AFTER_MS); later it may be
		// known still (its row not yet swept) or be a new message, which the service's de-duplication is for.
		const within = known !== undefined && model.now <= known.at + HOUR;
		if (known && (within || first?.id === known.wait)) {
			meet(RARE_CASES[3]);
			// A redelivery finds the wait it resumed, whatever else waits now.
			if (first) expect(first.id).toBe(known.wait);
			return;
		}
		if (!first) return;
		const w = model.waits.get(first.id);
		// Only a wait whose run waits takes an answer. Recorded in this process's view but not yet saved, it
		// takes one too: a message the contact sends between the record and the question (residual,
		// conversations-at-scale.md).
		expect(w && w.state === 'live' && w.until > model.now).toBe(true);
		// The offer is saved first (replyRouting.ts); once n8n saved it, the run resumes and the mark goes
		// into the process's view after the save: unsaved until its next request writes it.
		runs.updateWaits(
			listener,
			request.state,
			[[first.id, { ...first, offeredBy: delivery, offeredAt: model.now }]],
			model.now,
		);
		request.onSave.push(() => {
			// A run resumes once: an answer offered after another delivery resumed it gets no proof
			// (replyRouting.ts ends the wait and the message goes on to the triggers), so it is not its answer.
			if (w && w.state === 'resumed') return;
			const resumedAt = model.now;
			if (w) [w.state, w.resumedBy, w.resumedAt] = ['resumed', delivery, resumedAt];
			model.answers.set(delivery, { chat, wait: first.id, at: resumedAt });
			const scratch = JSON.parse(real.db) as WebhookState;
			runs.updateWaits(
				listener,
				scratch,
				[
					[
						first.id,
						{
							...first,
							offeredBy: delivery,
							offeredAt: model.now,
							resumedBy: delivery,
							resumedAt,
						},
					],
				],
				model.now,
			);
		});
	}
	toString = () =>
		`answer(${this.slot}, chat ${this.chat}${this.redeliver ? ', a redelivery' : ''})`;
}

class End extends InRequest {
	constructor(
		slot: number,
		readonly pick: number,
	) {
		super(slot);
	}
	act(model: Model, real: Real, request: Request) {
		const live = [...model.waits.values()].filter((w) => liveNow(w, model.now));
		const w = live[this.pick % Math.max(1, live.length)];
		if (!w) return;
		meet(RARE_CASES[11]);
		const { runs } = real.processes[request.process];
		runs.endWaits(request.context, request.state, [w.id], model.now);
		real.inView(request, () => (w.state = 'ended'));
	}
	toString = () => `end(${this.slot}, ${this.pick})`;
}

class Pause extends InRequest {
	constructor(
		slot: number,
		readonly chat: number,
		readonly word: 'pause' | 'forever' | 'resume',
	) {
		super(slot);
	}
	act(model: Model, real: Real, request: Request) {
		const chat = CHATS[this.chat];
		const at = model.now;
		const paused = model.pauses.get(chat);
		if (this.word === 'resume' && paused && paused.until > at) meet(RARE_CASES[9]);
		const until =
			this.word === 'resume'
				? 0
				: this.word === 'forever'
					? Number.MAX_SAFE_INTEGER
					: at + 30 * MINUTE;
		const { pauses } = real.processes[request.process];
		pauses.applyPauseCommand(
			request.context as never,
			request.state,
			JSON.stringify({ chat, pause: this.word !== 'resume', at, until }),
			model.now,
		);
		const apply = () => {
			const known = model.pauses.get(chat);
			const word = { at, until };
			if (!known || at > known.at || (at === known.at && until < known.until))
				model.pauses.set(chat, word);
		};
		real.inView(request, apply);
	}
	toString = () => `${this.word}(${this.slot}, chat ${this.chat})`;
}

class Corrupt implements Cmd {
	check = () => true;
	run(model: Model, real: Real) {
		const state = real.load();
		if (state.waitRows || state.pauseRows) meet(RARE_CASES[7]);
		state.waitRows = `${state.waitRows ?? ''};bad.1 %E0%A4%A x`;
		state.pauseRows = `${state.pauseRows ?? ''};x %ZZ F`;
		real.db = JSON.stringify(state);
		serveEach(real, model.now);
		checkInvariants(model, real);
	}
	toString = () => 'corrupt a row';
}

class Advance implements Cmd {
	constructor(readonly by: number) {}
	check = () => true;
	run(model: Model, real: Real) {
		// Requests do not outlive a minute (n8n fails their save); time passes while every process keeps serving.
		if (this.by > MINUTE) real.loseAll();
		serveEach(real, model.now);
		const later = model.now + this.by;
		const waits = [...model.waits.values()];
		if (waits.some((w) => liveNow(w, model.now) && w.until <= later)) meet(RARE_CASES[4]);
		if (waits.some((w) => w.state === 'resumed' && (w.resumedAt ?? later) + HOUR <= later))
			meet(RARE_CASES[5]);
		model.now += this.by;
		jest.setSystemTime(model.now);
		serveEach(real, model.now);
		checkInvariants(model, real);
	}
	toString = () => `advance ${this.by / MINUTE} min`;
}

class Restart implements Cmd {
	constructor(readonly process: number) {}
	check = () => true;
	run(model: Model, real: Real) {
		// A restart ends the requests in flight: the restarted process's are gone with its memory (what they
		// said was never answered, nothing of them holds); the others' saves fail and their processes write again.
		const restarted = this.process % real.processes.length;
		if (real.requests.some((r) => r?.process === restarted)) meet(RARE_CASES[6]);
		real.requests = real.requests.map((r) => (r?.process === restarted ? undefined : r));
		real.loseAll();
		real.unsaved[restarted] = [];
		real.processes[restarted] = newProcess();
		serveEach(real, model.now);
		checkInvariants(model, real);
	}
	toString = () => `restart ${this.process}`;
}

class HandOver implements Cmd {
	check = () => true;
	run(model: Model, real: Real) {
		// Another trigger becomes the holder: it takes the live waits of the one it replaces (registration.ts
		// takeWaitsOf) and every pause it learned as a member (each trigger keeps its own pauses).
		real.loseAll();
		serveEach(real, model.now);
		const old = real.load();
		const exported = real.processes[0].runs.liveWaits(real.listener(0), old, model.now);
		if (exported.length > 0) meet(RARE_CASES[8]);
		const pauses = real.processes[0].pauses.pausesInStaticData(old);
		real.trigger++;
		real.processes = real.processes.map(newProcess);
		const state: WebhookState = {};
		real.processes[0].runs.recordWaits(real.listener(0), state, exported, model.now);
		for (const [chat, pause] of Object.entries(pauses))
			real.processes[0].pauses.applyPauseCommand(
				real.listener(0) as never,
				state,
				JSON.stringify({ chat, pause: pause.until > 0, at: pause.at, until: pause.until }),
				model.now,
			);
		real.db = JSON.stringify(state);
		// Answers given before: the new holder was not told whom they resumed (residual, conversations-at-scale.md).
		model.answers.clear();
		serveEach(real, model.now);
		checkInvariants(model, real);
	}
	toString = () => 'hand over the registration';
}

const slot = fc.integer({ min: 0, max: 2 });
const chat = fc.integer({ min: 0, max: CHATS.length - 1 });
const open = fc.tuple(slot, fc.nat(3)).map(([s, p]) => new Open(s, p));
const save = slot.map((s) => new Save(s));
const record = fc
	.tuple(slot, chat, fc.constantFrom<'short' | 'long' | 'none'>('short', 'long', 'none'))
	.map(([s, c, l]) => new RecordWait(s, c, l));
const answer = fc.tuple(slot, chat, fc.boolean()).map(([s, c, r]) => new Answer(s, c, r));
const pause = fc
	.tuple(slot, chat, fc.constantFrom<'pause' | 'forever' | 'resume'>('pause', 'forever', 'resume'))
	.map(([s, c, w]) => new Pause(s, c, w));
/**
 * Each entry is drawn as often as the others: requests and answers are listed three times and the
 * world's interference (the clock, a restart, a corrupted row, a hand-over) once, so that a walk
 * has room between disruptions for an answer to be saved and delivered again (with one entry each,
 * 120 walks never redelivered an answer: the "rare cases" test below).
 */
const commands = [
	...[open, open, open, save, save, save],
	...[record, record, answer, answer, answer, pause, pause],
	fc.tuple(slot, fc.nat(20)).map(([s, p]) => new End(s, p)),
	fc
		.constantFrom(1_000, 3 * MINUTE, 11 * MINUTE, 61 * MINUTE, 25 * HOUR)
		.map((by) => new Advance(by)),
	fc.nat(3).map((p) => new Restart(p)),
	fc.constant(new Corrupt()),
	fc.constant(new HandOver()),
];

/** Runs per process count: 40 in the suite, more for a soak (`MODEL_RUNS=1000 npx jest accountStateModel`). */
const RUNS = Number(process.env.MODEL_RUNS ?? 40);
/** A fixed seed (`MODEL_SEED`) replays one set of runs: the mutation gate judges every mutant on the same runs. */
const SEED = process.env.MODEL_SEED === undefined ? {} : { seed: Number(process.env.MODEL_SEED) };

function run(processes: number, cmds: Iterable<Cmd>) {
	jest.setSystemTime(T0);
	const model: Model = {
		now: T0,
		waits: new Map(),
		pauses: new Map(),
		nextExecution: 0,
		nextDelivery: 0,
		answers: new Map(),
	};
	fc.modelRun(() => ({ model, real: new Real(processes) }), cmds);
}

beforeAll(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
afterAll(() => jest.useRealTimers());

test.each([2, 3, 4])(
	'%i processes, runs of up to 300 steps: every invariant after every step',
	(processes) => {
		fc.assert(
			fc.property(fc.commands(commands, { maxCommands: 300, size: 'max' }), (cmds) =>
				run(processes, cmds),
			),
			{ numRuns: RUNS, verbose: 1, ...SEED },
		);
	},
);

/**
 * Cases the property found, kept as they were shrunk: in each, a request that loaded static data before a
 * process wrote its newest rows saves it whole afterwards (as n8n does), and those rows must be written again.
 */
const FOUND: Array<[string, number, Cmd[]]> = [
	[
		'an older revision of another process comes back after this one wrote over it',
		2,
		[
			...[new Open(1, 0), new RecordWait(1, 0, 'short'), new Advance(1_000), new Restart(0)],
			...[new Open(0, 0), new Open(1, 0), new Answer(1, 0, false), new Save(1), new Save(0)],
		],
	],
	[
		'a revision this process already read comes back after it wrote',
		3,
		[
			...[new Open(0, 1), new RecordWait(0, 1, 'short'), new Open(2, 0), new Corrupt()],
			...[new Answer(2, 1, false), new Open(0, 0), new Save(2), new Save(0)],
		],
	],
];
test.each(FOUND)('found: %s', (_name, processes, cmds) => run(processes, cmds));

/**
 * A case where the model was wrong, kept as it was shrunk (seed 203713058, 4 processes, 2026-11-28): it
 * expected an answered wait to be recognised by its answer's redelivery 25 hours later, while the package
 * keeps it an hour after the answer (waitingRuns.ts, KEEP_AFTER_MS). The model now keeps it an hour too
 * (and still checks the redelivery within that hour, after every step); this replays the case.
 */
test('found: an answered wait is swept an hour after its answer, not an hour after its time limit', () => {
	run(4, [
		...[new Open(1, 0), new RecordWait(1, 0, 'none'), new Open(2, 0), new Answer(2, 0, false)],
		...[new Save(2), new Open(0, 0), new RecordWait(0, 0, 'none'), new Advance(25 * HOUR)],
		...[new Open(1, 0), new End(1, 0), new Open(0, 0), new Save(0)],
	]);
});

test('found: an answer redelivered more than an hour after it resumed its run may be a new message', () => {
	// Found 2026-11-29 by random walks once answers were drawn more often (seeds 186805608 and -1113358356):
	// the model recognised a redelivery forever; the package keeps a resumed wait an hour, and after that
	// still knows the redelivery while the row is there (the second walk), or takes it as a new message.
	run(2, [
		...[new Open(1, 0), new RecordWait(1, 2, 'short'), new Answer(1, 2, false), new Save(1)],
		...[new Advance(25 * HOUR), new Open(0, 0), new Answer(0, 2, true)],
	]);
	run(3, [
		...[new Open(2, 0), new RecordWait(2, 2, 'short'), new Open(1, 0), new Answer(1, 2, false)],
		...[new Save(1), new Advance(61 * MINUTE), new Open(2, 0), new RecordWait(2, 2, 'short')],
		new Answer(2, 2, true),
	]);
});

test('found: two requests answer one chat at once; the run takes the answer saved first, and only that one is recognised again', () => {
	// Found 2026-11-29 by a random walk (seed -1215558257): the model let both answers resume the run.
	run(4, [
		...[new Open(2, 0), new RecordWait(2, 2, 'short'), new Open(0, 0), new Answer(0, 2, false)],
		...[new Open(1, 0), new Answer(1, 2, false), new Save(1), new Save(0)],
	]);
});

/**
 * A walk for each rare case the gate's seed does not meet by itself (the test after checks which): run in
 * the suites and under the gate alike, with every invariant after every step, as the random walks are.
 */
const RARE_WALKS: Array<[(typeof RARE_CASES)[number], number, Cmd[]]> = [
	[
		'a save drops a wait another request saved',
		2,
		[new Open(0, 0), new Open(1, 1), new RecordWait(0, 0, 'long'), new Save(0), new Save(1)],
	],
	[
		'two requests answer one chat at once',
		2,
		[
			...[new Open(0, 0), new RecordWait(0, 0, 'long'), new Save(0), new Open(1, 0)],
			...[new Open(2, 1), new Answer(1, 0, false), new Answer(2, 0, false), new Save(1)],
			new Save(2),
		],
	],
	[
		'an answer is redelivered',
		3,
		[
			...[new Open(0, 0), new RecordWait(0, 0, 'long'), new Save(0), new Open(1, 1)],
			...[new Answer(1, 0, false), new Save(1), new Open(2, 2), new Answer(2, 0, true)],
			new Save(2),
		],
	],
	[
		'an answered wait is swept',
		2,
		[
			...[new Open(0, 0), new RecordWait(0, 1, 'none'), new Save(0), new Open(1, 1)],
			...[new Answer(1, 1, false), new Save(1), new Advance(61 * MINUTE), new Open(2, 0)],
			...[new Answer(2, 1, true), new Save(2)],
		],
	],
	[
		'a paused chat is resumed',
		2,
		[
			...[new Open(0, 0), new Pause(0, 2, 'pause'), new Save(0), new Open(1, 1)],
			...[new Pause(1, 2, 'resume'), new Save(1)],
		],
	],
	[
		'a second wait in one chat',
		2,
		[
			...[new Open(0, 0), new RecordWait(0, 0, 'long'), new Save(0), new Open(1, 1)],
			...[new RecordWait(1, 0, 'short'), new Save(1), new Open(2, 0), new Answer(2, 0, false)],
			new Save(2),
		],
	],
];
test.each(RARE_WALKS)('a rare case, walked: %s', (situation, processes, cmds) => {
	met.clear();
	run(processes, cmds);
	expect(met.get(situation)).toBeGreaterThan(0);
});

/** The walks the mutation gate replays: its number of runs and its seed, read from its jest config. */
function gateWalks() {
	const config = readFileSync(join(__dirname, '../../../mutation/jest.config.js'), 'utf8');
	const runs = Number(/MODEL_RUNS \?\?= '(\d+)'/.exec(config)?.[1]);
	const seed = Number(/MODEL_SEED \?\?= '(-?\d+)'/.exec(config)?.[1]);
	if (!(runs > 0) || !Number.isInteger(seed))
		throw new Error('test/mutation/jest.config.js no longer sets MODEL_RUNS and MODEL_SEED');
	return { runs, seed };
}

// Under the gate itself it would judge only the gate's inputs, not the code: it runs in the suites.
(process.env.MODEL_SEED === undefined ? test : test.skip)(
	"the mutation gate's walks (its seed, its number of runs) with the walks above meet every rare case",
	() => {
		const { runs, seed } = gateWalks();
		met.clear();
		for (const processes of [2, 3, 4])
			fc.assert(
				fc.property(fc.commands(commands, { maxCommands: 300, size: 'max' }), (cmds) =>
					run(processes, cmds),
				),
				{ numRuns: runs, seed },
			);
		// How often the gate's walks meet each case: shown with the cases that neither they nor a walk meet.
		const byTheSeed = Object.fromEntries(RARE_CASES.map((c) => [c, met.get(c) ?? 0]));
		const walked = new Set(RARE_WALKS.map(([situation]) => situation));
		const neither = RARE_CASES.filter((c) => !met.has(c) && !walked.has(c));
		expect({ neither, byTheSeed }).toEqual({ neither: [], byTheSeed });
	},
);
