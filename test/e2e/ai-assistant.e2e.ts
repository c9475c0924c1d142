/**
 * The AI assistant example in the real n8n 2.41.1, with n8n's own AI Agent, OpenAI Chat Model
 * and Simple Memory: imported as a user imports it (only the credentials picked; the system
 * message is already in it), with the OpenAI credential's Base URL pointing at a loopback
 * stand-in for the model API, which records every request and answers deterministically.
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { sample, sentIn } from '../fixtures/events';
import { startOpenAiStandIn, type OpenAiStandIn } from '../fixtures/openai-standin';
import { deliver } from '../support/deliver';
import {
	api,
	eventually,
	finishedExecutions,
	importExample,
	nodeItems,
	openAiCredential,
	relayCredential,
	simRequests,
	simulator,
	executionsSettled,
} from '../support/e2e';
import { exampleForSimulator } from '../support/examples';

const example = exampleForSimulator('ai-assistant.json');

const ACCOUNT = 'acct_ai';
const SYSTEM_MESSAGE = (
	example.nodes.find((n) => n.name === 'AI Agent')!.parameters as {
		options: { systemMessage: string };
	}
).options.systemMessage;

let model: OpenAiStandIn;
let workflowId: string;
let since: number;

beforeAll(async () => {
	model = await startOpenAiStandIn();
	const relay = await relayCredential('Messaging Relay AI account', 'sim-key-ai');
	const openAi = await openAiCredential('OpenAI (loopback stand-in)', model.baseUrl);
	workflowId = await importExample(example, { messagingRelayApi: relay, openAiApi: openAi });
	await api('POST', `/workflows/${workflowId}/activate`);
});

afterAll(async () => {
	if (workflowId) await api('POST', `/workflows/${workflowId}/deactivate`).catch(() => undefined);
	await model?.stop();
});

let counter = 0;
function inbound(text: string, chatId: string, channelId = 'num_main') {
	const event = sample('message.received');
	counter += 1;
	Object.assign(event.message, {
		id: `wamid.ai-${counter}`,
		chatId,
		channelId,
		from: `+${chatId.split('@')[0]}`,
		text,
		timestamp: new Date(Date.UTC(2026, 10, 20, 10, 0, counter)).toISOString(),
	});
	return event;
}

const deliverToAccount = (event: unknown) => deliver(simulator, event, { account: ACCOUNT });

/** The messages this account sent since `from`, as the simulator received them. */
async function sentSince(from: number) {
	return (await simRequests(from))
		.filter((r) => r.method === 'POST' && r.path === '/v1/messages' && r.account === ACCOUNT)
		.map((r) => r.body as IDataObject);
}

async function waitForReplies(from: number, count: number) {
	return await eventually(async () => {
		const sent = await sentSince(from);
		return sent.length >= count ? sent : undefined;
	}, 60000);
}

