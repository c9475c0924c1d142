/**
 * The holder's side of Send and Wait for Reply (replyRouting.ts), called directly: the hand-off
 * client (peerClient.ts) is a stand-in that records each `resume` offered and answers what the test
 * says the waiting run answered, so each outcome is named without HTTP: which message is offered at
 * all, to which runs in which order, what the resume carries, and what each answer means for the
 * delivery and the wait. replyRouting.test.ts shows the same over real HTTP.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	answerAfterSave,
	answersAfterSave,
	mayWrite,
} from '../../../../nodes/shared/answerAfterSave';
import type { Answer } from '../../../../nodes/shared/answerRequest';
import { FLUSH_AFTER_MS, routeReply } from '../../../../nodes/shared/sendAndWait/replyRouting';
import { tablesUnsaved } from '../../../../nodes/shared/sharedWebhook/accountTable';
import { formatRegistration } from '../../../../nodes/shared/sharedWebhook/registeredUrl';
import {
	recordWait,
	waitIdOf,
	waitsInStaticData,
	type WaitEntry,
} from '../../../../nodes/shared/sendAndWait/waitingRuns';
import { readHandoffAnswer } from '../../../../nodes/shared/protocol/handoffs';
import { sendHandoff, type PeerAnswer } from '../../../../nodes/shared/sharedWebhook/peerClient';
import { deriveShareKey } from '../../../../nodes/shared/sharedWebhook/signedHandoff';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

jest.mock('../../../../nodes/shared/sharedWebhook/peerClient', () => ({
	sendHandoff: jest.fn(),
}));
const offers = sendHandoff as jest.MockedFunction<typeof sendHandoff>;
// Whether n8n lets the package answer after its save, and that answer: decided per test (false: as in n8n
// versions that do not let the package see its saves).
jest.mock('../../../../nodes/shared/answerAfterSave', () => ({
	...jest.requireActual('../../../../nodes/shared/answerAfterSave'),
	answersAfterSave: jest.fn(() => false),
	mayWrite: jest.fn(() => true),
	answerAfterSave: jest.fn(),
}));
jest.mock('../../../../nodes/shared/sharedWebhook/accountTable', () => ({
	...jest.requireActual('../../../../nodes/shared/sharedWebhook/accountTable'),
	tablesUnsaved: jest.fn(() => false),
}));
const saveSeen = answersAfterSave as jest.MockedFunction<typeof answersAfterSave>;
const writable = mayWrite as jest.MockedFunction<typeof mayWrite>;
const afterSave = answerAfterSave as jest.MockedFunction<typeof answerAfterSave>;
const unsaved = tablesUnsaved as jest.MockedFunction<typeof tablesUnsaved>;

const KEY = deriveShareKey('sim-key-full');
const CHAT = '4917610000001@c.us';
const HOLDER_URL = 'https://n8n.example.com:5678/webhook/abc/webhook';
const NOW = 1_900_000_000_000;

let clock = NOW;
beforeEach(() => {
	clock = NOW;
	jest.spyOn(Date, 'now').mockImplementation(() => clock);
	offers.mockReset();
});
afterEach(() => jest.restoreAllMocks());

let workflows = 0;
function holder() {
	const workflowId = `wf-offers-${++workflows}`;
	const context = {
		getWorkflow: () => ({ id: workflowId }),
		getNode: () => ({ name: 'Trigger' }),
		getMode: () => 'webhook',
		getWebhookResourceUrl: () => HOLDER_URL,
	} as unknown as IWebhookFunctions;
	const state: WebhookState = { webhookUrl: HOLDER_URL };
	return { context, state };
}

let executions = 500;
function waitIn(h: ReturnType<typeof holder>, fields: Partial<WaitEntry> = {}): WaitEntry {
	const executionId = String(executions++);
	const wait: WaitEntry = {
		executionId,
		resumePath: `/webhook-waiting/${executionId}/node-1?signature=abc`,
		chat: CHAT,
		channelId: 'num_main',
		since: NOW - 1_000,
		until: NOW + 3_600_000,
		questionId: null,
		...fields,
	};
	expect(recordWait(h.context, h.state, wait, NOW)).toEqual({ recorded: true });
	return wait;
}

function reply(message: IDataObject = {}, type = 'message.received') {
	const body: IDataObject = {
		type,
		occurredAt: new Date(NOW).toISOString(),
		message: {
			id: 'msg_9',
			chatId: CHAT,
			from: '4917610000001',
			channelId: 'num_main',
			text: '1',
			...message,
		},
	};
	return { body, rawBody: JSON.stringify(body, null, 1) };
}

/**
 * The answers the waiting runs give, in the order they are offered: a member's body as the real
 * client hands it on, read by the resume answer's schema (none when it does not match).
 */
