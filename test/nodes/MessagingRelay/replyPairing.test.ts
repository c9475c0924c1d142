/**
 * Reply after an AI Agent: its input item is the agent's `{ output }`, not the trigger's item.
 * It finds the received message through n8n's item pairing (run in n8n-core's WorkflowExecute),
 * across one and several intermediate nodes, and sends the agent's answer by default.
 */
import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';

import { eventItem } from '../../../nodes/MessagingRelayTrigger/eventItem';
import type { RelayEvent } from '../../../nodes/shared/schemas/events';
import { inboundMessageEvent } from '../../fixtures/sampleItems';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { relayCredentials, relayNode } from '../../support/harness/n8nRuntime';
import {
	agentStandIn,
	chain,
	dropFields,
	plainNode,
	reverseItems,
	runWorkflow,
	triggerNodeFor,
} from '../../support/harness/workflowRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.reset());

const types = { agentStandIn, dropFields, reverseItems };

function received(chatId: string, text: string, channelId = 'num_main'): INodeExecutionData {
	const event = {
		...inboundMessageEvent,
		message: { ...inboundMessageEvent.message, id: `wamid.${chatId}`, chatId, channelId, text },
	};
	return { json: eventItem(event as unknown as RelayEvent) };
}

function replyNode(parameters: IDataObject = {}): INode {
	const node = relayNode({ resource: 'message', operation: 'reply', text: '', ...parameters });
	return { ...node, name: 'Reply', position: [600, 0] };
}

async function run(middle: string[], items: INodeExecutionData[], reply = replyNode()) {
	const trigger = triggerNodeFor();
	const nodes = [
		trigger,
		...middle.map((type, i) => plainNode(`${type} ${i + 1}`, type, 200 + i * 100)),
		reply,
	];
	const names = nodes.map((n) => n.name);
	return await runWorkflow(
		nodes,
		chain(...names),
		trigger.name,
		[items, []],
		relayCredentials(sim.baseUrl),
		types,
	);
}

describe('Reply finds its message through item pairing', () => {
	test('after one intermediate node (the agent): right chat, right number, the answer converted', async () => {
		const result = await run(
			['agentStandIn'],
			[received('4917611111111@c.us', 'Open today?', 'num_sales')],
		);
		expect(result.error).toBeUndefined();
		expect(sim.messages.map(({ channelId, to, text }) => ({ channelId, to, text }))).toEqual([
			{ channelId: 'num_sales', to: '4917611111111@c.us', text: '*Answer* to: Open today?' },
		]);
	});

	test('across several intermediate nodes, with items reordered on the way, each reply goes to its own chat', async () => {
		const result = await run(
			['agentStandIn', 'dropFields', 'reverseItems'],
			[
				received('491761000001@c.us', 'first'),
				received('491761000002@c.us', 'second'),
				received('491761000003@c.us', 'third'),
			],
		);
		expect(result.error).toBeUndefined();
		// reverseItems hands Reply the third answer first; pairing still leads each one home.
		expect(
			sim.messages
				.map(({ to, text }) => `${to} ← ${text}`)
				.sort()
				.reverse(),
		).toEqual([
			'491761000003@c.us ← *Answer* to: third',
			'491761000002@c.us ← *Answer* to: second',
			'491761000001@c.us ← *Answer* to: first',
		]);
		expect(result.output('Reply')!.map((item) => item.to)).toEqual([
			'491761000003@c.us',
			'491761000002@c.us',
			'491761000001@c.us',
		]);
	});

	test("a typed text wins over the agent's answer and goes out as written (WhatsApp style kept)", async () => {
		await run(
			['agentStandIn'],
			[received('4917612345678@c.us', 'hi')],
			replyNode({ text: 'Thanks! *We* will call you_back' }),
		);
		expect(sim.messages.map((m) => m.text)).toEqual(['Thanks! *We* will call you_back']);
	});

	test('Formatting "Send As Written" sends the agent\'s Markdown unchanged', async () => {
		await run(
			['agentStandIn'],
			[received('4917612345678@c.us', 'hi')],
			replyNode({ options: { formatting: 'asWritten' } }),
		);
		expect(sim.messages.map((m) => m.text)).toEqual(['**Answer** to: hi']);
	});

	test('Formatting "Convert Markdown to WhatsApp" converts a typed text too', async () => {
		await run(
			['agentStandIn'],
			[received('4917612345678@c.us', 'hi')],
			replyNode({ text: '**Yes**', options: { formatting: 'whatsapp' } }),
		);
		expect(sim.messages.map((m) => m.text)).toEqual(['*Yes*']);
	});

	test('directly after the trigger Reply still reads the item itself (no pairing needed)', async () => {
		await run([], [received('4917612345678@c.us', 'hi')], replyNode({ text: 'Hello **there**' }));
		expect(sim.messages.map(({ to, text }) => ({ to, text }))).toEqual([
			{ to: '4917612345678@c.us', text: 'Hello **there**' },
		]);
	});

	test('an empty Text with no agent answer says what to type', async () => {
		const result = await run([], [received('4917612345678@c.us', 'hi')]);
		expect(result.error?.message).toBe('The field "Text" is empty [item 0]');
		expect(result.error?.description).toMatch(/after an AI Agent/);
		expect(sim.messages).toEqual([]);
	});

	test('no originating message: the error says what to connect, and nothing is sent', async () => {
		// A start node that is not a Messaging Relay Trigger and whose items hold no message.
		const start = plainNode('Start', 'agentStandIn', 0);
		const reply = replyNode({ text: 'hi' });
		const result = await runWorkflow(
			[start, reply],
			chain('Start', 'Reply'),
			'Start',
			[[{ json: { note: 'no message here' } }]],
			relayCredentials(sim.baseUrl),
			types,
		);
		expect(result.error?.message).toBe(
			'The input item holds no received message to reply to [item 0]',
		);
		expect(result.error?.description).toMatch(/Connect this node after the trigger, or use Send/);
		expect(result.error?.description).toMatch(/none of them leads back/);
		expect(sim.messages).toEqual([]);
	});
});
