import { MessagingRelay } from '../../../nodes/MessagingRelay/MessagingRelay.node';
import {
	NodeHelpers,
	resetSafeRegexEngine,
	setSafeRegexEngine,
	type INodeParameters,
} from 'n8n-workflow';

import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import {
	relayCredentials,
	relayNode,
	runActionNode,
	runListSearch,
} from '../../support/harness/n8nRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.reset());

const getNumber = (id: string) =>
	relayNode({
		resource: 'number',
		operation: 'get',
		numberId: { __rl: true, mode: 'id', value: id },
	});

describe('Number → Get', () => {
	test.each(['wrapped', 'bare', 'data'] as const)(
		'reads a %s body: status, health and unknown fields pass through',
		async (shape) => {
			sim.shape = shape;
			const { items, error } = await runActionNode(
				getNumber('num_old'),
				relayCredentials(sim.baseUrl),
			);
			expect(error).toBeUndefined();
			expect(sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/numbers/num_old']);
			expect(items!.map((i) => i.json)).toEqual([
				{
					id: 'num_old',
					displayName: 'Old shop phone',
					declaredNumber: '+4930123456',
					pairedNumber: '+4930123456',
					status: 'CREDENTIALS',
					health: {
						phoneOnline: false,
						lastSeenAt: '2026-11-20T09:00:00.000Z',
						lastEventAt: '2026-11-20T09:00:00.000Z',
					},
					createdAt: '2025-07-01T10:00:00.000Z',
				},
			]);
		},
	);

	test('an unknown ID is a 404 that says to check the ID', async () => {
		const { error } = await runActionNode(getNumber('num_nope'), relayCredentials(sim.baseUrl));
		expect(error?.message).toBe('Not found: GET /v1/numbers/num_nope (404 NOT_FOUND)');
		expect(error?.description).toMatch(/Check the ID/);
	});

	test('an ID with spaces is refused in the node before any request, saying what an ID looks like', async () => {
		const { error } = await runActionNode(getNumber('num main'), relayCredentials(sim.baseUrl));
		expect(error?.message).toBe('The field "Number" is not a number ID: "num main" [item 0]');
		expect(error?.description).toMatch(/no spaces, like num_main/);
		expect(sim.requests).toHaveLength(0);
	});

	test('a body that is not a number is a NodeApiError, not a TypeError', async () => {
		sim.inject({ path: '/v1/numbers/num_main', status: 200, body: { number: { displayName: 7 } } });
		const { error } = await runActionNode(getNumber('num_main'), relayCredentials(sim.baseUrl));
		expect(error?.name).toBe('NodeApiError');
		expect(error?.message).toBe(
			'The Messaging Relay API returned a number in a shape this node does not understand',
		);
	});
});

describe('Number → Get Many', () => {
	test('Return All gives every number, one item each', async () => {
		const node = relayNode({ resource: 'number', operation: 'getAll', returnAll: true });
		const { items } = await runActionNode(node, relayCredentials(sim.baseUrl));
		expect(items!.map((i) => i.json.id)).toEqual(['num_main', 'num_sales', 'num_old']);
		expect(items!.every((i) => (i.pairedItem as { item: number }).item === 0)).toBe(true);
	});

	test('Limit caps the items (default 50)', async () => {
		const node = relayNode({ resource: 'number', operation: 'getAll', returnAll: false, limit: 2 });
		const { items } = await runActionNode(node, relayCredentials(sim.baseUrl));
		expect(items!.map((i) => i.json.id)).toEqual(['num_main', 'num_sales']);
		const byDefault = await runActionNode(
			relayNode({ resource: 'number', operation: 'getAll' }),
			relayCredentials(sim.baseUrl),
		);
		expect(byDefault.items).toHaveLength(3);
	});

	test.each(['bare', 'data'] as const)('reads a %s list', async (shape) => {
		sim.shape = shape;
		const node = relayNode({ resource: 'number', operation: 'getAll', returnAll: true });
		const { items } = await runActionNode(node, relayCredentials(sim.baseUrl));
		expect(items).toHaveLength(3);
	});

	test('a read-only key (*:read) may list numbers', async () => {
		const node = relayNode({ resource: 'number', operation: 'getAll', returnAll: true });
		const { items, error } = await runActionNode(
			node,
			relayCredentials(sim.baseUrl, 'sim-key-readonly'),
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(3);
	});
});

describe('number list search (From List)', () => {
	const node = relayNode({ resource: 'message', operation: 'send' });

	test('shows name, paired number and whether the line is connected', async () => {
		const { results } = await runListSearch(node, relayCredentials(sim.baseUrl), 'searchNumbers');
		expect(results).toEqual([
			{ name: 'Support line (+4915112345678) · connected', value: 'num_main' },
			{ name: 'Sales (+4915187654321) · phone offline', value: 'num_sales' },
			{ name: 'Old shop phone (+4930123456) · needs relinking', value: 'num_old' },
		]);
		expect(sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/numbers']);
	});

	test('filters by name, phone or ID', async () => {
		const byName = await runListSearch(
			node,
			relayCredentials(sim.baseUrl),
			'searchNumbers',
			'sales',
		);
		expect(byName.results.map((r) => r.value)).toEqual(['num_sales']);
		const byPhone = await runListSearch(
			node,
			relayCredentials(sim.baseUrl),
			'searchNumbers',
			'+4930',
		);
		expect(byPhone.results.map((r) => r.value)).toEqual(['num_old']);
	});

	test('a key without numbers:read gets the scope error in the list', async () => {
		await expect(
			runListSearch(node, relayCredentials(sim.baseUrl, 'sim-key-send-only'), 'searchNumbers'),
		).rejects.toMatchObject({ message: expect.stringMatching(/lacks the numbers:read scope/) });
	});
});

/**
 * n8n checks every node's parameters before each run (n8n-core workflow-execute.js,
 * checkReadyForExecution) and runs any resource-locator `validation` regex in a vm with a 250 ms
 * time-out (n8n-workflow safe-regex.js). A worker starved of CPU hit that time-out and failed the
 * whole execution, so the number's By ID mode has no regex: this check must not need one.
 */
describe("n8n's check before each run", () => {
	afterEach(() => resetSafeRegexEngine());

	test.each([
		[
			'Message → Send',
			{
				resource: 'message',
				operation: 'send',
				channelId: { __rl: true, mode: 'id', value: 'num_sales' },
				to: '+4917600000099',
				text: 'hi',
			},
		],
		[
			'Number → Get',
			{
				resource: 'number',
				operation: 'get',
				numberId: { __rl: true, mode: 'id', value: 'num_sales' },
			},
		],
	])('%s with a typed number ID runs no regular expression', (_label, parameters) => {
		const timesOut = () => {
			throw new Error('Regular expression execution timed out');
		};
		setSafeRegexEngine({
			exec: timesOut,
			test: timesOut,
			replace: timesOut,
			matchAll: timesOut,
			split: timesOut,
		});
		const node = relayNode(parameters as INodeParameters);
		const { description } = new MessagingRelay();
		expect(
			NodeHelpers.getNodeParametersIssues(description.properties, node, description),
		).toBeNull();
	});
});
