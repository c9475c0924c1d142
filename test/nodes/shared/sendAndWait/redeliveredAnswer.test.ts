/**
 * Issue 41, item 9: an answer redelivered after the process that routed it was killed starts nothing new.
 * Process A takes a contact's answer, saves its offer to the waiting run, resumes the run, and dies before it
 * answers the service; process B (empty memory, the static data A saved) gets the redelivery: the run does not
 * take it (it runs, or has finished), and B answers 200 without passing it to the trigger workflows. On
 * f97c44d nothing of the offer was saved before the resume, and B passed the answer on as a new message.
 * Two processes are two instances of the modules (jest.isolateModules); the waiting run is stood in.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type * as Routing from '../../../../nodes/shared/sendAndWait/replyRouting';
import type * as Runs from '../../../../nodes/shared/sendAndWait/waitingRuns';
import type { PeerAnswer } from '../../../../nodes/shared/sharedWebhook/peerClient';
import { deriveShareKey } from '../../../../nodes/shared/sharedWebhook/signedHandoff';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

/** What the waiting run answers each offer, in order (shared by every process's stand-in). */
const mockOffers: Array<{ url: string; answer: PeerAnswer }> = [];
const mockAnswers: PeerAnswer[] = [];
jest.mock('../../../../nodes/shared/sharedWebhook/peerClient', () => ({
	sendHandoff: jest.fn(async (_c: unknown, _k: string, op: string, url: string) => {
		if (op !== 'resume') return { kind: 'member', body: { recorded: [] } };
		const answer = mockAnswers.shift() ?? { kind: 'gone' };
		mockOffers.push({ url, answer });
		return answer;
	}),
}));

const KEY = deriveShareKey('sim-key-full');
const CHAT = '4917610000001@c.us';
const HOLDER_URL = 'https://n8n.example.com/webhook/abc/webhook';

function processOf(): { routing: typeof Routing; runs: typeof Runs } {
	let loaded!: { routing: typeof Routing; runs: typeof Runs };
	jest.isolateModules(() => {
		loaded = {
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- a second module instance is a second process
			routing: require('../../../../nodes/shared/sendAndWait/replyRouting') as typeof Routing,
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- the same process's record
			runs: require('../../../../nodes/shared/sendAndWait/waitingRuns') as typeof Runs,
		};
	});
	return loaded;
}

/** One request as n8n serves it: static data loaded from the database, observed; the answer captured. */
function request(saved: string) {
	const staticData = JSON.parse(saved) as IDataObject & { __dataChanged?: boolean };
	const state = new Proxy(staticData, {
		set(target, name, value) {
			target.__dataChanged = true;
			return Reflect.set(target, name, value);
		},
		deleteProperty(target, name) {
			target.__dataChanged = true;
			return Reflect.deleteProperty(target, name);
		},
	}) as WebhookState;
	Object.defineProperty(staticData, '__dataChanged', { value: false, writable: true });
	const answered: Array<{ status: number; body: unknown }> = [];
	let status = 200;
	const response = {
		headersSent: false,
		setHeader: () => undefined,
		status(code: number) {
			status = code;
			return response;
		},
		json(body: unknown) {
			answered.push({ status, body });
			response.headersSent = true;
			return response;
		},
		once: () => undefined,
	};
	const context = {
		workflow: { staticData },
		getWorkflow: () => ({ id: 'wf-redelivered' }),
		getNode: () => ({ name: 'Trigger' }),
		getMode: () => 'webhook',
		getResponseObject: () => response,
		getNodeWebhookUrl: () => HOLDER_URL,
		getRequestObject: () => ({ url: '/webhook/abc/webhook' }),
		logger: { warn: () => undefined, error: () => undefined },
	} as unknown as IWebhookFunctions;
	/** n8n's save after webhook() returned: the database now holds what the request wrote. */
	const save = () => {
		const text = JSON.stringify(staticData);
		staticData.__dataChanged = false;
		return text;
	};
	return { context, state, save, answered };
}

