/**
 * The holder's side of Send and Wait for Reply (replyRouting.ts), called directly: the hand-off
 * client (peerClient.ts) is a stand-in that records each `resume` offered and answers what the test
 * says the waiting run answered, so each outcome is named without HTTP: which message is offered at
 * all, to which runs in which order, what the resume carries, and what each answer means for the
 * delivery and the wait. replyRouting.test.ts shows the same over real HTTP.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { routeReply } from '../../../../nodes/shared/sendAndWait/replyRouting';
import {
	recordWait,
	waitIdOf,
	waitsInStaticData,
	type WaitEntry,
} from '../../../../nodes/shared/sendAndWait/waitingRuns';
import { sendHandoff, type PeerAnswer } from '../../../../nodes/shared/sharedWebhook/peerClient';
import { deriveShareKey } from '../../../../nodes/shared/sharedWebhook/signedHandoff';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

jest.mock('../../../../nodes/shared/sharedWebhook/peerClient', () => ({
	sendHandoff: jest.fn(),
}));
const offers = sendHandoff as jest.MockedFunction<typeof sendHandoff>;

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

/** The answers the waiting runs give, in the order they are offered. */
function runsAnswer(...answers: PeerAnswer[]) {
	for (const answer of answers) offers.mockResolvedValueOnce(answer);
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
	return result.kind === 'not a reply'
		? { ...result, ended: result.ended.map((w) => w.executionId) }
		: result;
}
const stored = (h: ReturnType<typeof holder>, wait: WaitEntry) =>
	waitsInStaticData(h.state)[waitIdOf(wait)];

describe('what is offered at all', () => {
	test('only a message.received, to a holder that has its URL and K, with a message', async () => {
		const h = holder();
		waitIn(h);
		const notAReply = { kind: 'not a reply', ended: [] };
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
			kind: 'not a reply',
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
			kind: 'answered a waiting run',
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
			kind: 'answered a waiting run',
			passOn: true,
		});
	});

	test('an unclear answer to an approval: the run asked again, keeps waiting, and counts the question', async () => {
		const h = holder();
		const wait = waitIn(h, { asked: 1, passOn: true });
		runsAnswer(took({ reAsked: true }));
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'answered a waiting run',
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
			kind: 'answered a waiting run',
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
				kind: 'not a reply',
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
			kind: 'not a reply',
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
			'answered a waiting run',
		);
		expect(offers).toHaveBeenCalledTimes(1);
	});

	test('n8n cannot be reached: retry later, and the wait stays as it was', async () => {
		const h = holder();
		const wait = waitIn(h);
		runsAnswer({ kind: 'unavailable', statusCode: 503 });
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'retry later',
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
			kind: 'not a reply',
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
			kind: 'answered a waiting run',
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
			kind: 'answered a waiting run',
			passOn: false,
		});
	});

	test('409 from a wait younger than a minute: not waiting yet, retry later; from the minute on, it ended', async () => {
		const h = holder();
		const young = waitIn(h, { since: NOW - 59_999 });
		runsAnswer({ kind: 'stranger', statusCode: 409 });
		const r = reply();
		expect(await routeReply(h.context, h.state, r.rawBody, r.body, 'd1', KEY)).toEqual({
			kind: 'retry later',
		});
		expect(stored(h, young).until).toBe(young.until);

		const h2 = holder();
		const old = waitIn(h2, { since: NOW - 60_000 });
		runsAnswer({ kind: 'stranger', statusCode: 409 });
		expect(await outcome(h2, r, 'd1')).toEqual({
			kind: 'not a reply',
			ended: [old.executionId],
		});
	});

	test('a young wait whose run answers anything but 409 without proof has ended', async () => {
		const h = holder();
		const wait = waitIn(h, { since: NOW - 1_000 });
		runsAnswer({ kind: 'stranger', statusCode: 410 });
		const r = reply();
		expect(await outcome(h, r, 'd1')).toEqual({
			kind: 'not a reply',
			ended: [wait.executionId],
		});
	});
});