describe('trigger → AI Agent (OpenAI Chat Model + Simple Memory) → Reply, nothing typed but the system message', () => {
	test('two messages of one chat: the second model request carries the first exchange; another chat starts fresh; replies go to the right chat and number, converted from Markdown', async () => {
		since = Date.now();
		const chatA = '4917611110001@c.us';
		const chatB = '4917622220002@c.us';

		expect((await deliverToAccount(inbound('Are you open on Sunday?', chatA))).status).toBe(200);
		await waitForReplies(since, 1);
		expect((await deliverToAccount(inbound('And on Saturday?', chatA))).status).toBe(200);
		await waitForReplies(since, 2);
		expect(
			(await deliverToAccount(inbound('Hello, a table for two?', chatB, 'num_sales'))).status,
		).toBe(200);
		const sent = await waitForReplies(since, 3);

		// The model saw the system message and, for the second message of chat A, the first exchange.
		expect(model.requests).toHaveLength(3);
		// OpenAI Chat Model 1.3 uses the Responses API by default, with the credential's key.
		expect(model.requests.map((r) => r.path)).toEqual([
			'/v1/responses',
			'/v1/responses',
			'/v1/responses',
		]);
		expect(model.requests[0].authorization).toBe('Bearer sk-standin-not-a-real-key');
		const [first, second, other] = model.requests.map((r) => r.messages);
		for (const conversation of [first, second, other]) {
			expect(
				conversation.find((m) => m.role === 'system' || m.role === 'developer')?.text,
			).toContain(SYSTEM_MESSAGE);
		}
		const turns = (conversation: typeof first) =>
			conversation.filter((m) => m.role === 'user' || m.role === 'assistant');
		expect(turns(first)).toEqual([{ role: 'user', text: 'Are you open on Sunday?' }]);
		expect(turns(second)).toEqual([
			{ role: 'user', text: 'Are you open on Sunday?' },
			{ role: 'assistant', text: '**Answer 1** to: Are you open on Sunday?' },
			{ role: 'user', text: 'And on Saturday?' },
		]);
		expect(turns(other)).toEqual([{ role: 'user', text: 'Hello, a table for two?' }]);

		// Each reply went to its chat, from the number that received the message, in WhatsApp style.
		expect(sent).toEqual([
			{ channelId: 'num_main', to: chatA, text: '*Answer 1* to: Are you open on Sunday?' },
			{ channelId: 'num_main', to: chatA, text: '*Answer 2* to: And on Saturday?' },
			{ channelId: 'num_sales', to: chatB, text: '*Answer 1* to: Hello, a table for two?' },
		]);

		const runs = await finishedExecutions(workflowId, 3);
		expect(runs.map((e) => e.status)).toEqual(['success', 'success', 'success']);
	});

	test('a burst of three messages within the quiet time: one agent run with all three texts, one reply', async () => {
		since = Date.now();
		model.reset();
		const before = (await finishedExecutions(workflowId, 0)).length;
		const chat = '4917633330003@c.us';
		const deliveries = [];
		for (const text of ['hi', 'we are 4 people', 'tonight at 8?']) {
			deliveries.push(deliverToAccount(inbound(text, chat)));
			// Paces the sender only: 400 ms apart, well inside the example's 3 s quiet time.
			await sleep(400);
		}
		const answers = await Promise.all(deliveries);
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);

		const sent = await waitForReplies(since, 1);
		// Every delivery was answered, so every run they start exists; once all have ended, nothing
		// else can be sent.
		await executionsSettled([workflowId]);
		expect(await sentSince(since)).toHaveLength(1);
		expect(sent[0]).toEqual({
			channelId: 'num_main',
			to: chat,
			text: '*Answer 1* to: hi\nwe are 4 people\ntonight at 8?',
		});
		expect(model.requests).toHaveLength(1);
		expect(model.requests[0].messages.filter((m) => m.role === 'user')).toEqual([
			{ role: 'user', text: 'hi\nwe are 4 people\ntonight at 8?' },
		]);

		const runs = await finishedExecutions(workflowId, before + 1);
		expect(runs).toHaveLength(before + 1);
		const item = nodeItems(runs[0], 'On WhatsApp message')[0];
		expect(item).toMatchObject({
			messageCount: 3,
			texts: ['hi', 'we are 4 people', 'tonight at 8?'],
			chatId: chat,
		});
	});

	test('a person answers from the phone: the assistant stays quiet in that chat (other chats are answered); "#bot" from the phone hands it back', async () => {
		since = Date.now();
		model.reset();
		const before = (await finishedExecutions(workflowId, 0)).length;
		const taken = '4917644440004@c.us';
		const other = '4917655550005@c.us';

		// The café owner writes to the guest from the phone (origin other than "api").
		expect(
			(await deliverToAccount(sentIn(taken, 'phone', 'Hi, this is Ada, I will help you myself')))
				.status,
		).toBe(200);
		const quiet = await deliverToAccount(inbound('Great, thanks! Table at 8?', taken));
		expect(quiet.status).toBe(200);
		expect(JSON.parse(quiet.body)).toEqual({
			received: true,
			ignored: 'chat paused: a person replied from the phone',
		});
		expect((await deliverToAccount(inbound('Do you have vegan cake?', other))).status).toBe(200);
		const sent = await waitForReplies(since, 1);
		expect(sent).toEqual([
			{ channelId: 'num_main', to: other, text: '*Answer 1* to: Do you have vegan cake?' },
		]);

		// The owner hands the chat back: the guest's next message is answered again.
		expect((await deliverToAccount(sentIn(taken, 'phone', '#bot'))).status).toBe(200);
		expect((await deliverToAccount(inbound('And a table for tomorrow?', taken))).status).toBe(200);
		const afterHandBack = await waitForReplies(since, 2);
		expect(afterHandBack[1]).toEqual({
			channelId: 'num_main',
			to: taken,
			text: '*Answer 1* to: And a table for tomorrow?',
		});
		await executionsSettled([workflowId]);
		expect(await sentSince(since)).toHaveLength(2);
		// The model was asked twice: never for the message that came while the chat was paused.
		expect(
			model.requests.map((r) => r.messages.filter((m) => m.role === 'user').at(-1)?.text),
		).toEqual(['Do you have vegan cake?', 'And a table for tomorrow?']);
		// The owner's messages and the paused message started no execution (the trigger selects message.received only).
		const runs = await finishedExecutions(workflowId, before + 2);
		expect(runs).toHaveLength(before + 2);
	});
});