/** A wait of execution `executionId` since `since`, recorded by process `a`: the static data n8n saved. */
function savedWait(a: ReturnType<typeof processOf>, executionId: string, since: number): string {
	const first = request(JSON.stringify({ webhookUrl: HOLDER_URL }));
	a.runs.recordWait(first.context, first.state, {
		executionId,
		resumePath: `/webhook-waiting/${executionId}/ask?chat=x&signature=abc`,
		chat: CHAT,
		channelId: 'num_main',
		since,
		until: Date.now() + 3_600_000,
		questionId: null,
	});
	return first.save();
}

const answer = (id: string) => {
	const body = {
		type: 'message.received',
		occurredAt: new Date().toISOString(),
		message: { id, chatId: CHAT, from: '+4917610000001', channelId: 'num_main', text: 'yes' },
	};
	return { body: body as IDataObject, raw: JSON.stringify(body) };
};

/** Until the held answer's continuation ran (it looks for n8n's save every few milliseconds). */
async function settled() {
	await sleep(100);
}

beforeEach(() => {
	mockOffers.length = 0;
	mockAnswers.length = 0;
});

test('killed after the resume, before its answer: the redelivery at another process is acknowledged and starts nothing', async () => {
	const a = processOf();
	const recorded = savedWait(a, '41', Date.now() - 120_000);
	let saved = recorded;

	// Process A: the offer is saved before the run is resumed; the run takes the answer.
	const delivery = answer('wamid.answer-1');
	const atA = request(saved);
	mockAnswers.push({ kind: 'member', body: { consumed: true } });
	const routed = await a.routing.routeReply(
		atA.context,
		atA.state,
		delivery.raw,
		delivery.body,
		'd1',
		KEY,
	);
	expect(routed.kind).toBe('held');
	expect(mockOffers).toHaveLength(0); // nothing offered before n8n saved the offer
	saved = atA.save();
	await settled();
	expect(mockOffers).toHaveLength(1);
	// A is killed here: its answer to the service never leaves, its memory is gone.

	// Process B, from the database alone: the run is running now (n8n answers 409), and the wait is
	// older than a minute. The offer names this delivery: acknowledged, not passed on.
	const b = processOf();
	const atB = request(saved);
	mockAnswers.push({ kind: 'stranger', statusCode: 409 });
	const again = await b.routing.routeReply(
		atB.context,
		atB.state,
		delivery.raw,
		delivery.body,
		'd1',
		KEY,
	);
	expect(again).toEqual({ kind: 'answered', passOn: false });

	// Its finished run answers without the node's proof too: the same.
	const atB2 = request(saved);
	mockAnswers.push({ kind: 'stranger', statusCode: 200 });
	expect(
		await b.routing.routeReply(atB2.context, atB2.state, delivery.raw, delivery.body, 'd1', KEY),
	).toEqual({ kind: 'answered', passOn: false });
});

test('killed after the offer was saved, before the resume: the redelivery resumes the run, once', async () => {
	const a = processOf();
	const recorded = savedWait(a, '42', Date.now() - 120_000);
	let saved = recorded;
	const delivery = answer('wamid.answer-2');
	const atA = request(saved);
	const routed = await a.routing.routeReply(
		atA.context,
		atA.state,
		delivery.raw,
		delivery.body,
		'd2',
		KEY,
	);
	expect(routed.kind).toBe('held');
	saved = JSON.stringify(JSON.parse(JSON.stringify(atA.state))); // saved; A dies before the resume

	const b = processOf();
	const atB = request(saved);
	mockAnswers.push({ kind: 'member', body: { consumed: true } });
	expect(
		await b.routing.routeReply(atB.context, atB.state, delivery.raw, delivery.body, 'd2', KEY),
	).toEqual({ kind: 'answered', passOn: false });
	expect(mockOffers).toHaveLength(1);
});

