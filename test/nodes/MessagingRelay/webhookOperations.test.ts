import { MessagingRelay } from '../../../nodes/MessagingRelay/MessagingRelay.node';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { relayCredentials, relayNode, runActionNode } from '../../support/harness/n8nRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.reset());

const webhookNode = (operation: string, extra: Record<string, unknown> = {}) =>
	relayNode({ resource: 'webhook', operation, ...extra });

describe('Webhook → Set', () => {
	test('PUTs the URL; the new secret stays out of the item by default', async () => {
		const { items, error } = await runActionNode(
			webhookNode('set', { url: 'https://hooks.example.com/relay' }),
			relayCredentials(sim.baseUrl),
		);
		expect(error).toBeUndefined();
		expect(sim.requestsTo('PUT', '/v1/webhook').map((r) => r.body)).toEqual([
			{ url: 'https://hooks.example.com/relay' },
		]);
		expect(items![0].json).toEqual({
			registered: true,
			url: 'https://hooks.example.com/relay',
			active: true,
			secretIssued: true,
		});
		expect(JSON.stringify(items)).not.toContain(sim.webhook!.secret);
	});

	test('Include Secret in Output returns the secret the service issued', async () => {
		const { items } = await runActionNode(
			webhookNode('set', { url: 'https://hooks.example.com/relay', includeSecret: true }),
			relayCredentials(sim.baseUrl),
		);
		expect(items![0].json.secret).toBe(sim.webhook!.secret);
		expect(items![0].json.secret).toMatch(/^whsec_/);
	});

	test.each([
		['=', 'The field "URL" is empty [item 0]'],
		[
			'http://hooks.example.com/relay',
			'The field "URL" must use HTTPS: "http://hooks.example.com/relay" [item 0]',
		],
		['hooks.example.com', 'The field "URL" is not a URL: "hooks.example.com" [item 0]'],
	])('refuses %s before any request', async (url, message) => {
		const { error } = await runActionNode(
			webhookNode('set', { url }),
			relayCredentials(sim.baseUrl),
		);
		expect(error?.message).toBe(message);
		expect(sim.requests).toHaveLength(0);
	});

	test('a PUT answer without a secret is an error, not a half registration', async () => {
		sim.inject({
			method: 'PUT',
			path: '/v1/webhook',
			status: 200,
			body: { webhook: { url: 'https://x.example', active: true } },
		});
		const { error } = await runActionNode(
			webhookNode('set', { url: 'https://x.example' }),
			relayCredentials(sim.baseUrl),
		);
		expect(error?.message).toBe(
			'The Messaging Relay API registered the webhook but returned no secret',
		);
	});
});

describe('Webhook → Get and Delete', () => {
	test('Get with none registered says so', async () => {
		const { items } = await runActionNode(webhookNode('get'), relayCredentials(sim.baseUrl));
		expect(items![0].json).toEqual({ registered: false, url: null, active: false });
	});

	const leaky = { url: 'https://hooks.example.com/a', active: true, secret: 'whsec_leak' };
	test.each([
		['wrapped', { webhook: leaky }],
		['bare', leaky],
		['data', { data: leaky }],
	])(
		'Get reads a %s body and never outputs a secret, even one a server sends',
		async (_shape, body) => {
			sim.inject({ method: 'GET', path: '/v1/webhook', status: 200, body });
			const { items } = await runActionNode(webhookNode('get'), relayCredentials(sim.baseUrl));
			expect(items![0].json).toEqual({
				registered: true,
				url: 'https://hooks.example.com/a',
				active: true,
			});
		},
	);

	test('Get reads what Set registered', async () => {
		await runActionNode(
			webhookNode('set', { url: 'https://hooks.example.com/a' }),
			relayCredentials(sim.baseUrl),
		);
		const { items } = await runActionNode(webhookNode('get'), relayCredentials(sim.baseUrl));
		expect(items![0].json).toEqual({
			registered: true,
			url: 'https://hooks.example.com/a',
			active: true,
		});
	});

	test('Get treats a 404 as no webhook', async () => {
		sim.inject({
			method: 'GET',
			path: '/v1/webhook',
			status: 404,
			body: { error: { code: 'NOT_FOUND', message: 'none' } },
		});
		const { items } = await runActionNode(webhookNode('get'), relayCredentials(sim.baseUrl));
		expect(items![0].json.registered).toBe(false);
	});

	test('Delete removes it; deleting when there is none is not an error', async () => {
		await runActionNode(
			webhookNode('set', { url: 'https://hooks.example.com/a' }),
			relayCredentials(sim.baseUrl),
		);
		const first = await runActionNode(webhookNode('delete'), relayCredentials(sim.baseUrl));
		expect(first.items![0].json).toEqual({ deleted: true });
		expect(sim.webhook).toBeNull();
		const second = await runActionNode(webhookNode('delete'), relayCredentials(sim.baseUrl));
		expect(second.items![0].json).toEqual({ deleted: false });
	});
});

test('a notice on every webhook operation warns that the trigger relies on the one webhook', () => {
	const notice = new MessagingRelay().description.properties.find(
		(p) => p.name === 'webhookNotice',
	);
	expect(notice?.type).toBe('notice');
	expect(notice?.displayOptions).toEqual({ show: { resource: ['webhook'] } });
	expect(notice?.displayName).toMatch(/exactly one webhook.*Messaging Relay Trigger/);
});
