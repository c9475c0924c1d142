/**
 * The Messaging Relay Watch node in the real n8n: examples/number-watch.json published on its
 * own simulator account (acct_watch), whose webhook a published trigger holds. It alerts the
 * operator when a number needs relinking and when the webhook is pointed elsewhere, and
 * nothing while nothing changes. In each case the suite checks the run (its status and the
 * Watch node's items) and what reached the operator at the simulator.
 *
 * n8n refuses Poll Times below a minute ("The polling interval is too short. It has to be at
 * least a minute.", n8n-core active-workflow-triggers.js:170), so this suite polls every minute
 * and waits for the poll after each change: about three minutes.
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	api,
	eventually,
	finishedExecutions,
	nodeItems,
	relayCredential,
	sim,
	simRequests,
	registeredUrl,
} from '../support/e2e';
import { exampleForSimulator, SIMULATOR_CHOICES } from '../support/examples';

const { fromNumber, operatorPhone } = SIMULATOR_CHOICES;

const ACCOUNT = 'acct_watch';
const TRIGGER_WEBHOOK_ID = '7c3e9a10-2b4d-4e5f-8a6b-9c0d1e2f3a4b';
const POLL_WAIT_MS = 100_000;

let credential: { id: string; name: string };
let triggerWorkflowId: string;
let watchWorkflowId: string;

interface SimMessage {
	account: string;
	channelId: string;
	to: string;
	text: string;
}
const messages = async () =>
	((await sim('GET', '/state')).messages as unknown as SimMessage[]) ?? [];
/** The alerts this account sent the operator after the first `before` messages of the simulator. */
const alertsSince = async (before: number) =>
	(await messages()).slice(before).filter((m) => m.account === ACCOUNT);
const webhookOf = async () =>
	((await sim('GET', '/webhooks')) as Record<string, { url: string } | null>)[ACCOUNT];

/** Resolves once the Watch workflow has polled (GET /v1/numbers on acct_watch) after `since`. */
const nextPoll = async (since: number) =>
	await eventually(
		async () =>
			(await simRequests(since)).find((r) => r.account === ACCOUNT && r.path === '/v1/numbers'),
		POLL_WAIT_MS,
	);

