import { inboundMessageEvent, triggerMessageItem } from '../../fixtures/sampleItems';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { relayCredentials, relayNode, runActionNode } from '../../support/harness/n8nRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.reset());

const sendNode = (to: string, text = 'Hi there', channel = 'num_main', continueOnFail = false) =>
	relayNode(
		{
			resource: 'message',
			operation: 'send',
			channelId: { __rl: true, mode: 'list', value: channel },
			to,
			text,
		},
		{ continueOnFail },
	);

describe('Message → Send', () => {
	test('sends POST /v1/messages { channelId, to, text } and outputs the sent message', async () => {
		const { items, error } = await runActionNode(
			sendNode('+49 176 1234-5678'),
			relayCredentials(sim.baseUrl),
		);
		expect(error).toBeUndefined();
		expect(sim.requestsTo('POST', '/v1/messages').map((r) => r.body)).toEqual([
			{ channelId: 'num_main', to: '+4917612345678', text: 'Hi there' },
		]);
		expect(items).toHaveLength(1);
		expect(items![0].json).toMatchObject({
			id: 'msg_1',
			channelId: 'num_main',
			to: '+4917612345678',
			text: 'Hi there',
			status: 'PENDING',
		});
		expect(items![0].pairedItem).toEqual({ item: 0 });
	});

	test('a chat ID passes through as typed', async () => {
		await runActionNode(sendNode('120363025551234567@g.us'), relayCredentials(sim.baseUrl));
		expect(sim.messages.map((m) => m.to)).toEqual(['120363025551234567@g.us']);
	});

	test('the number can be given By ID', async () => {
		const node = sendNode('+4917612345678');
		node.parameters.channelId = { __rl: true, mode: 'id', value: 'num_sales' };
		await runActionNode(node, relayCredentials(sim.baseUrl));
		expect(sim.messages.map((m) => m.channelId)).toEqual(['num_sales']);
	});

	test.each([
		['bare', 'bare'],
		['{ data: ... }', 'data'],
	] as const)('reads a %s response body too', async (_label, shape) => {
		sim.shape = shape;
		const { items } = await runActionNode(
			sendNode('+4917612345678'),
			relayCredentials(sim.baseUrl),
		);
		expect(items![0].json).toMatchObject({ id: 'msg_1', status: 'PENDING', to: '+4917612345678' });
	});

	test('an empty response body still gives an item saying where the message went', async () => {
		sim.inject({ method: 'POST', path: '/v1/messages', status: 202, rawBody: '' });
		const { items, error } = await runActionNode(
			sendNode('+4917612345678'),
			relayCredentials(sim.baseUrl),
		);
		expect(error).toBeUndefined();
		expect(items![0].json).toEqual({
			channelId: 'num_main',
			to: '+4917612345678',
			text: 'Hi there',
		});
	});

	test('one request per input item, each output paired with its input', async () => {
		const node = relayNode({
			resource: 'message',
			operation: 'send',
			channelId: { __rl: true, mode: 'id', value: 'num_main' },
			to: '={{ $json.phone }}',
			text: '={{ "Hello " + $json.name }}',
		});
		const { items } = await runActionNode(node, relayCredentials(sim.baseUrl), [
			{ phone: '+4917600000001', name: 'Ada' },
			{ phone: '+4917600000002', name: 'Bob' },
		]);
		expect(sim.messages.map((m) => [m.to, m.text])).toEqual([
			['+4917600000001', 'Hello Ada'],
			['+4917600000002', 'Hello Bob'],
		]);
		expect(items!.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});

describe('Message → Reply (no typed expressions)', () => {
	const replyNode = (continueOnFail = false) =>
		relayNode(
			{ resource: 'message', operation: 'reply', text: 'Thanks, we are open until 6.' },
			{ continueOnFail },
		);

	test('answers the trigger item on its chatId from the number that received it', async () => {
		const { items, error } = await runActionNode(replyNode(), relayCredentials(sim.baseUrl), [
			triggerMessageItem,
		]);
		expect(error).toBeUndefined();
		expect(sim.requestsTo('POST', '/v1/messages').map((r) => r.body)).toEqual([
			{ channelId: 'num_main', to: '4917612345678@c.us', text: 'Thanks, we are open until 6.' },
		]);
		expect(items![0].json).toMatchObject({ channelId: 'num_main', chatId: '4917612345678@c.us' });
	});

	test("also answers a raw event body (message.chatId), as from n8n's Webhook node", async () => {
		await runActionNode(replyNode(), relayCredentials(sim.baseUrl), [inboundMessageEvent]);
		await runActionNode(replyNode(), relayCredentials(sim.baseUrl), [
			{ body: inboundMessageEvent },
		]);
		expect(sim.messages.map((m) => [m.channelId, m.to])).toEqual([
			['num_main', '4917612345678@c.us'],
			['num_main', '4917612345678@c.us'],
		]);
	});

	test('an item without a message is refused before any request, naming the item', async () => {
		const { error } = await runActionNode(replyNode(), relayCredentials(sim.baseUrl), [
			{ foo: 'bar' },
		]);
		expect(error?.message).toBe('The input item holds no received message to reply to [item 0]');
		expect(error?.description).toMatch(/Connect this node after the trigger, or use Send/);
		expect(sim.requests).toHaveLength(0);
	});
});

// n8n itself refuses a required field left blank; these are values that pass that check but
// are still unusable, most often an expression that maps a field the item does not have.
describe('parameters are checked before any request', () => {
	test.each([
		['empty text', sendNode('+4917612345678', '   '), 'The field "Text" is empty [item 0]'],
		[
			'recipient mapped from a missing field',
			sendNode('={{ $json.phone }}'),
			'The field "To" is empty [item 0]',
		],
		[
			'too short phone',
			sendNode('+49 123'),
			'The field "To" is not a valid phone number: "+49 123" [item 0]',
		],
		[
			'too long phone',
			sendNode('+1234567890123456'),
			'The field "To" is not a valid phone number: "+1234567890123456" [item 0]',
		],
		[
			'spaces in a chat ID',
			sendNode('my chat'),
			'The field "To" is neither a phone number nor a chat ID: "my chat" [item 0]',
		],
		[
			'number mapped from a missing field',
			sendNode('+4917612345678', 'hi', '={{ $json.channel }}'),
			'The field "From Number" is empty [item 0]',
		],
	])('%s', async (_label, node, message) => {
		const { error } = await runActionNode(node, relayCredentials(sim.baseUrl));
		expect(error?.message).toBe(message);
		expect(error?.name).toBe('NodeOperationError');
		expect(sim.requests).toHaveLength(0);
	});

	test('the failing item is named when it is not the first, and no item is sent', async () => {
		const node = relayNode({
			resource: 'message',
			operation: 'send',
			channelId: { __rl: true, mode: 'id', value: 'num_main' },
			to: '={{ $json.phone }}',
			text: 'hi',
		});
		const { error } = await runActionNode(node, relayCredentials(sim.baseUrl), [
			{ phone: '+4917600000001' },
			{ phone: '12' },
		]);
		expect(error?.message).toMatch(/\[item 1\]$/);
		// Every item is checked before the first request: a typo in one item sends none.
		expect(sim.messages).toHaveLength(0);
	});
});
