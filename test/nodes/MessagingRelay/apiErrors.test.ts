import type { INode } from 'n8n-workflow';

import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { relayCredentials, relayNode, runActionNode } from '../../support/harness/n8nRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.reset());

const send = (continueOnFail = false) =>
	relayNode(
		{
			resource: 'message',
			operation: 'send',
			channelId: { __rl: true, mode: 'id', value: 'num_main' },
			to: '+4917612345678',
			text: 'Hi',
		},
		{ continueOnFail },
	);
const listNumbers = () => relayNode({ resource: 'number', operation: 'getAll', returnAll: true });
const setWebhook = () =>
	relayNode({ resource: 'webhook', operation: 'set', url: 'https://hooks.example.com/r' });

async function failureOf(node: INode, apiKey = 'sim-key-full') {
	const { error, items } = await runActionNode(node, relayCredentials(sim.baseUrl, apiKey));
	expect(items).toBeUndefined();
	expect(error).toBeDefined();
	return error!;
}

describe('a refused request becomes a NodeApiError that says what happened and how to fix it', () => {
	test('401: the key is not accepted; make a new one', async () => {
		const error = await failureOf(send(), 'sim-key-revoked');
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe('The Messaging Relay API key was not accepted (401 UNAUTHORIZED)');
		expect(error.description).toMatch(
			/Create a new key in the Messaging Relay dashboard under API keys/,
		);
	});

	test.each([
		['Message → Send', 'sim-key-readonly', 'messages:send', 'POST /v1/messages', send],
		['Number → Get Many', 'sim-key-send-only', 'numbers:read', 'GET /v1/numbers', listNumbers],
		['Webhook → Set', 'sim-key-old', 'webhooks:manage', 'PUT /v1/webhook', setWebhook],
	])(
		'403 on %s names the scope it needs (%s lacks %s)',
		async (_op, key, scope, endpoint, makeNode) => {
			const error = await failureOf(makeNode(), key);
			expect(error.message).toBe(
				`The API key is not allowed to call ${endpoint}: it lacks the ${scope} scope (403 UNAUTHORIZED)`,
			);
			expect(error.description).toContain(`This operation needs the ${scope} scope`);
			expect(error.description).toContain('A key issued before a scope existed never gains it');
		},
	);

	test('402 ACCOUNT_SUSPENDED: rotating the key will not help', async () => {
		const error = await failureOf(listNumbers(), 'sim-key-suspended');
		expect(error.message).toBe('The Messaging Relay account is on hold (402 ACCOUNT_SUSPENDED)');
		expect(error.description).toMatch(/rotating the key or reconnecting will not help/);
		expect(error.description).toContain('Your account is on hold. Contact us to restore access.');
	});

	test('404 from the API', async () => {
		const node = send();
		node.parameters.channelId = { __rl: true, mode: 'id', value: 'num_gone' };
		const error = await failureOf(node);
		expect(error.message).toBe('Not found: POST /v1/messages (404 NOT_FOUND)');
		expect(error.description).toContain('Number num_gone not found.');
	});

	test('429 with a Retry-After beyond the bound says when to retry, without waiting', async () => {
		sim.inject({
			method: 'POST',
			path: '/v1/messages',
			status: 429,
			headers: { 'retry-after': '120' },
			body: { error: { code: 'RATE_LIMITED', message: 'Slow down.' } },
		});
		const error = await failureOf(send());
		expect(error.message).toBe(
			'The Messaging Relay API is rate limiting requests (429 RATE_LIMITED)',
		);
		expect(error.description).toMatch(/retry in 120 s/);
		expect((error as unknown as { failure: unknown }).failure).toEqual({
			cause: 'rate-limited',
			retryAfterMs: 120000,
		});
		expect(sim.requestsTo('POST', '/v1/messages')).toHaveLength(1);
	});

	test("500 is the service's problem (a GET is tried 4 times first)", async () => {
		sim.inject({
			path: '/v1/numbers',
			status: 500,
			times: 4,
			body: { error: { code: 'INTERNAL', message: 'boom' } },
		});
		const error = await failureOf(listNumbers());
		expect(error.message).toBe(
			'The Messaging Relay service failed on GET /v1/numbers (500) after 4 tries',
		);
		expect(error.description).toContain('"boom"');
		expect(sim.requestsTo('GET', '/v1/numbers')).toHaveLength(4);
	});

	test('a non-JSON error body (an HTML proxy page) still gives a clear error', async () => {
		sim.inject({
			path: '/v1/numbers',
			status: 502,
			times: 4,
			rawBody: '<html><body>Bad Gateway</body></html>',
		});
		const error = await failureOf(listNumbers());
		expect(error.message).toBe(
			'The Messaging Relay service failed on GET /v1/numbers (502) after 4 tries',
		);
		expect(error.description).toContain('<html><body>Bad Gateway</body></html>');
		expect(error.description).toContain('not the usual JSON error');
	});

	test('an empty error body still gives a clear error', async () => {
		sim.inject({ path: '/v1/numbers', status: 418, rawBody: '' });
		const error = await failureOf(listNumbers());
		expect(error.message).toBe('The Messaging Relay API refused GET /v1/numbers (418 HTTP_418)');
		expect(error.description).toContain('an empty body');
	});

	test('a 200 that is not JSON is a NodeApiError, not a crash', async () => {
		sim.inject({ path: '/v1/numbers', status: 200, rawBody: '<html>login</html>' });
		const error = await failureOf(listNumbers());
		expect(error.name).toBe('NodeApiError');
		expect(error.message).toBe(
			'The Messaging Relay API answered GET /v1/numbers with something that is not JSON',
		);
	});

	test('an unreachable base URL says to check it', async () => {
		const closed = await startRelaySimulator();
		const deadUrl = closed.baseUrl;
		await closed.stop();
		const { error } = await runActionNode(listNumbers(), relayCredentials(deadUrl));
		expect(error?.message).toBe(
			'Could not reach the Messaging Relay API for GET /v1/numbers: connection refused',
		);
		expect(error?.description).toContain(deadUrl);
	});
});

