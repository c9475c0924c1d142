/**
 * Faults between n8n and the service: what is retried, what is never sent twice, and what the
 * user is told. Backoff is shortened by test/support/harness/fastRetries.ts; the rules are as shipped.
 */
import { sleep } from 'n8n-workflow';

import { cancellableSleep, retryPolicy } from '../../../nodes/shared/retry';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { relayCredentials, relayNode, runActionNode } from '../../support/harness/n8nRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.reset());

const sendTo = (to: string, extra: Record<string, unknown> = {}, continueOnFail = false) =>
	relayNode(
		{
			resource: 'message',
			operation: 'send',
			channelId: { __rl: true, mode: 'id', value: 'num_main' },
			to,
			text: '={{ $json.text ?? "hello" }}',
			...extra,
		},
		{ continueOnFail },
	);
const listNumbers = () => relayNode({ resource: 'number', operation: 'getAll', returnAll: true });

describe('rate limits (429)', () => {
	test('a 429 with Retry-After is waited out, then the message goes out once', async () => {
		sim.inject({
			method: 'POST',
			path: '/v1/messages',
			status: 429,
			headers: { 'retry-after': '1' },
			body: { error: { code: 'RATE_LIMITED', message: 'slow down' } },
		});
		const started = Date.now();
		const { items, error } = await runActionNode(
			sendTo('+4917600000001'),
			relayCredentials(sim.baseUrl),
		);
		expect(error).toBeUndefined();
		expect(Date.now() - started).toBeGreaterThanOrEqual(950);
		expect(sim.requestsTo('POST', '/v1/messages')).toHaveLength(2);
		expect(sim.messages).toHaveLength(1);
		expect(items![0].json.id).toBe(sim.messages[0].id);
	});

	test('Retry-After as an HTTP date works too', async () => {
		const inOneSecond = new Date(Date.now() + 1000).toUTCString();
		sim.inject({
			path: '/v1/numbers',
			status: 429,
			headers: { 'retry-after': inOneSecond },
			rawBody: '',
		});
		const { error } = await runActionNode(listNumbers(), relayCredentials(sim.baseUrl));
		expect(error).toBeUndefined();
		expect(sim.requestsTo('GET', '/v1/numbers')).toHaveLength(2);
	});

	test("past the bound (attempts), a clear error that says when to retry, with n8n's rate-limit metadata", async () => {
		sim.inject({
			method: 'POST',
			path: '/v1/messages',
			status: 429,
			times: 10,
			headers: { 'retry-after': '0' },
			body: { error: { code: 'RATE_LIMITED', message: 'slow down' } },
		});
		const { error } = await runActionNode(sendTo('+4917600000001'), relayCredentials(sim.baseUrl));
		expect(error?.message).toBe(
			`The Messaging Relay API is rate limiting requests (429 RATE_LIMITED) after ${retryPolicy.maxAttempts} tries`,
		);
		expect(error?.description).toMatch(/retry in 0 s.*Messages in Flight/);
		expect((error as unknown as { failure: unknown }).failure).toEqual({
			cause: 'rate-limited',
			retryAfterMs: 0,
		});
		expect(sim.requestsTo('POST', '/v1/messages')).toHaveLength(retryPolicy.maxAttempts);
		expect(sim.messages).toHaveLength(0);
	});

	test('one 429 pauses every message in flight together: one wait, not a stampede', async () => {
		sim.inject({
			method: 'POST',
			path: '/v1/messages',
			status: 429,
			headers: { 'retry-after': '1' },
			rawBody: '',
		});
		const input = Array.from({ length: 8 }, (_, i) => ({ to: `+49176000000${10 + i}` }));
		const node = sendTo('={{ $json.to }}', { options: { messagesInFlight: 8 } });
		const { items, error } = await runActionNode(node, relayCredentials(sim.baseUrl), input);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(8);
		const posts = sim.requestsTo('POST', '/v1/messages');
		// 8 first tries, 1 retry for the one refused: the others were not refused, so not resent.
		expect(posts).toHaveLength(9);
		const refusedAt = posts[0].at;
		// Requests started after the 429 waited for its Retry-After (none within the pause).
		const during = posts.filter((p) => p.at > refusedAt + 50 && p.at < refusedAt + 950);
		expect(during).toHaveLength(0);
		expect(new Set(sim.messages.map((m) => m.to)).size).toBe(8);
	});
});