beforeAll(async () => {
	credential = await relayCredential('e2e: watch account', 'sim-key-watch');
	// A trigger holds the account's webhook, so the Watch node has a webhook of this n8n to watch.
	const trigger = await api('POST', '/workflows', {
		name: 'e2e: watch (trigger)',
		nodes: [
			{
				id: 'watch-trigger',
				name: 'Relay Trigger',
				type: 'n8n-nodes-messaging-relay.messagingRelayTrigger',
				typeVersion: 1,
				position: [0, 0],
				webhookId: TRIGGER_WEBHOOK_ID,
				// Checks its registration every 5 s, so the test below sees it leave a foreign URL alone.
				parameters: { events: ['message.received'], options: { repairInterval: '5s' } },
				credentials: { messagingRelayApi: credential },
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
	});
	triggerWorkflowId = trigger.id as string;
	await api('POST', `/workflows/${triggerWorkflowId}/activate`);
	expect((await webhookOf())?.url).toEqual(registeredUrl(TRIGGER_WEBHOOK_ID));

	const example = exampleForSimulator('number-watch.json');
	const nodes = example.nodes.map((node) => ({
		...node,
		credentials: { messagingRelayApi: credential },
		...(node.type === 'n8n-nodes-messaging-relay.messagingRelayWatch'
			? {
					parameters: {
						...(node.parameters as IDataObject),
						pollTimes: { item: [{ mode: 'everyMinute' }] },
					},
				}
			: {}),
	}));
	const watch = await api('POST', '/workflows', {
		name: 'e2e: watch',
		nodes,
		connections: example.connections,
		settings: example.settings,
	});
	watchWorkflowId = watch.id as string;
	// Publishing runs the first poll: it records the state (num_old already needs relinking,
	// num_sales' phone is offline since days) and emits nothing.
	await api('POST', `/workflows/${watchWorkflowId}/activate`);
});

afterAll(async () => {
	await api('POST', `/workflows/${watchWorkflowId}/deactivate`).catch(() => undefined);
	await api('POST', `/workflows/${triggerWorkflowId}/deactivate`).catch(() => undefined);
	await sim('POST', '/numbers/update', { id: 'num_main', status: 'CONNECTED' });
});

test('a number marked CREDENTIALS: one execution, one item, and the operator gets the sentence', async () => {
	const since = Date.now();
	const sentBefore = (await messages()).length;
	await sim('POST', '/numbers/update', { id: 'num_main', status: 'CREDENTIALS' });
	const [run] = await finishedExecutions(watchWorkflowId, 1, POLL_WAIT_MS);
	expect(run.status).toBe('success');
	const items = nodeItems(run, 'Watch numbers and webhook');
	expect(items).toHaveLength(1);
	expect(items[0]).toMatchObject({
		change: 'number.status_changed',
		problem: true,
		numberId: 'num_main',
		before: { status: 'CONNECTED' },
		after: { status: 'CREDENTIALS' },
	});
	const alert = (await messages()).slice(sentBefore).find((m) => m.account === ACCOUNT);
	expect(alert).toMatchObject({ channelId: fromNumber, to: operatorPhone });
	expect(alert!.text).toBe(
		'Number "Support line" (+4915112345678) needs relinking: its status changed from CONNECTED to CREDENTIALS. Pair the phone again in the Messaging Relay dashboard; until then it sends and receives nothing.',
	);
	expect(
		(await simRequests(since)).filter((r) => r.account === ACCOUNT && r.path === '/v1/numbers')
			.length,
	).toBeGreaterThanOrEqual(1);
}, 150_000);

test('the webhook pointed elsewhere: an alert, and the trigger does not take it back', async () => {
	const since = Date.now();
	const sentBefore = (await messages()).length;
	await sim('POST', '/webhooks/point', {
		account: ACCOUNT,
		url: 'https://crm.example.com/relay-hook',
	});
	const runs = await finishedExecutions(watchWorkflowId, 2, POLL_WAIT_MS);
	expect(runs).toHaveLength(2);
	expect(runs[0].status).toBe('success');
	const items = nodeItems(runs[0], 'Watch numbers and webhook');
	expect(items).toEqual([
		expect.objectContaining({
			change: 'webhook.moved',
			problem: true,
			before: { state: 'ours', url: registeredUrl(TRIGGER_WEBHOOK_ID) },
			after: { state: 'elsewhere', url: 'https://crm.example.com/relay-hook' },
		}),
	]);
	expect(items[0].message).toMatch(
		/^The account's webhook now points at https:\/\/crm.example.com\/relay-hook, not at this n8n/,
	);
	// The operator got exactly that sentence, once, from the alert number.
	const alerts = await eventually(async () => {
		const sent = await alertsSince(sentBefore);
		return sent.length > 0 ? sent : undefined;
	});
	expect(alerts).toEqual(
		[{ account: ACCOUNT, channelId: fromNumber, to: operatorPhone, text: items[0].message }].map(
			(m) => expect.objectContaining(m),
		),
	);
	expect((await webhookOf())?.url).toBe('https://crm.example.com/relay-hook');
	const calls = (await simRequests(since)).filter(
		(r) => r.account === ACCOUNT && r.path === '/v1/webhook',
	);
	// The trigger looked (every 5 s) and left it alone.
	expect(calls.filter((r) => r.method === 'GET').length).toBeGreaterThan(2);
	expect(calls.filter((r) => r.method !== 'GET')).toEqual([]);
}, 150_000);

test('nothing changes: the next poll emits nothing', async () => {
	const executionsBefore = (await finishedExecutions(watchWorkflowId, 2)).length;
	const sentBefore = (await messages()).length;
	const since = Date.now();
	await nextPoll(since);
	// The poll has answered; give n8n a moment in case it were to start an execution.
	await sleep(3000);
	const runs = await finishedExecutions(watchWorkflowId, 2);
	expect(runs.length).toBe(executionsBefore);
	// The runs so far all succeeded, and no alert reached the operator.
	expect(runs.map((r) => r.status)).toEqual(runs.map(() => 'success'));
	expect(await alertsSince(sentBefore)).toEqual([]);
}, 150_000);
