/**
 * The Messaging Relay Watch node in the real n8n: examples/number-watch.json published on two
 * simulator accounts, each with a published trigger holding its webhook. On acct_watch a number
 * is marked CREDENTIALS; on acct_watch_moved the webhook is pointed elsewhere. Each workflow must
 * alert the operator once with the change it saw (its items, its run's status, what reached the
 * operator at the simulator), and its next poll must emit nothing.
 *
 * n8n refuses Poll Times that fire more than once a minute ("The polling interval is too short.
 * It has to be at least a minute.", n8n-core active-workflow-triggers.js:170-172 on 2.41.1,
 * active-workflows.js:98-101 on 1.123.81); a custom cron with one fixed second passes both. The
 * suite picks that second about 20 s ahead and makes both changes before it, so both workflows
 * see their change in the same poll and the quiet poll a minute later: about 1.5 minutes instead of
 * three polls one after the other (Every Minute fires at a random second: about 3 minutes).
 * Numbers are the simulator's, shared by every account: acct_watch_moved's workflow is published
 * after num_main changed, so its first poll has only the webhook to report.
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
const MOVED_ACCOUNT = 'acct_watch_moved';
const MOVED_TRIGGER_WEBHOOK_ID = '7c3e9a10-2b4d-4e5f-8a6b-9c0d1e2f3a4c';
const POLL_WAIT_MS = 100_000;
/** How far ahead of the setup the poll's second is chosen: the setup takes a few seconds. */
const POLL_LEAD_MS = 20_000;

/** A trigger and a Watch workflow on one account. */
interface Watched {
	account: string;
	triggerWorkflowId: string;
	watchWorkflowId: string;
}
let watched: Watched;
let moved: Watched;
/** When the setup began, when acct_watch_moved's webhook was pointed elsewhere, and what the simulator had sent by then. */
let setupAt: number;
let movedAt: number;
let sentBeforeChanges: number;

interface SimMessage {
	account: string;
	channelId: string;
	to: string;
	text: string;
}
const messages = async () =>
	((await sim('GET', '/state')).messages as unknown as SimMessage[]) ?? [];
/** The alerts an account sent the operator after the first `before` messages of the simulator. */
const alertsSince = async (before: number, account = ACCOUNT) =>
	(await messages()).slice(before).filter((m) => m.account === account);
const webhookOf = async (account: string) =>
	((await sim('GET', '/webhooks')) as Record<string, { url: string } | null>)[account];

/** Resolves once the account's Watch workflow has polled (GET /v1/numbers) after `since`. */
const nextPoll = async (since: number, account: string) =>
	await eventually(
		async () =>
			(await simRequests(since)).find((r) => r.account === account && r.path === '/v1/numbers'),
		POLL_WAIT_MS,
	);

/**
 * Publishes a trigger holding the account's webhook (checking its registration every 5 s, so the
 * suite sees it leave a foreign URL alone), then the Watch example polling once a minute at `second`.
 * Publishing runs the first poll: it records the state and emits nothing.
 */