describe('5xx, resets and timeouts', () => {
	test('GET is retried with backoff after 5xx and a reset, then succeeds', async () => {
		sim.inject({ path: '/v1/numbers', status: 503, rawBody: 'busy' });
		sim.inject({ path: '/v1/numbers', destroy: true });
		const { items, error } = await runActionNode(listNumbers(), relayCredentials(sim.baseUrl));
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
		expect(sim.requestsTo('GET', '/v1/numbers')).toHaveLength(3);
	});

	test('GET is retried after a timeout', async () => {
		sim.inject({
			path: '/v1/numbers',
			delayMs: retryPolicy.timeoutMs + 500,
			status: 200,
			body: { numbers: [] },
		});
		const { items, error } = await runActionNode(listNumbers(), relayCredentials(sim.baseUrl));
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
	});

	test('PUT and DELETE /v1/webhook are retried after 5xx', async () => {
		sim.inject({ method: 'PUT', path: '/v1/webhook', status: 502, rawBody: 'bad gateway' });
		sim.inject({ method: 'DELETE', path: '/v1/webhook', status: 500, rawBody: 'oops' });
		const set = await runActionNode(
			relayNode({ resource: 'webhook', operation: 'set', url: 'https://h.example/r' }),
			relayCredentials(sim.baseUrl),
		);
		const del = await runActionNode(
			relayNode({ resource: 'webhook', operation: 'delete' }),
			relayCredentials(sim.baseUrl),
		);
		expect([set.error, del.error]).toEqual([undefined, undefined]);
		expect(del.items![0].json).toEqual({ deleted: true });
	});

	test('POST /v1/messages is NOT retried after a 5xx: the service may have taken it', async () => {
		sim.inject({
			method: 'POST',
			path: '/v1/messages',
			status: 500,
			rawBody: 'crash',
			afterAccept: true,
		});
		const { error } = await runActionNode(sendTo('+4917600000001'), relayCredentials(sim.baseUrl));
		expect(sim.requestsTo('POST', '/v1/messages')).toHaveLength(1);
		expect(sim.messages).toHaveLength(1);
		expect(error?.message).toBe('The Messaging Relay service failed on POST /v1/messages (500)');
		expect(error?.description).toMatch(
			/may have accepted the message.*not sent again.*Check the chat/,
		);
	});

	test('POST /v1/messages is NOT retried after a reset or a timeout once sent', async () => {
		sim.inject({ method: 'POST', path: '/v1/messages', destroy: true, afterAccept: true });
		const reset = await runActionNode(sendTo('+4917600000001'), relayCredentials(sim.baseUrl));
		sim.inject({
			method: 'POST',
			path: '/v1/messages',
			delayMs: retryPolicy.timeoutMs + 500,
			status: 200,
			afterAccept: true,
			body: {},
		});
		const timeout = await runActionNode(sendTo('+4917600000002'), relayCredentials(sim.baseUrl));
		expect(sim.requestsTo('POST', '/v1/messages')).toHaveLength(2);
		expect(sim.messages.map((m) => m.to)).toEqual(['+4917600000001', '+4917600000002']);
		expect(reset.error?.message).toBe(
			'Could not reach the Messaging Relay API for POST /v1/messages: connection reset',
		);
		expect(timeout.error?.message).toBe(
			'Could not reach the Messaging Relay API for POST /v1/messages: timed out',
		);
		for (const run of [reset, timeout])
			expect(run.error?.description).toMatch(/may have reached the service.*not sent again/);
	});

	test('POST /v1/messages IS retried when the connection was refused (nothing was sent)', async () => {
		const flaky = await startRelaySimulator();
		const port = Number(new URL(flaky.baseUrl).port);
		await flaky.stop();
		const saved = retryPolicy.baseDelayMs;
		retryPolicy.baseDelayMs = 150;
		const restart = (async () => {
			await sleep(200);
			return await startRelaySimulator({ port });
		})();
		try {
			const { items, error } = await runActionNode(
				sendTo('+4917600000001'),
				relayCredentials(`http://127.0.0.1:${port}`),
			);
			const back = await restart;
			expect(error).toBeUndefined();
			expect(back.messages).toHaveLength(1);
			expect(items![0].json.id).toBe(back.messages[0].id);
			await back.stop();
		} finally {
			retryPolicy.baseDelayMs = saved;
		}
	});
});