describe('continueOnFail', () => {
	test('one error item per failed input item, paired; good items still go out', async () => {
		const node = relayNode(
			{
				resource: 'message',
				operation: 'send',
				channelId: { __rl: true, mode: 'id', value: '={{ $json.channel }}' },
				to: '={{ $json.to }}',
				text: 'Hi',
			},
			{ continueOnFail: true },
		);
		const { items, error } = await runActionNode(node, relayCredentials(sim.baseUrl), [
			{ channel: 'num_main', to: '+4917600000001' },
			{ channel: 'num_main', to: '12' },
			{ channel: 'num_gone', to: '+4917600000003' },
			{ channel: 'num_main', to: '+4917600000004' },
		]);
		expect(error).toBeUndefined();
		expect(items!.map((i) => i.pairedItem)).toEqual([
			{ item: 0 },
			{ item: 1 },
			{ item: 2 },
			{ item: 3 },
		]);
		expect(items![0].json).toMatchObject({ id: 'msg_1' });
		expect(items![1].json.error).toBe('The field "To" is not a valid phone number: "12" [item 1]');
		expect(items![2].json.error).toBe('Not found: POST /v1/messages (404 NOT_FOUND)');
		expect(items![3].json).toMatchObject({ id: 'msg_2' });
		expect(sim.messages.map((m) => m.to)).toEqual(['+4917600000001', '+4917600000004']);
	});
});

describe('the API key never shows', () => {
	const secretKey = 'sim-key-full';
	test('not in output items, error items or errors, whichever header carries it', async () => {
		for (const header of ['xApiKey', 'bearer'] as const) {
			sim.inject({ method: 'POST', path: '/v1/messages', status: 500, rawBody: 'upstream broke' });
			sim.inject({ path: '/v1/numbers', status: 500, times: 4, rawBody: 'still broken' });
			const failing = await runActionNode(
				send(true),
				relayCredentials(sim.baseUrl, secretKey, header),
				[{}, {}],
			);
			const thrown = await runActionNode(
				relayNode({
					resource: 'number',
					operation: 'get',
					numberId: { __rl: true, mode: 'id', value: 'nope' },
				}),
				relayCredentials(sim.baseUrl, secretKey, header),
			);
			const revoked = await runActionNode(
				listNumbers(),
				relayCredentials(sim.baseUrl, 'sim-key-revoked', header),
			);
			for (const run of [failing, thrown, revoked]) {
				const everything =
					JSON.stringify(run.run) +
					JSON.stringify(run.error, Object.getOwnPropertyNames(run.error ?? {}));
				expect(everything).not.toContain(secretKey);
				expect(everything).not.toContain('sim-key-revoked');
			}
			expect(failing.items![0].json.error).toMatch(/failed on POST \/v1\/messages/);
			expect(failing.items![1].json).toMatchObject({ id: expect.stringMatching(/^msg_/) });
		}
	});
});