async function watchAccount(
	account: string,
	apiKey: string,
	triggerWebhookId: string,
	second: number,
): Promise<Watched> {
	const credential = await relayCredential(`e2e: watch ${account}`, apiKey);
	const trigger = await api('POST', '/workflows', {
		name: `e2e: watch (trigger) ${account}`,
		nodes: [
			{
				id: 'watch-trigger',
				name: 'Relay Trigger',
				type: 'n8n-nodes-messaging-relay.messagingRelayTrigger',
				typeVersion: 1,
				position: [0, 0],
				webhookId: triggerWebhookId,
				parameters: { events: ['message.received'], options: { repairInterval: '5s' } },
				credentials: { messagingRelayApi: credential },
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
	});
	const triggerWorkflowId = trigger.id as string;
	await api('POST', `/workflows/${triggerWorkflowId}/activate`);
	expect((await webhookOf(account))?.url).toEqual(registeredUrl(triggerWebhookId));

	const example = exampleForSimulator('number-watch.json');
	const nodes = example.nodes.map((node) => ({
		...node,
		credentials: { messagingRelayApi: credential },
		...(node.type === 'n8n-nodes-messaging-relay.messagingRelayWatch'
			? {
					parameters: {
						...(node.parameters as IDataObject),
						pollTimes: { item: [{ mode: 'custom', cronExpression: `${second} * * * * *` }] },
					},
				}
			: {}),
	}));
	const watch = await api('POST', '/workflows', {
		name: `e2e: watch ${account}`,
		nodes,
		connections: example.connections,
		settings: example.settings,
	});
	const watchWorkflowId = watch.id as string;
	await api('POST', `/workflows/${watchWorkflowId}/activate`);
	return { account, triggerWorkflowId, watchWorkflowId };
}

beforeAll(async () => {
	setupAt = Date.now();
	const second = new Date(setupAt + POLL_LEAD_MS).getSeconds();
	sentBeforeChanges = (await messages()).length;
	// acct_watch records num_main CONNECTED (num_old already needs relinking, num_sales' phone is
	// offline since days: recorded, not reported), then num_main is marked CREDENTIALS.
	watched = await watchAccount(ACCOUNT, 'sim-key-watch', TRIGGER_WEBHOOK_ID, second);
	await sim('POST', '/numbers/update', { id: 'num_main', status: 'CREDENTIALS' });
	// acct_watch_moved records num_main CREDENTIALS and its webhook as ours, then it is moved.
	moved = await watchAccount(
		MOVED_ACCOUNT,
		'sim-key-watch-moved',
		MOVED_TRIGGER_WEBHOOK_ID,
		second,
	);
	movedAt = Date.now();
	await sim('POST', '/webhooks/point', {
		account: MOVED_ACCOUNT,
		url: 'https://crm.example.com/relay-hook',
	});
}, 60_000);

afterAll(async () => {
	for (const { watchWorkflowId, triggerWorkflowId } of [watched, moved].filter(Boolean)) {
		await api('POST', `/workflows/${watchWorkflowId}/deactivate`).catch(() => undefined);
		await api('POST', `/workflows/${triggerWorkflowId}/deactivate`).catch(() => undefined);
	}
	await sim('POST', '/numbers/update', { id: 'num_main', status: 'CONNECTED' });
});

test('a number marked CREDENTIALS: one execution, one item, and the operator gets the sentence', async () => {
	const [run] = await finishedExecutions(watched.watchWorkflowId, 1, POLL_WAIT_MS);
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
	const alert = await eventually(async () => (await alertsSince(sentBeforeChanges))[0]);
	expect(alert).toMatchObject({ channelId: fromNumber, to: operatorPhone });
	expect(alert.text).toBe(
		'Number "Support line" (+4915112345678) needs relinking: its status changed from CONNECTED to CREDENTIALS. Pair the phone again in the Messaging Relay dashboard; until then it sends and receives nothing.',
	);
	expect(
		(await simRequests(setupAt)).filter((r) => r.account === ACCOUNT && r.path === '/v1/numbers')
			.length,
	).toBeGreaterThanOrEqual(1);
}, 150_000);

test('the webhook pointed elsewhere: an alert, and the trigger does not take it back', async () => {
	const runs = await finishedExecutions(moved.watchWorkflowId, 1, POLL_WAIT_MS);
	expect(runs).toHaveLength(1);
	expect(runs[0].status).toBe('success');
	const items = nodeItems(runs[0], 'Watch numbers and webhook');
	expect(items).toEqual([
		expect.objectContaining({
			change: 'webhook.moved',
			problem: true,
			before: { state: 'ours', url: registeredUrl(MOVED_TRIGGER_WEBHOOK_ID) },
			after: { state: 'elsewhere', url: 'https://crm.example.com/relay-hook' },
		}),
	]);
	expect(items[0].message).toMatch(
		/^The account's webhook now points at https:\/\/crm.example.com\/relay-hook, not at this n8n/,
	);
	// The operator got exactly that sentence, once, from the alert number.
	const alerts = await eventually(async () => {
		const sent = await alertsSince(sentBeforeChanges, MOVED_ACCOUNT);
		return sent.length > 0 ? sent : undefined;
	});
	expect(alerts).toEqual(
		[
			{ account: MOVED_ACCOUNT, channelId: fromNumber, to: operatorPhone, text: items[0].message },
		].map((m) => expect.objectContaining(m)),
	);
	expect((await webhookOf(MOVED_ACCOUNT))?.url).toBe('https://crm.example.com/relay-hook');
	// The trigger looked (every 5 s) and left it alone.
	const calls = async () =>
		(await simRequests(movedAt)).filter(
			(r) => r.account === MOVED_ACCOUNT && r.path === '/v1/webhook',
		);
	await eventually(
		async () => (await calls()).filter((r) => r.method === 'GET').length > 2,
		30_000,
	);
	expect((await calls()).filter((r) => r.method === 'GET').length).toBeGreaterThan(2);
	expect((await calls()).filter((r) => r.method !== 'GET')).toEqual([]);
	expect((await webhookOf(MOVED_ACCOUNT))?.url).toBe('https://crm.example.com/relay-hook');
}, 150_000);

test('nothing changes: the next poll emits nothing', async () => {
	const sentBefore = (await messages()).length;
	const since = Date.now();
	for (const { account, watchWorkflowId } of [watched, moved]) {
		const executionsBefore = (await finishedExecutions(watchWorkflowId, 1)).length;
		await nextPoll(since, account);
		// The poll has answered; give n8n a moment in case it were to start an execution. Absence
		// has no signal: a poll that emits nothing saves nothing (no execution, no static data).
		await sleep(3000);
		const runs = await finishedExecutions(watchWorkflowId, 1);
		expect(runs.length).toBe(executionsBefore);
		// The runs so far all succeeded, and no alert reached the operator.
		expect(runs.map((r) => r.status)).toEqual(runs.map(() => 'success'));
		expect(await alertsSince(sentBefore, account)).toEqual([]);
	}
}, 150_000);
