/**
 * The human-in-the-loop tool n8n generates for Send and Wait for Reply (n8n 2.41.1
 * `dist/tool-generation/hitl-tools.js`: a node with a `sendAndWait` operation and a webhook gets a
 * "…HitlTool" variant that gates another tool of an AI Agent). Here an assistant may send a refund
 * note only after a manager approves it from the phone: the tool call is asked as a WhatsApp
 * question to the manager, the run waits in n8n, and the manager's typed answer decides.
 * The chat model is the loopback stand-in (test/fixtures/openai-standin.ts), which calls the one
 * tool it is offered, then answers.
 */

import { receivedIn } from '../fixtures/events';
import { startOpenAiStandIn, type OpenAiStandIn } from '../fixtures/openai-standin';
import {
	api,
	eventually,
	executions,
	importExample,
	openAiCredential,
	relayCredential,
	report,
	simRequests,
	simulator,
	executionsSettled,
} from '../support/e2e';
import { exampleForSimulator } from '../support/examples';
import { deliver } from '../support/deliver';

const ACCOUNT = 'acct_wait_hitl';
const MANAGER = '4917600000077';
const REFUND_NOTE = 'Your refund is on its way.';

let model: OpenAiStandIn;
let workflowId: string;

beforeAll(async () => {
	model = await startOpenAiStandIn();
	const relay = await relayCredential(
		'Messaging Relay account with a manager',
		'sim-key-wait-hitl',
	);
	const openAi = await openAiCredential('OpenAI (stand-in, calls tools)', model.baseUrl);
	const nodes = exampleForSimulator('ai-assistant.json').nodes.filter(
		(n) => n.name !== 'Simple Memory',
	);
	const trigger = nodes.find((n) => n.name === 'On WhatsApp message')!;
	trigger.webhookId = '5d7f9b1c-0a01-4e5f-8a9b-7c6d5e4f3f01';
	trigger.parameters = { events: ['message.received'], options: { chatType: 'direct' } };
	const relayRef = { id: 'CREDENTIAL_ID', name: 'Messaging Relay account' };
	nodes.push(
		{
			id: '5d7f9b1c-0a01-4e5f-8a9b-7c6d5e4f3f02',
			name: 'Send refund note',
			type: 'n8n-nodes-messaging-relay.messagingRelayTool',
			typeVersion: 1,
			position: [200, 440],
			parameters: {
				resource: 'message',
				operation: 'send',
				channelId: { __rl: true, mode: 'id', value: 'num_main' },
				to: '+4917600000031',
				text: REFUND_NOTE,
			},
			credentials: { messagingRelayApi: relayRef },
		},
		{
			id: '5d7f9b1c-0a01-4e5f-8a9b-7c6d5e4f3f03',
			name: 'Ask the manager',
			type: 'n8n-nodes-messaging-relay.messagingRelayHitlTool',
			typeVersion: 1,
			position: [400, 220],
			webhookId: '5d7f9b1c-0a01-4e5f-8a9b-7c6d5e4f3f04',
			parameters: {
				waitTo: `+${MANAGER}`,
				waitChannelId: { __rl: true, mode: 'id', value: 'num_main' },
			},
			credentials: { messagingRelayApi: relayRef },
		},
	);
	const workflow = {
		name: 'assistant that asks a manager before a refund',
		nodes,
		connections: {
			'On WhatsApp message': { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': {
				ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
			},
			'Send refund note': { ai_tool: [[{ node: 'Ask the manager', type: 'ai_tool', index: 0 }]] },
			'Ask the manager': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
			'AI Agent': { main: [[{ node: 'Reply with the answer', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
	workflowId = await importExample(workflow as never, {
		messagingRelayApi: relay,
		openAiApi: openAi,
	});
	await api('POST', `/workflows/${workflowId}/activate`);
}, 120_000);

afterAll(async () => {
	if (workflowId) await api('POST', `/workflows/${workflowId}/deactivate`).catch(() => undefined);
	await model?.stop();
});

const deliverToAccount = (event: unknown) => deliver(simulator, event, { account: ACCOUNT });
const sentTo = async (digits: string, since: number) =>
	(await simRequests(since))
		.filter(
			(r) =>
				r.method === 'POST' &&
				r.path === '/v1/messages' &&
				r.account === ACCOUNT &&
				String(r.body.to).replace(/\D/g, '') === digits,
		)
		.map((r) => r.body.text as string);

test.each([
	['yes', true],
	['no', false],
])(
	'the tool call is asked to the manager on WhatsApp; the answer "%s" decides whether the tool runs',
	async (answer, runs) => {
		const since = Date.now();
		const customer = answer === 'yes' ? '4917600000031' : '4917600000032';
		await deliverToAccount(receivedIn(`${customer}@c.us`, { text: 'I want my money back' }));
		const question = await eventually(async () => (await sentTo(MANAGER, since))[0], 60_000);
		expect(question).toContain('The agent wants to run this tool');
		if (runs) report('hitl-question-to-the-manager', { question });
		await eventually(
			async () =>
				(await executions(workflowId)).some((e) => e.status === 'waiting') ? true : undefined,
			30_000,
		);
		expect(await sentTo('4917600000031', since)).toEqual([]);

		await deliverToAccount(receivedIn(`${MANAGER}@c.us`, { text: answer }));
		const done = await eventually(async () => {
			const list = await executions(workflowId);
			return list.length > 0 && list.every((e) => e.status === 'success' || e.status === 'error')
				? list
				: undefined;
		}, 60_000);
		expect(done.map((e) => e.status)).toEqual(['success']);
		await executionsSettled([workflowId]);
		expect((await executions(workflowId)).map((e) => e.status)).toEqual(['success']);
		const toCustomer = await sentTo(customer, since);
		if (runs) expect(toCustomer).toEqual([REFUND_NOTE, expect.stringContaining('Answer')]);
		else {
			expect(toCustomer).toEqual([expect.stringContaining('Answer')]);
			expect(await sentTo('4917600000031', since)).toEqual([]);
		}
		// The manager was asked once; the answer started no run of its own.
		expect(await sentTo(MANAGER, since)).toHaveLength(1);
		await api('DELETE', `/executions/${done[0].id}`).catch(() => undefined);
	},
	150_000,
);