test("a first delivery's answer goes out only after n8n saved its offer, and is 503 when n8n could not", async () => {
	const a = processOf();
	const recorded = savedWait(a, '43', Date.now() - 120_000);
	const saved = recorded;
	const delivery = answer('wamid.answer-3');
	const atA = request(saved);
	jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick'] });
	try {
		await a.routing.routeReply(atA.context, atA.state, delivery.raw, delivery.body, 'd3', KEY);
		// n8n's save fails (its SQLite writer busy): no save is seen within the wait.
		await jest.advanceTimersByTimeAsync(21_000);
	} finally {
		jest.useRealTimers();
	}
	expect(mockOffers).toHaveLength(0);
	expect(atA.answered).toEqual([
		{ status: 503, body: { error: 'n8n did not save this change in time; send it again shortly' } },
	]);
});

test('a run stopped in its first minute: its refused answer, redelivered to another process, goes to the trigger workflows', async () => {
	const start = Date.now();
	let clock = start;
	jest.spyOn(Date, 'now').mockImplementation(() => clock);
	try {
		const a = processOf();
		const recorded = savedWait(a, '44', start - 5_000);
		let saved = recorded;
		const delivery = answer('wamid.answer-4');

		// Process A: the run was stopped in n8n; n8n answers the offer 409 as it does a run not yet
		// waiting. A answers 503 and saves the refusal (its empty hand-off to its own URL).
		const atA = request(saved);
		mockAnswers.push({ kind: 'stranger', statusCode: 409 });
		expect(
			(await a.routing.routeReply(atA.context, atA.state, delivery.raw, delivery.body, 'd4', KEY))
				.kind,
		).toBe('held');
		atA.save();
		await settled();
		expect(atA.answered).toEqual([
			{ status: 503, body: { error: 'A run waiting for this reply could not take it yet' } },
		]);
		saved = JSON.stringify(JSON.parse(JSON.stringify(atA.state)));

		// Process B, a minute on, from the database alone: the redelivery is offered afresh; the
		// stopped run's 409 is no proof now, the wait ends, and the next delivery is not a reply.
		clock = start + 60_000;
		const b = processOf();
		const atB = request(saved);
		mockAnswers.push({ kind: 'stranger', statusCode: 409 });
		expect(
			(await b.routing.routeReply(atB.context, atB.state, delivery.raw, delivery.body, 'd4', KEY))
				.kind,
		).toBe('held');
		atB.save();
		await settled();
		expect(atB.answered.map((x) => x.status)).toEqual([503]);
		const atB2 = request(JSON.stringify(JSON.parse(JSON.stringify(atB.state))));
		expect(
			await b.routing.routeReply(atB2.context, atB2.state, delivery.raw, delivery.body, 'd4', KEY),
		).toEqual({ kind: 'notAReply', ended: [] });
		expect(mockOffers).toHaveLength(2);
	} finally {
		jest.restoreAllMocks();
	}
});

test('a young run answering 409 to a redelivery offered at once: retried, nothing refused; after the minute, the lost answer', async () => {
	const start = Date.now();
	let clock = start;
	jest.spyOn(Date, 'now').mockImplementation(() => clock);
	try {
		const a = processOf();
		const recorded = savedWait(a, '45', start - 5_000);
		const delivery = answer('wamid.answer-5');
		// A's offer was taken; A died before its answer to the service.
		const atA = request(recorded);
		mockAnswers.push({ kind: 'member', body: { consumed: true } });
		await a.routing.routeReply(atA.context, atA.state, delivery.raw, delivery.body, 'd5', KEY);
		const saved = atA.save();
		await settled();

		// B: the resumed run is still running (409) while the wait is young: retried, no refusal.
		const b = processOf();
		const atB = request(saved);
		mockAnswers.push({ kind: 'stranger', statusCode: 409 });
		expect(
			await b.routing.routeReply(atB.context, atB.state, delivery.raw, delivery.body, 'd5', KEY),
		).toEqual({ kind: 'retryLater' });
		expect(JSON.stringify(atB.state)).toBe(saved);
		clock = start + 60_000;
		const atB2 = request(saved);
		mockAnswers.push({ kind: 'stranger', statusCode: 409 });
		expect(
			await b.routing.routeReply(atB2.context, atB2.state, delivery.raw, delivery.body, 'd5', KEY),
		).toEqual({ kind: 'answered', passOn: false });
	} finally {
		jest.restoreAllMocks();
	}
});