describe('nothing lost, nothing sent twice', () => {
	test('a batch through mixed faults: every item has its message or a clear error, no duplicates', async () => {
		const count = 60;
		const input = Array.from({ length: count }, (_, i) => ({
			to: `+4917600${String(i).padStart(5, '0')}`,
			text: `m${i}`,
		}));
		sim.inject({
			method: 'POST',
			path: '/v1/messages',
			status: 429,
			times: 3,
			headers: { 'retry-after': '0' },
			rawBody: '',
		});
		sim.inject({
			method: 'POST',
			path: '/v1/messages',
			status: 500,
			times: 2,
			afterAccept: true,
			rawBody: 'lost answer',
		});
		sim.inject({
			method: 'POST',
			path: '/v1/messages',
			destroy: true,
			times: 2,
			afterAccept: true,
		});
		sim.inject({
			method: 'POST',
			path: '/v1/messages',
			status: 503,
			times: 2,
			rawBody: 'refused before accepting',
		});
		const node = sendTo('={{ $json.to }}', { options: { messagesInFlight: 6 } }, true);
		const { items, error } = await runActionNode(node, relayCredentials(sim.baseUrl), input);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(count);
		expect(items!.map((i) => i.pairedItem)).toEqual(input.map((_, i) => ({ item: i })));

		const texts = sim.messages.map((m) => m.text);
		expect(new Set(texts).size).toBe(texts.length); // never a duplicate
		const failed = items!.filter((i) => i.json.error !== undefined);
		const sent = items!.filter((i) => i.json.error === undefined);
		expect(failed).toHaveLength(6); // 2 lost answers, 2 resets, 2 refusals; the 429s were waited out
		for (const item of sent)
			expect(sim.messages.find((m) => m.id === item.json.id)?.text).toBe(item.json.text);
		for (const item of failed) expect(item.json.error).toMatch(/POST \/v1\/messages/);
		// Every item is accounted for: sent, or an error saying whether it may have gone out.
		expect(sent.length + failed.length).toBe(count);
		expect(sim.messages.length).toBe(sent.length + 4); // the 4 whose answer was lost did go out
	});
});

describe('malformed success bodies give a NodeApiError, never a TypeError', () => {
	test.each([
		[
			'HTML',
			{ rawBody: '<!doctype html><title>Welcome</title>' },
			'The Messaging Relay API answered GET /v1/numbers with something that is not JSON',
		],
		[
			'truncated JSON',
			{ rawBody: '{"numbers":[{"id":"num_main","displayName":"Sup' },
			'The Messaging Relay API answered GET /v1/numbers with something that is not JSON',
		],
		[
			'wrong types',
			{ body: { numbers: [{ id: 5, health: 'fine' }] } },
			'The Messaging Relay API returned the list of numbers in a shape this node does not understand',
		],
		[
			'an object where a list belongs',
			{ body: { numbers: { id: 'num_main' } } },
			'The Messaging Relay API returned the list of numbers in a shape this node does not understand',
		],
	])('%s', async (_label, fault, message) => {
		sim.inject({ path: '/v1/numbers', status: 200, ...fault });
		const { error } = await runActionNode(listNumbers(), relayCredentials(sim.baseUrl));
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toBe(message);
	});

	test('a send whose 200 body has wrong types', async () => {
		sim.inject({
			method: 'POST',
			path: '/v1/messages',
			status: 200,
			afterAccept: true,
			body: { message: { id: 42 } },
		});
		const { error } = await runActionNode(sendTo('+4917600000001'), relayCredentials(sim.baseUrl));
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toBe(
			'The Messaging Relay API returned the sent message in a shape this node does not understand',
		);
	});
});

describe('waiting is cancel-aware', () => {
	test('a cancelled execution stops waiting at once', async () => {
		const controller = new AbortController();
		const started = Date.now();
		const waiting = cancellableSleep(relayNode({}), 30_000, controller.signal);
		await sleep(100);
		controller.abort();
		await expect(waiting).rejects.toThrow(
			'The execution was cancelled while waiting to retry a request',
		);
		expect(Date.now() - started).toBeLessThan(1000);
	});
});