function runsAnswer(...answers: PeerAnswer[]) {
	for (const answer of answers)
		offers.mockResolvedValueOnce(
			answer.kind === 'member'
				? { kind: 'member', body: readHandoffAnswer('resume', answer.body) }
				: answer,
		);
}

const took = (extra: IDataObject = {}): PeerAnswer => ({
	kind: 'member',
	body: { consumed: true, ...extra },
});
const declined: PeerAnswer = { kind: 'member', body: { consumed: false } };
/** The outcome, with the dropped waits named by their execution ids. */
async function outcome(
	h: ReturnType<typeof holder>,
	r: ReturnType<typeof reply>,
	deliveryId: string,
) {
	const result = await routeReply(h.context, h.state, r.rawBody, r.body, deliveryId, KEY);
	return result.kind === 'notAReply'
		? { ...result, ended: result.ended.map((w) => w.executionId) }
		: result;
}
const stored = (h: ReturnType<typeof holder>, wait: WaitEntry) =>
	waitsInStaticData(h.state)[waitIdOf(wait)];

describe('what is offered at all', () => {
	test('only a message.received, to a holder that has its URL and K, with a message', async () => {
		const h = holder();
		waitIn(h);
		const notAReply = { kind: 'notAReply', ended: [] };
		const sent = reply({}, 'message.sent');
		expect(await routeReply(h.context, h.state, sent.rawBody, sent.body, 'd1', KEY)).toEqual(
			notAReply,
		);
		const r = reply();
		expect(
			await routeReply(
				h.context,
				{ ...h.state, webhookUrl: undefined },
				r.rawBody,
				r.body,
				'd1',
				KEY,
			),
		).toEqual(notAReply);
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', undefined)).toEqual(
			notAReply,
		);
		for (const message of [undefined, 'text', null]) {
			const body = { type: 'message.received', message } as IDataObject;
			expect(await routeReply(h.context, h.state, JSON.stringify(body), body, 'd1', KEY)).toEqual(
				notAReply,
			);
		}
		expect(offers).not.toHaveBeenCalled();
	});

	test('a chat with no wait is not a reply, and nothing is sent', async () => {
		const h = holder();
		waitIn(h, { chat: '4917610000002@c.us' });
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'notAReply',
			ended: [],
		});
		expect(offers).not.toHaveBeenCalled();
	});
});

describe('the resume', () => {
	test("signed with K, to the run's resume path on the holder's origin, carrying the event byte for byte as parsed once", async () => {
		const h = holder();
		const wait = waitIn(h, { questionId: 'q-1', asked: 2 });
		runsAnswer(took());
		const r = reply({ text: 'yes' });
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		expect(offers).toHaveBeenCalledTimes(1);
		const [context, key, op, url, body] = offers.mock.calls[0];
		expect([context, key, op]).toEqual([h.context, KEY, 'resume']);
		expect(url).toBe(`https://n8n.example.com:5678${wait.resumePath}`);
		expect(JSON.parse(body)).toEqual({ asked: 2, questionId: 'q-1', event: JSON.parse(r.rawBody) });
		expect(Object.keys(JSON.parse(body))).toEqual(['asked', 'questionId', 'event']);
	});

	test('a wait that never asked again and has no question id says so: 0 and null', async () => {
		const h = holder();
		waitIn(h);
		runsAnswer(took());
		const r = reply();
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		expect(JSON.parse(offers.mock.calls[0][4])).toMatchObject({ asked: 0, questionId: null });
	});
});

