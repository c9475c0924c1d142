/**
 * Message → Pause Automatic Replies and Resume Automatic Replies in the real n8n
 * (docs/design/durability-and-conversations.md §5a): two trigger workflows on one account (a
 * logger of every event, published first so it holds the account's webhook, and an assistant with
 * Pause When a Person Replies), and the action node run by a workflow of n8n's own Webhook node,
 * as a user's "hand over to a person" flow would run it. The pause reaches the assistant as a
 * signed hand-off through n8n's webhook server, the service's deliveries then meet it.
 */
import type { IDataObject } from 'n8n-workflow';

import { pausesInStaticData } from '../../nodes/MessagingRelayTrigger/chatPause';
import type { WebhookState } from '../../nodes/shared/sharedWebhook/webhookState';
import { ADA_CHAT, GRACE_CHAT, receivedIn, sentIn } from '../fixtures/events';
import {
	api,
	finishedExecutions,
	info,
	n8n,
	nodeItems,
	relayCredential,
	simulator,
	triggerWorkflow,
} from '../support/e2e';
import { createWorkflow, NODE_TYPES, type CredentialRef } from '../support/workflows';
import { deliver } from '../support/deliver';

const ACCOUNT = 'acct_ops';
const API_KEY = 'sim-key-ops';
const pauseOption = {
	pauseWhenPersonReplies: { settings: { minutes: 30, keyword: '#bot', apiOrigins: 'api' } },
};

const published: string[] = [];
async function publish(workflowId: string) {
	await api('POST', `/workflows/${workflowId}/activate`);
	published.push(workflowId);
}

/** A workflow: n8n's Webhook node at /webhook/<path>, answering with the action node's output item. */
async function actionBehindWebhook(
	path: string,
	parameters: IDataObject,
	credential: CredentialRef,
) {
	return await createWorkflow(n8n, {
		name: `e2e: ${path}`,
		nodes: [
			{
				id: 'hook',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: `0e2e0000-0000-4000-8000-${path === 'relay-e2e-pause' ? '000000000001' : '000000000002'}`,
				parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', options: {} },
			},
			{
				id: 'action',
				name: 'Automatic Replies',
				type: NODE_TYPES.action,
				typeVersion: 1,
				position: [240, 0],
				parameters: { resource: 'message', ...parameters },
				credentials: { messagingRelayApi: credential },
			},
		],
		connections: { Webhook: { main: [[{ node: 'Automatic Replies', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	});
}

async function call(path: string): Promise<{ status: number; body: IDataObject }> {
	const response = await fetch(`${info.n8nUrl}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: '{}',
	});
	const text = await response.text();
	return { status: response.status, body: (text ? JSON.parse(text) : {}) as IDataObject };
}

/** Delivered to the account, answered 200. */
const deliverToAccount = async (event: object) =>
	void (await deliver(simulator, event, { account: ACCOUNT, status: 200 }));

/** The chats of the messages a workflow ran, oldest first. */
async function chatsRun(workflowId: string, count: number): Promise<string[]> {
	const runs = await finishedExecutions(workflowId, count);
	expect(runs.map((r) => r.status)).toEqual(runs.map(() => 'success'));
	return runs
		.map((run) => JSON.stringify(nodeItems(run, 'Relay Trigger')[0] ?? {}))
		.map((item) =>
			item.includes(ADA_CHAT) ? 'ada' : item.includes(GRACE_CHAT) ? 'grace' : 'other',
		)
		.reverse();
}

let logger = '';
let assistant = '';

beforeAll(async () => {
	({ workflowId: logger } = await triggerWorkflow({
		name: 'e2e: replies logger',
		apiKey: API_KEY,
		webhookId: '0e2e0000-0000-4000-8000-00000000000a',
		events: ['*'],
	}));
	({ workflowId: assistant } = await triggerWorkflow({
		name: 'e2e: replies assistant',
		apiKey: API_KEY,
		webhookId: '0e2e0000-0000-4000-8000-00000000000b',
		events: ['message.received'],
		options: pauseOption,
	}));
	const credential = await relayCredential('e2e: automatic replies account', API_KEY);
	const pause = await actionBehindWebhook(
		'relay-e2e-pause',
		{ operation: 'pauseReplies', chat: ADA_CHAT, pauseMinutes: 60 },
		credential,
	);
	const resume = await actionBehindWebhook(
		'relay-e2e-resume',
		{ operation: 'resumeReplies', chat: ADA_CHAT },
		credential,
	);
	for (const id of [logger, assistant, pause, resume]) await publish(id);
});

afterAll(async () => {
	for (const id of published)
		await api('POST', `/workflows/${id}/deactivate`).catch(() => undefined);
});

test('a paused chat stops in the workflow with Pause When a Person Replies, not in the other; resuming starts it again', async () => {
	const paused = await call('relay-e2e-pause');
	expect(paused).toEqual({
		status: 200,
		body: { chatId: ADA_CHAT, automaticReplies: 'paused', until: expect.any(String), workflows: 1 },
	});
	expect(Date.parse(paused.body.until as string) - Date.now()).toBeGreaterThan(59 * 60_000);

	await deliverToAccount(receivedIn(ADA_CHAT, { text: 'during the pause' }));
	await deliverToAccount(receivedIn(GRACE_CHAT, { text: 'another chat' }));
	expect(await chatsRun(logger, 2)).toEqual(['ada', 'grace']);
	expect(await chatsRun(assistant, 1)).toEqual(['grace']);

	const resumed = await call('relay-e2e-resume');
	expect(resumed).toEqual({
		status: 200,
		body: { chatId: ADA_CHAT, automaticReplies: 'resumed', until: null, workflows: 1 },
	});
	await deliverToAccount(receivedIn(ADA_CHAT, { text: 'after the pause' }));
	expect(await chatsRun(assistant, 2)).toEqual(['grace', 'ada']);
	expect(await chatsRun(logger, 3)).toEqual(['ada', 'grace', 'ada']);
});

test("a person's message that a workflow also runs (it selects message.sent): its pause is saved in n8n, not only in memory, and holds", async () => {
	// n8n saves nothing a trigger wrote in a request that also started its run; the trigger sends
	// the pause to its own URL, a request of its own (docs/design/account-state.md).
	const { workflowId: watcher } = await triggerWorkflow({
		name: 'e2e: replies watcher',
		apiKey: API_KEY,
		webhookId: '0e2e0000-0000-4000-8000-00000000000c',
		events: ['message.sent', 'message.received'],
		options: pauseOption,
	});
	await publish(watcher);
	const chat = '4917798765432@c.us';
	await deliverToAccount(sentIn(chat, 'phone', 'I will take this one'));
	const [run] = await finishedExecutions(watcher, 1);
	expect(run.status).toBe('success');
	const workflow = (await api('GET', `/workflows/${watcher}`)) as {
		staticData?: Record<string, WebhookState> | null;
	};
	const pause = pausesInStaticData(Object.values(workflow.staticData ?? {})[0] ?? {})[chat];
	expect(pause).toBeDefined();
	expect(pause.until - pause.at).toBe(30 * 60_000);

	await deliverToAccount(receivedIn(chat, { text: 'hello?' }));
	await deliverToAccount(receivedIn(GRACE_CHAT, { text: 'another chat' }));
	const runs = await finishedExecutions(watcher, 2);
	expect(
		runs
			.map((r) => JSON.stringify(nodeItems(r, 'Relay Trigger')[0] ?? {}))
			.some((item) => item.includes('hello?')),
	).toBe(false);
});
