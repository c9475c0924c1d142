/**
 * Message → Send with several messages in flight: the limit holds, messages to one chat keep
 * their input order whatever the setting, and every output item stays paired with its input.
 * (How fast this is, is measured by `npm run bench`, not here.)
 */
import fc from 'fast-check';

import { DEFAULT_MESSAGES_IN_FLIGHT } from '../../../nodes/MessagingRelay/actions/message';
import { runChatOrdered } from '../../../nodes/MessagingRelay/chatOrderedPool';
import { triggerMessageItem } from '../../fixtures/sampleItems';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { relayCredentials, relayNode, runActionNode } from '../../support/harness/n8nRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.reset());

const send = (inFlight?: number) =>
	relayNode({
		resource: 'message',
		operation: 'send',
		channelId: { __rl: true, mode: 'id', value: 'num_main' },
		to: '={{ $json.to }}',
		text: '={{ $json.text }}',
		...(inFlight ? { options: { messagesInFlight: inFlight } } : {}),
	});

const distinctChats = (n: number) =>
	Array.from({ length: n }, (_, i) => ({
		to: `+4917600${String(i).padStart(5, '0')}`,
		text: `m${i}`,
	}));

/** Three messages to A, two to B, one to C, interleaved. */
const threeChatsInterleaved = [
	{ to: '+4917611111111', text: 'A1' },
	{ to: '+4917622222222', text: 'B1' },
	{ to: '+4917611111111', text: 'A2' },
	{ to: '+4917622222222', text: 'B2' },
	{ to: '+4917611111111', text: 'A3' },
	{ to: '+4917633333333', text: 'C1' },
];

// Each answer is held until one request more than the limit is in flight, or 1 s after it came: a
// node within the limit fills it and waits, however slowly a loaded machine sends (a fixed 40 ms
// latency raced the sending: 54 of 100 in flight under --detectOpenHandles), and one that sends
// more shows above it at once.
const holdAboveLimit = (limit: number) => {
	sim.holdUntilInFlight = limit + 1;
	sim.holdMaxMs = 1_000;
};

test.each([1, 4, 10])(
	'never more than %i messages in flight, and that many reached',
	async (limit) => {
		holdAboveLimit(limit);
		const { items } = await runActionNode(
			send(limit),
			relayCredentials(sim.baseUrl),
			distinctChats(2 * limit),
		);
		expect(items).toHaveLength(2 * limit);
		expect(sim.maxInFlight).toBe(limit);
	},
);

test(`the default is ${DEFAULT_MESSAGES_IN_FLIGHT} in flight`, async () => {
	holdAboveLimit(DEFAULT_MESSAGES_IN_FLIGHT);
	const { items } = await runActionNode(
		send(),
		relayCredentials(sim.baseUrl),
		distinctChats(2 * DEFAULT_MESSAGES_IN_FLIGHT),
	);
	expect(items).toHaveLength(2 * DEFAULT_MESSAGES_IN_FLIGHT);
	expect(sim.maxInFlight).toBe(DEFAULT_MESSAGES_IN_FLIGHT);
});

test('messages to the same chat go out in input order, one at a time, even when the first is slow', async () => {
	// The first message to chat A is slow; without per-chat ordering A2 and A3 would overtake it.
	sim.inject({
		method: 'POST',
		path: '/v1/messages',
		passThrough: true,
		delayMs: 300,
		whenBody: { text: 'A1' },
	});
	const input = threeChatsInterleaved;
	const { items } = await runActionNode(send(10), relayCredentials(sim.baseUrl), input);
	const order = (to: string) => sim.messages.filter((m) => m.to === to).map((m) => m.text);
	expect(order('+4917611111111')).toEqual(['A1', 'A2', 'A3']);
	expect(order('+4917622222222')).toEqual(['B1', 'B2']);
	// Other chats did not wait for the slow one.
	expect(sim.messages.findIndex((m) => m.text === 'C1')).toBeLessThan(
		sim.messages.findIndex((m) => m.text === 'A2'),
	);
	// Output: input order, paired.
	expect(items!.map((i) => i.json.text)).toEqual(input.map((i) => i.text));
	expect(items!.map((i) => i.pairedItem)).toEqual(input.map((_, item) => ({ item })));
});

test('replies to one chat keep their order too', async () => {
	sim.inject({ method: 'POST', path: '/v1/messages', passThrough: true, delayMs: 200 });
	const node = relayNode({
		resource: 'message',
		operation: 'reply',
		text: '={{ $json.reply }}',
		options: { messagesInFlight: 10 },
	});
	const input = ['first', 'second', 'third'].map((reply) => ({ ...triggerMessageItem, reply }));
	await runActionNode(node, relayCredentials(sim.baseUrl), input);
	expect(sim.messages.map((m) => m.text)).toEqual(['first', 'second', 'third']);
	expect(sim.maxInFlight).toBe(1);
});

test('without Continue On Fail, the first failure stops new sends and fails the node', async () => {
	sim.inject({
		method: 'POST',
		path: '/v1/messages',
		status: 400,
		body: { error: { code: 'VALIDATION_ERROR', message: 'bad' } },
	});
	const { error } = await runActionNode(send(1), relayCredentials(sim.baseUrl), distinctChats(5));
	expect(error?.message).toMatch(/refused POST \/v1\/messages \(400 VALIDATION_ERROR\)/);
	expect(sim.requestsTo('POST', '/v1/messages')).toHaveLength(1);
});

test('with one message in flight, messages to several chats go out exactly in input order', async () => {
	await runActionNode(send(1), relayCredentials(sim.baseUrl), threeChatsInterleaved);
	expect(sim.messages.map((m) => m.text)).toEqual(threeChatsInterleaved.map((i) => i.text));
});

describe('the scheduler itself (runChatOrdered), on random inputs', () => {
	// A few microtask turns: tasks finish in a different order than they started.
	const tick = async () => await Promise.resolve();

	test('every task runs once; per chat in input order; never more than the limit at once; limit 1 is input order', async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 120 }),
				fc.integer({ min: 1, max: 12 }),
				fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 20 }),
				async (chats, limit, delays) => {
					const tasks = chats.map((chat, position) => ({ key: `chat${chat}`, position }));
					const started: number[] = [];
					let running = 0;
					let most = 0;
					await runChatOrdered(tasks, limit, async (task) => {
						started.push(task.position);
						most = Math.max(most, ++running);
						for (let i = 0; i < delays[task.position % delays.length]; i++) await tick();
						running--;
						return true;
					});
					expect([...started].sort((a, b) => a - b)).toEqual(tasks.map((t) => t.position));
					for (const key of new Set(tasks.map((t) => t.key))) {
						const order = started.filter((p) => tasks[p].key === key);
						expect(order).toEqual([...order].sort((a, b) => a - b));
					}
					expect(most).toBeLessThanOrEqual(limit);
					if (limit === 1) expect(started).toEqual(tasks.map((t) => t.position));
				},
			),
			{ numRuns: 200 },
		);
	});
});