describe('what each answer means', () => {
	test('taken: answered; the wait records the delivery that resumed it and when', async () => {
		const h = holder();
		const wait = waitIn(h);
		runsAnswer(took());
		clock = NOW + 5_000;
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'answered',
			passOn: false,
		});
		expect(stored(h, wait)).toMatchObject({ resumedBy: 'd1', resumedAt: NOW + 5_000 });
	});

	test('taken by a wait that passes the reply on: the triggers get it too', async () => {
		const h = holder();
		waitIn(h, { passOn: true });
		runsAnswer(took());
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'answered',
			passOn: true,
		});
	});

	test('an unclear answer to an approval: the run asked again, keeps waiting, and counts the question', async () => {
		const h = holder();
		const wait = waitIn(h, { asked: 1, passOn: true });
		runsAnswer(took({ reAsked: true }));
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'answered',
			passOn: true,
		});
		const kept = stored(h, wait);
		expect(kept.asked).toBe(2);
		expect(kept.resumedBy).toBeUndefined();
		// Still waiting: the next message is offered to it again, and says it was asked twice.
		runsAnswer(took());
		const next = reply({ id: 'msg_10' });
		await routeReply(h.context, h.state, next.rawBody, next.body, 'd2', KEY);
		expect(offers).toHaveBeenCalledTimes(2);
		expect(JSON.parse(offers.mock.calls[1][4]).asked).toBe(2);
	});

	test('re-asked without a first ask recorded counts from 0; a wait that does not pass it on keeps it', async () => {
		const h = holder();
		const wait = waitIn(h);
		runsAnswer(took({ reAsked: true }));
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'answered',
			passOn: false,
		});
		expect(stored(h, wait).asked).toBe(1);
	});

	test('only a consumed true counts: "reAsked" alone, or a truthy non-boolean, is a decline, and a declined wait ends', async () => {
		for (const body of [
			{ reAsked: true },
			{ consumed: 'true' },
			{ consumed: 1, reAsked: true },
			null,
		]) {
			const h = holder();
			const wait = waitIn(h);
			runsAnswer({ kind: 'member', body });
			const r = reply();
			expect(await outcome(h, r, 'd1')).toEqual({
				kind: 'notAReply',
				ended: [wait.executionId],
			});
			// The run proved it waits, but not on this question (an earlier one of a run that asks again).
			expect(stored(h, wait).until).toBe(NOW);
			expect(stored(h, wait).resumedBy).toBeUndefined();
		}
	});

	test('a run that declines: its wait ends and the next is offered, oldest first; all decline: not a reply', async () => {
		const h = holder();
		const older = waitIn(h, { since: NOW - 9_000 });
		const newer = waitIn(h, { since: NOW - 2_000 });
		runsAnswer(declined, declined);
		const r = reply();
		expect(await outcome(h, r, 'd1')).toEqual({
			kind: 'notAReply',
			ended: [older.executionId, newer.executionId],
		});
		expect(offers.mock.calls.map((call) => call[3])).toEqual([
			`https://n8n.example.com:5678${older.resumePath}`,
			`https://n8n.example.com:5678${newer.resumePath}`,
		]);
	});

	test('the first that takes it ends the offers', async () => {
		const h = holder();
		waitIn(h, { since: NOW - 9_000 });
		waitIn(h, { since: NOW - 2_000 });
		runsAnswer(took());
		const r = reply();
		expect((await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).kind).toBe(
			'answered',
		);
		expect(offers).toHaveBeenCalledTimes(1);
	});

	test('n8n cannot be reached: retry later, and the wait stays as it was', async () => {
		const h = holder();
		const wait = waitIn(h);
		runsAnswer({ kind: 'unavailable', statusCode: 503 });
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'retryLater',
		});
		expect(stored(h, wait)).toEqual({ ...wait, id: waitIdOf(wait) });
	});

	test('no proof (gone, or 200 without it): the wait is ended and dropped, and the next is offered', async () => {
		const h = holder();
		const gone = waitIn(h, { since: NOW - 9_000 });
		const finished = waitIn(h, { since: NOW - 5_000 });
		const next = waitIn(h, { since: NOW - 2_000 });
		runsAnswer({ kind: 'gone' }, { kind: 'stranger', statusCode: 200 }, declined);
		clock = NOW + 1_000;
		const r = reply();
		expect(await outcome(h, r, 'd1')).toEqual({
			kind: 'notAReply',
			ended: [gone.executionId, finished.executionId, next.executionId],
		});
		expect(stored(h, gone).until).toBe(NOW + 1_000);
		expect(stored(h, finished).until).toBe(NOW + 1_000);
		expect(offers).toHaveBeenCalledTimes(3);
	});

	test('a redelivery of the reply that resumed a run: answered again, whatever the run answers now', async () => {
		const h = holder();
		const wait = waitIn(h, { passOn: true });
		runsAnswer(took());
		const r = reply();
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		runsAnswer({ kind: 'stranger', statusCode: 409 });
		clock = NOW + 120_000;
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'answered',
			passOn: true,
		});
		// Kept short once resumed: what recognises this delivery, nothing to offer again.
		expect(stored(h, wait)).toMatchObject({ resumedBy: 'd1', until: NOW });
	});

	test('a redelivery to a wait that does not pass replies on: answered, not passed on', async () => {
		const h = holder();
		waitIn(h);
		runsAnswer(took(), { kind: 'gone' });
		const r = reply();
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'answered',
			passOn: false,
		});
	});

	test('409 from a wait younger than a minute: not waiting yet, retry later; from the minute on, it ended', async () => {
		const h = holder();
		const young = waitIn(h, { since: NOW - 59_999 });
		runsAnswer({ kind: 'stranger', statusCode: 409 });
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'retryLater',
		});
		expect(stored(h, young).until).toBe(young.until);

		const h2 = holder();
		const old = waitIn(h2, { since: NOW - 60_000 });
		runsAnswer({ kind: 'stranger', statusCode: 409 });
		expect(await outcome(h2, r, 'd1')).toEqual({
			kind: 'notAReply',
			ended: [old.executionId],
		});
	});

	test('a young wait whose run answers anything but 409 without proof has ended', async () => {
		const h = holder();
		const wait = waitIn(h, { since: NOW - 1_000 });
		runsAnswer({ kind: 'stranger', statusCode: 410 });
		const r = reply();
		expect(await outcome(h, r, 'd1')).toEqual({
			kind: 'notAReply',
			ended: [wait.executionId],
		});
	});
});

