/**
 * "Combine Messages Within (Seconds)": bursts of one chat start one execution. Deliveries come
 * over real HTTP from the relay simulator to the trigger's webhook() (n8n-core's WebhookContext);
 * the stand-in for n8n's webhook server starts the execution (records the run) before it answers,
 * as n8n 2.41 does for `onReceived`.
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { burstLimits, heldMessages } from '../../../nodes/MessagingRelayTrigger/burstMerge';
import { sample } from '../../fixtures/events';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { TriggerHarness } from '../../support/harness/triggerRuntime';
import { deliver } from '../../support/deliver';

let sim: RelaySimulator;
let harness: TriggerHarness;
const defaults = { ...burstLimits };
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
afterEach(async () => {
	Object.assign(burstLimits, defaults);
	await harness?.stop();
});

const wait = sleep;

async function published(seconds: number, events = ['message.received', 'message.sent']) {
	sim.reset();
	harness = await TriggerHarness.start(sim, { events, options: { combineWithinSeconds: seconds } });
	await harness.activate();
	return harness;
}

let counter = 0;
function message(
	text: string,
	{
		chat = '4917612345678@c.us',
		channel = 'num_main',
		id,
		timestamp,
	}: { chat?: string; channel?: string; id?: string; timestamp?: string } = {},
) {
	const event = sample('message.received');
	counter += 1;
	Object.assign(event.message, {
		id: id ?? `wamid.burst-${counter}`,
		chatId: chat,
		channelId: channel,
		text,
		timestamp: timestamp ?? new Date(Date.UTC(2026, 10, 20, 9, 30, counter)).toISOString(),
	});
	return event;
}

interface Answer {
	status: number;
	body: IDataObject;
	at: number;
}

async function answerOf(event: unknown): Promise<Answer> {
	const result = await deliver(sim, event);
	return { status: result.status, body: result.json, at: Date.now() };
}

describe('one execution per burst', () => {
	test("three messages within the quiet time: one item with all texts in order, the first message's ids, every delivery answered after the start", async () => {
		await published(1);
		const first = message('hi');
		const answers: Array<Promise<Answer>> = [];
		answers.push(answerOf(first));
		await wait(300);
		answers.push(answerOf(message('I need a table')));
		await wait(300);
		answers.push(answerOf(message('for 4, tonight')));
		await wait(200);
		expect(harness.runs).toHaveLength(0); // still quiet-timing
		const settled = await Promise.all(answers);

		expect(harness.runs).toHaveLength(1);
		const item = harness.runs[0].events[0];
		expect(item).toMatchObject({
			type: 'message.received',
			messageId: first.message.id,
			chatId: '4917612345678@c.us',
			channelId: 'num_main',
			sessionId: 'num_main:4917612345678@c.us',
			text: 'hi\nI need a table\nfor 4, tonight',
			chatInput: 'hi\nI need a table\nfor 4, tonight',
			texts: ['hi', 'I need a table', 'for 4, tonight'],
			messageCount: 3,
			event: first,
		});
		expect(item.messageIds).toHaveLength(3);
		expect(item.events).toHaveLength(3);
		// Nobody is acknowledged before the execution carrying the message was started.
		for (const answer of settled) {
			expect(answer.status).toBe(200);
			expect(answer.at).toBeGreaterThanOrEqual(harness.runs[0].startedAt);
		}
		expect(settled[0].body).toEqual({ received: true });
		expect(settled[1].body).toEqual({ received: true, combinedInto: first.message.id });
		expect(heldMessages()).toBe(0);
	});

	test('the quiet time restarts with each message; a message after it starts a new execution', async () => {
		await published(1);
		const t0 = Date.now();
		const a = answerOf(message('one'));
		await wait(700);
		const b = answerOf(message('two')); // 0.7 s later: still in the burst
		await Promise.all([a, b]);
		await answerOf(message('three'));
		expect(harness.runs.map((run) => run.events[0].texts)).toEqual([['one', 'two'], ['three']]);
		// Released 1 s after the last message (about 1.7 s), not 1 s after the first.
		expect(harness.runs[0].startedAt - t0).toBeGreaterThanOrEqual(1600);
	});

	test('different chats, and one chat on two numbers, never merge', async () => {
		await published(1);
		await Promise.all([
			answerOf(message('A1', { chat: 'chat-a@c.us' })),
			answerOf(message('B1', { chat: 'chat-b@c.us' })),
			answerOf(message('A2', { chat: 'chat-a@c.us' })),
			answerOf(message('A on sales', { chat: 'chat-a@c.us', channel: 'num_sales' })),
			answerOf(message('B2', { chat: 'chat-b@c.us' })),
		]);
		const byChat = Object.fromEntries(
			harness.runs.map((run) => [run.events[0].sessionId, run.events[0].texts]),
		);
		expect(harness.runs).toHaveLength(3);
		expect(byChat).toEqual({
			'num_main:chat-a@c.us': ['A1', 'A2'],
			'num_main:chat-b@c.us': ['B1', 'B2'],
			'num_sales:chat-a@c.us': ['A on sales'],
		});
	});

	test("texts are ordered by the messages' timestamps, not by arrival", async () => {
		await published(1);
		await Promise.all([
			answerOf(message('second', { timestamp: '2026-11-20T09:30:02.000Z' })),
			answerOf(message('first', { timestamp: '2026-11-20T09:30:01.000Z' })),
			answerOf(message('third', { timestamp: '2026-11-20T09:30:03.000Z' })),
		]);
		expect(harness.runs[0].events[0].texts).toEqual(['first', 'second', 'third']);
		expect(harness.runs[0].events[0].chatInput).toBe('first\nsecond\nthird');
	});

	test('other event types are never held', async () => {
		await published(2);
		const held = answerOf(message('hi'));
		await wait(100);
		const sent = await answerOf(sample('message.sent'));
		expect(sent.status).toBe(200);
		expect(harness.runs.map((run) => run.events[0].type)).toEqual(['message.sent']);
		await held;
		expect(harness.runs.map((run) => run.events[0].type)).toEqual([
			'message.sent',
			'message.received',
		]);
	});

	test('off (0): one execution per message, no extra fields', async () => {
		await published(0);
		await Promise.all([answerOf(message('one')), answerOf(message('two'))]);
		expect(harness.runs).toHaveLength(2);
		expect(harness.runs[0].events[0].messageCount).toBeUndefined();
	});
});

describe('bounds', () => {
	test('a burst is released at its 20th message without waiting for the quiet time', async () => {
		await published(30);
		const started = Date.now();
		const answers = await Promise.all(
			Array.from({ length: 20 }, (_, i) => answerOf(message(`m${i}`))),
		);
		expect(Date.now() - started).toBeLessThan(5000);
		expect(answers.every((a) => a.status === 200)).toBe(true);
		expect(harness.runs).toHaveLength(1);
		expect(harness.runs[0].events[0].messageCount).toBe(20);
	});

	test('a chat that never goes quiet is released after the longest hold', async () => {
		burstLimits.maxHoldMs = 1500;
		await published(1);
		const started = Date.now();
		const answers: Array<Promise<Answer>> = [];
		for (let i = 0; i < 8; i++) {
			answers.push(answerOf(message(`m${i}`)));
			await wait(400); // always within the 1 s quiet time
		}
		await Promise.all(answers);
		expect(harness.runs.length).toBeGreaterThanOrEqual(2);
		expect(harness.runs[0].startedAt - started).toBeLessThan(2500);
		expect(harness.runs.flatMap((run) => run.events[0].texts as string[])).toEqual(
			Array.from({ length: 8 }, (_, i) => `m${i}`),
		);
	});

	test('beyond the per-process limit messages are not held but start at once', async () => {
		burstLimits.maxHeldPerProcess = 2;
		await published(1);
		const held = [
			answerOf(message('a', { chat: 'c1@c.us' })),
			answerOf(message('b', { chat: 'c2@c.us' })),
		];
		await wait(150);
		const direct = await answerOf(message('c', { chat: 'c3@c.us' }));
		expect(direct.status).toBe(200);
		expect(harness.runs.map((run) => run.events[0].text)).toEqual(['c']);
		await Promise.all(held);
		expect(harness.runs).toHaveLength(3);
	});
});

describe('nothing is lost, nothing runs twice', () => {
	test('when n8n cannot start the combined execution, the other held deliveries get 503 (send again)', async () => {
		await published(1);
		harness.failStarts = true;
		const answers = await Promise.all([answerOf(message('one')), answerOf(message('two'))]);
		expect(answers.map((a) => a.status)).toEqual([500, 503]);
		expect(answers[1].body).toEqual({
			error: 'The combined execution could not be started; send this event again',
		});
		harness.failStarts = false;
		// The service sends both again: they are combined and started.
		const again = await Promise.all([
			answerOf(message('one', { id: 'wamid.r1' })),
			answerOf(message('two', { id: 'wamid.r2' })),
		]);
		expect(again.map((a) => a.status)).toEqual([200, 200]);
		expect(harness.runs.map((run) => run.events[0].texts)).toEqual([['one', 'two']]);
	});

	test('the same message delivered twice while held is combined once', async () => {
		await published(1);
		const event = message('only once');
		const answers = await Promise.all([
			answerOf(event),
			answerOf(event),
			answerOf(message('and this')),
		]);
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
		expect(harness.runs[0].events[0].texts).toEqual(['only once', 'and this']);
	});

	test('a delivery the service gave up on stays in the burst; its resend after the start runs nothing twice', async () => {
		await published(1);
		const dropped = message('I gave up waiting');
		const controller = new AbortController();
		const request = fetch(harness.productionUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'x-service-secret': sim.webhook!.secret },
			body: JSON.stringify(dropped),
			signal: controller.signal,
		}).catch(() => 'aborted');
		await wait(150);
		const kept = answerOf(message('still here'));
		await wait(100);
		controller.abort();
		expect(await request).toBe('aborted');
		expect((await kept).status).toBe(200);
		expect(harness.runs).toHaveLength(1);
		expect(harness.runs[0].events[0].texts).toEqual(['I gave up waiting', 'still here']);
		expect(harness.runs[0].events[0].messageId).toBe(dropped.message.id);

		const resend = await answerOf(dropped);
		expect(resend).toMatchObject({
			status: 200,
			body: { received: true, ignored: 'already combined into a started execution' },
		});
		expect(harness.runs).toHaveLength(1);
	});

	test('a burst whose only delivery was dropped is still started', async () => {
		await published(1);
		const controller = new AbortController();
		const request = fetch(harness.productionUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'x-service-secret': sim.webhook!.secret },
			body: JSON.stringify(message('alone')),
			signal: controller.signal,
		}).catch(() => 'aborted');
		await wait(150);
		controller.abort();
		await request;
		await wait(1300);
		expect(harness.runs.map((run) => run.events[0].texts)).toEqual([['alone']]);
	});
});