describe('the edges', () => {
	test('no wait for the chat: not a reply before the delivery is read (a body that is not JSON is not parsed)', async () => {
		const h = holder();
		const r = reply();
		expect(await routeReply(h.context, h.state, 'not json', r.body, 'd1', KEY)).toEqual({
			kind: 'notAReply',
			ended: [],
		});
	});

	test.each([
		['another host', 'https://elsewhere.example.com/webhook-waiting/1/node-1'],
		['a path that does not start with /', 'webhook-waiting/1/node-1'],
		['a protocol-relative path', '//elsewhere.example.com/webhook-waiting/1/node-1'],
	])(
		'a stored resume path naming %s is never offered: the wait ends',
		async (_what, resumePath) => {
			const h = holder();
			const wait = waitIn(h, { resumePath });
			const r = reply();
			expect(await outcome(h, r, 'd1')).toEqual({ kind: 'notAReply', ended: [wait.executionId] });
			expect(offers).not.toHaveBeenCalled();
		},
	);

	test('a redelivery of an offer the run no longer takes: it resumed on it before, answered and recorded', async () => {
		const h = holder();
		const wait = waitIn(h, { offeredBy: 'd1', offeredAt: NOW - 500 });
		runsAnswer({ kind: 'gone' });
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'answered',
			passOn: false,
		});
		expect(stored(h, wait)).toMatchObject({ resumedBy: 'd1' });
		// Another delivery to that wait, answered the same: it ended, and is no reply.
		const h2 = holder();
		const other = waitIn(h2, { offeredBy: 'd1', offeredAt: NOW - 500 });
		runsAnswer({ kind: 'gone' });
		expect(await outcome(h2, r, 'd2')).toEqual({ kind: 'notAReply', ended: [other.executionId] });
	});

	test("a taken answer ends the wait at the account's other triggers; a question asked again does not", async () => {
		const h = holder();
		h.state.webhookUrl = formatRegistration(HOLDER_URL, {
			members: ['/webhook/member-1/webhook'],
			testMembers: [],
		});
		const asked = waitIn(h, { chat: '4917610000003@c.us' });
		runsAnswer(took({ reAsked: true }));
		const r3 = reply({ chatId: '4917610000003@c.us', from: '4917610000003' });
		await routeReply(h.context, h.state, r3.rawBody, r3.body, 'd0', KEY);
		await sleep(0); // the ends go out to the members after the answer
		expect(offers).toHaveBeenCalledTimes(1);
		expect(stored(h, asked).asked).toBe(1);

		const wait = waitIn(h);
		runsAnswer(took(), { kind: 'member', body: {} });
		const r = reply();
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		await sleep(0); // the ends go out to the members after the answer
		expect(offers).toHaveBeenCalledTimes(3);
		const [, key, op, url, body] = offers.mock.calls[2];
		expect([key, op, url]).toEqual([
			KEY,
			'wait',
			'https://n8n.example.com:5678/webhook/member-1/webhook',
		]);
		expect(JSON.parse(body)).toEqual({ waits: [], confirm: [], ends: [waitIdOf(wait)] });
	});
});

describe('a first delivery, where n8n lets the package answer after its save', () => {
	/** What runs once n8n saved the request (answerAfterSave's `then`), in order. */
	let afterSaves: Array<() => Promise<Answer> | Answer>;
	beforeEach(() => {
		afterSaves = [];
		saveSeen.mockReturnValue(true);
		writable.mockReturnValue(true);
		unsaved.mockReturnValue(false);
		afterSave.mockImplementation((_context, then) => {
			afterSaves.push(then);
			return { noWebhookResponse: true };
		});
	});
	afterEach(() => saveSeen.mockReturnValue(false));

	const ANSWERED = { status: 200, body: { received: true, answered: 'a waiting run' } };
	const RETRY = {
		status: 503,
		body: { error: 'A run waiting for this reply could not take it yet' },
		headers: { 'Retry-After': '5' },
	};

	test('the offer is written before it is made, and made only once n8n saved it; taken: answered 200', async () => {
		const h = holder();
		const wait = waitIn(h);
		clock = NOW + 3_000;
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'held',
			response: { noWebhookResponse: true },
		});
		expect(stored(h, wait)).toMatchObject({ offeredBy: 'd1', offeredAt: NOW + 3_000 });
		expect(stored(h, wait).resumedBy).toBeUndefined();
		expect(offers).not.toHaveBeenCalled();
		runsAnswer(took());
		clock = NOW + 4_000;
		expect(await afterSaves[0]()).toEqual(ANSWERED);
		expect(offers).toHaveBeenCalledTimes(1);
		expect(offers.mock.calls[0][2]).toBe('resume');
		expect(stored(h, wait)).toMatchObject({ resumedBy: 'd1', resumedAt: NOW + 4_000 });
	});

	test('asked again: answered 200, the wait keeps waiting and counts the question', async () => {
		const h = holder();
		const wait = waitIn(h, { asked: 1 });
		const r = reply();
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		runsAnswer(took({ reAsked: true }));
		expect(await afterSaves[0]()).toEqual(ANSWERED);
		expect(stored(h, wait)).toMatchObject({ asked: 2 });
		expect(stored(h, wait).resumedBy).toBeUndefined();
	});

	test('n8n cannot be reached: 503 Retry-After, the wait stays and nothing else is sent', async () => {
		const h = holder();
		const wait = waitIn(h);
		const r = reply();
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		runsAnswer({ kind: 'unavailable', statusCode: 503 });
		expect(await afterSaves[0]()).toEqual(RETRY);
		expect(stored(h, wait).until).toBe(wait.until);
		expect(stored(h, wait).refusedBy).toBeUndefined();
		expect(offers).toHaveBeenCalledTimes(1);
	});

	const young409: PeerAnswer = { kind: 'stranger', statusCode: 409 };
	const emptyAnswer: PeerAnswer = { kind: 'member', body: {} };

	test('a young wait answered 409: 503, the wait stays, and the refusal of this very offer is saved by a request of its own', async () => {
		const h = holder();
		const wait = waitIn(h);
		clock = NOW + 1_000;
		const r = reply();
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		runsAnswer(young409, emptyAnswer);
		clock = NOW + 1_500;
		expect(await afterSaves[0]()).toEqual(RETRY);
		expect(stored(h, wait)).toMatchObject({
			until: wait.until,
			offeredBy: 'd1',
			offeredAt: NOW + 1_000,
			refusedBy: 'd1',
			refusedAt: NOW + 1_000,
		});
		expect(offers).toHaveBeenCalledTimes(2);
		const [, key, op, url, body] = offers.mock.calls[1];
		expect([key, op, url]).toEqual([KEY, 'wait', HOLDER_URL]);
		expect(JSON.parse(body)).toEqual({ waits: [], confirm: [], ends: [] });
	});

	test('a run stopped while young: the redelivery of its refused offer is offered afresh, ends the wait, and the next goes to the triggers', async () => {
		const h = holder();
		const wait = waitIn(h);
		const r = reply();
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		runsAnswer(young409, emptyAnswer);
		expect(await afterSaves[0]()).toEqual(RETRY);
		// The redelivery, 5 s on: held again (not taken as the lost answer of its first offer).
		clock = NOW + 5_000;
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'held',
			response: { noWebhookResponse: true },
		});
		expect(stored(h, wait)).toMatchObject({ offeredBy: 'd1', offeredAt: NOW + 5_000 });
		// A minute after the wait, the stopped run's 409 is no proof: the wait ends.
		clock = NOW + 60_000;
		runsAnswer({ kind: 'stranger', statusCode: 409 }, emptyAnswer);
		expect(await afterSaves[1]()).toEqual(RETRY);
		expect(stored(h, wait).until).toBe(NOW + 60_000);
		expect(stored(h, wait).resumedBy).toBeUndefined();
		// The third delivery goes to the trigger workflows; nothing more is offered.
		expect(await outcome(h, r, 'd1')).toEqual({ kind: 'notAReply', ended: [] });
		expect(offers).toHaveBeenCalledTimes(4);
	});

	test('refused, refused again, then taken: answered 200 and the wait records the delivery', async () => {
		const h = holder();
		const wait = waitIn(h);
		const r = reply();
		for (const [index, at] of [NOW, NOW + 5_000].entries()) {
			clock = at;
			await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
			runsAnswer(young409, emptyAnswer);
			expect(await afterSaves[index]()).toEqual(RETRY);
			expect(stored(h, wait)).toMatchObject({ refusedBy: 'd1', refusedAt: at });
		}
		clock = NOW + 10_000;
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		runsAnswer(took());
		expect(await afterSaves[2]()).toEqual(ANSWERED);
		expect(stored(h, wait)).toMatchObject({ resumedBy: 'd1', resumedAt: NOW + 10_000 });
	});

	test('a fresh offer is later than the refused one even on a process whose clock is behind', async () => {
		const h = holder();
		const wait = waitIn(h);
		clock = NOW + 2_000;
		const r = reply();
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		runsAnswer(young409, emptyAnswer);
		await afterSaves[0]();
		clock = NOW + 1_990;
		await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
		expect(stored(h, wait)).toMatchObject({
			offeredAt: NOW + 2_001,
			refusedAt: NOW + 2_000,
		});
		// A crash after this offer resumed the run: its redelivery is the lost answer, not passed on.
		runsAnswer({ kind: 'stranger', statusCode: 200 });
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'answered',
			passOn: false,
		});
	});

	test.each([
		[
			'of another delivery',
			{ offeredBy: 'd1', offeredAt: NOW - 500, refusedBy: 'd2', refusedAt: NOW - 500 },
		],
		[
			'of an earlier offer',
			{ offeredBy: 'd1', offeredAt: NOW - 500, refusedBy: 'd1', refusedAt: NOW - 900 },
		],
	])(
		'a refusal %s leaves a redelivery of the offer a redelivery: offered at once, and gone is its lost answer',
		async (_what, fields) => {
			const h = holder();
			const wait = waitIn(h, fields);
			runsAnswer({ kind: 'gone' });
			const r = reply();
			expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
				kind: 'answered',
				passOn: false,
			});
			expect(afterSaves).toHaveLength(0);
			expect(stored(h, wait)).toMatchObject({ resumedBy: 'd1' });
		},
	);

	test('a redelivery offered at once that meets a young 409 writes no refusal: that 409 may be from the run its first offer resumed', async () => {
		const h = holder();
		const wait = waitIn(h, { offeredBy: 'd1', offeredAt: NOW - 500 });
		runsAnswer(young409);
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'retryLater',
		});
		expect(stored(h, wait).refusedBy).toBeUndefined();
		expect(offers).toHaveBeenCalledTimes(1);
	});

	test.each([
		['declined', declined],
		['noProof', { kind: 'stranger', statusCode: 200 } as PeerAnswer],
		['gone', { kind: 'gone' } as PeerAnswer],
	])(
		'%s: the wait ends, saved by a request of its own to the trigger, and 503 sends the delivery on',
		async (_what, answer) => {
			const h = holder();
			const wait = waitIn(h);
			const r = reply();
			await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
			runsAnswer(answer, { kind: 'member', body: {} });
			clock = NOW + 2_000;
			expect(await afterSaves[0]()).toEqual(RETRY);
			expect(stored(h, wait).until).toBe(NOW + 2_000);
			expect(offers).toHaveBeenCalledTimes(2);
			const [, key, op, url, body] = offers.mock.calls[1];
			expect([key, op, url]).toEqual([KEY, 'wait', HOLDER_URL]);
			expect(JSON.parse(body)).toEqual({ waits: [], confirm: [], ends: [waitIdOf(wait)] });
		},
	);

	test('with the process full of requests waiting for their save: retry later, before anything is written', async () => {
		const h = holder();
		const wait = waitIn(h);
		writable.mockReturnValue(false);
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'retryLater',
		});
		expect(stored(h, wait).offeredBy).toBeUndefined();
		expect(afterSaves).toHaveLength(0);
	});

	test('a wait that passes the reply on, or a redelivery of the offer, is offered at once', async () => {
		const h = holder();
		waitIn(h, { passOn: true });
		runsAnswer(took());
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'answered',
			passOn: true,
		});
		const h2 = holder();
		const offered = waitIn(h2);
		await routeReply(h2.context, h2.state, r.rawBody, r.body, 'd2', KEY);
		runsAnswer(took());
		expect(await routeReply(h2.context, h2.state, r.rawBody, r.body, 'd2', KEY)).toEqual({
			kind: 'answered',
			passOn: false,
		});
		expect(stored(h2, offered)).toMatchObject({ resumedBy: 'd2' });
		expect(afterSaves).toHaveLength(1);
	});

	test('the mark of a taken answer, left unsaved, is saved by an empty hand-off to the trigger after FLUSH_AFTER_MS', async () => {
		jest.useFakeTimers({ doNotFake: ['Date'] });
		try {
			const h = holder();
			waitIn(h);
			const r = reply();
			await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY);
			runsAnswer(took(), { kind: 'member', body: {} });
			unsaved.mockReturnValue(true);
			await afterSaves[0]();
			await jest.advanceTimersByTimeAsync(FLUSH_AFTER_MS - 1);
			expect(offers).toHaveBeenCalledTimes(1);
			await jest.advanceTimersByTimeAsync(1);
			expect(offers).toHaveBeenCalledTimes(2);
			expect(offers.mock.calls[1].slice(2, 4)).toEqual(['wait', HOLDER_URL]);
			expect(JSON.parse(offers.mock.calls[1][4])).toEqual({ waits: [], confirm: [], ends: [] });
			// Asked about the mark's own time: a request of the process after it carries it.
			expect(unsaved).toHaveBeenLastCalledWith(h.context, NOW);
			// Saved meanwhile by another request: nothing more is sent.
			const h2 = holder();
			waitIn(h2);
			await routeReply(h2.context, h2.state, r.rawBody, r.body, 'd3', KEY);
			runsAnswer(took());
			unsaved.mockReturnValue(false);
			expect(await afterSaves[1]()).toEqual(ANSWERED);
			await jest.advanceTimersByTimeAsync(2 * FLUSH_AFTER_MS);
			expect(offers).toHaveBeenCalledTimes(3);
		} finally {
			jest.useRealTimers();
		}
	});
});
