import type { INodeParameters } from 'n8n-workflow';

import {
	futureEvent,
	groupMessage,
	imageWithCaption,
	reactionRemoved,
	sample,
	sampleEventTypes,
	v1MessageReceived,
	withExtraFields,
} from '../../fixtures/events';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { TriggerHarness } from '../../support/harness/triggerRuntime';
import {
	coreLogger,
	relayCredentials,
	relayNode,
	runActionNode,
} from '../../support/harness/n8nRuntime';

let sim: RelaySimulator;
let harness: TriggerHarness;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
afterEach(async () => await harness?.stop());

async function published(parameters: INodeParameters) {
	sim.reset();
	harness = await TriggerHarness.start(sim, parameters);
	await harness.activate();
	return harness;
}

describe('every event type of the catalogue', () => {
	test('there are sixteen sample events, one per type, and the node offers exactly those', async () => {
		expect(sampleEventTypes).toHaveLength(16);
		await published({ events: ['*'] });
		const offered = harness.trigger.description.properties
			.find((p) => p.name === 'events')!
			.options!.map((o) => (o as { value: string }).value);
		expect(offered).toEqual(['*', ...sampleEventTypes]);
	});

	test.each(sampleEventTypes)(
		'%s: one item with type, occurredAt and the payload as delivered',
		async (type) => {
			await published({ events: [type] });
			const event = sample(type);
			const result = await sim.deliver(event);
			expect(result.status).toBe(200);
			expect(JSON.parse(result.body)).toEqual({ received: true });
			expect(harness.runs).toHaveLength(1);
			const [run] = harness.runs;
			expect(run.invalid).toEqual([]);
			expect(run.events).toHaveLength(1);
			expect(run.events[0]).toMatchObject({ type, occurredAt: '2026-11-20T09:30:00.000Z', event });
		},
	);
});

describe('output shape per family', () => {
	test('message events: text, chatId, channelId, sender and whether it came from a group', async () => {
		await published({ events: ['message.received'] });
		await sim.deliver(sample('message.received'));
		const item = harness.runs[0].events[0];
		expect(item).toEqual({
			type: 'message.received',
			occurredAt: '2026-11-20T09:30:00.000Z',
			channelId: 'num_main',
			chatId: '4917612345678@c.us',
			messageId: 'wamid.HBgM001',
			text: 'Hello, are you open today?',
			chatInput: 'Hello, are you open today?',
			sessionId: 'num_main:4917612345678@c.us',
			from: '+4917612345678',
			senderName: 'Ada Lovelace',
			messageType: 'text',
			status: 'DELIVERED',
			isGroup: false,
			group: null,
			author: null,
			by: null,
			reason: null,
			origin: null,
			event: sample('message.received'),
		});
	});

	test('group events: group chat, member and who acted', async () => {
		await published({ events: ['group.member_left', 'group.updated'] });
		await sim.deliver(sample('group.member_left'));
		await sim.deliver(sample('group.updated'));
		expect(harness.runs[0].events[0]).toMatchObject({
			channelId: 'num_main',
			chatId: '120363025551234567@g.us',
			groupName: 'Opening hours team',
			memberPhone: '+4917699999999',
			memberName: 'Grace Hopper',
			removed: true,
			by: '+4915112345678',
		});
		// The reduced chat of group.updated has no channelId or name: subject is the new name.
		expect(harness.runs[1].events[0]).toMatchObject({
			channelId: null,
			chatId: '120363025551234567@g.us',
			groupName: 'Opening hours (summer)',
			subject: 'Opening hours (summer)',
		});
	});

	test('number events: which number, its status, whether the phone is online, and the reason', async () => {
		await published({ events: ['number.disconnected', 'number.history_synced'] });
		await sim.deliver(sample('number.disconnected'));
		await sim.deliver(sample('number.history_synced'));
		expect(harness.runs[0].events[0]).toMatchObject({
			type: 'number.disconnected',
			channelId: 'num_main',
			numberName: 'Support line',
			status: 'CREDENTIALS',
			phoneOnline: false,
			reason: 'SESSION_EXPIRED',
		});
		expect(harness.runs[1].events[0]).toMatchObject({ counts: { chats: 12, messages: 348 } });
	});
});

describe('the variants the spec singles out', () => {
	test('the v1 message.received (seven fields, no occurredAt) still parses', async () => {
		await published({ events: ['message.received'] });
		expect((await sim.deliver(v1MessageReceived)).status).toBe(200);
		expect(harness.runs[0].events[0]).toMatchObject({
			type: 'message.received',
			occurredAt: null,
			text: 'Hi from 2024',
			chatId: '4917612345678@c.us',
			messageType: null,
			isGroup: false,
		});
	});

	test('a group message is a message.received with group and author set', async () => {
		await published({ events: ['message.received'] });
		await sim.deliver(groupMessage());
		expect(harness.runs[0].events[0]).toMatchObject({
			isGroup: true,
			chatId: '120363025551234567@g.us',
			group: { id: '120363025551234567@g.us', name: 'Opening hours team' },
			author: { phone: '+4917612345678', name: 'Ada Lovelace' },
		});
	});

	test('an image with a caption: the caption is in text', async () => {
		await published({ events: ['message.received'] });
		await sim.deliver(imageWithCaption());
		expect(harness.runs[0].events[0]).toMatchObject({
			messageType: 'image',
			text: 'Our new shop window',
		});
	});

	test('a reaction removal is message.reaction with emoji null', async () => {
		await published({ events: ['message.reaction'] });
		await sim.deliver(reactionRemoved());
		expect(harness.runs[0].events[0]).toMatchObject({
			emoji: null,
			removed: true,
			by: '+4917612345678',
		});
	});

	test('unknown fields pass through into event', async () => {
		await published({ events: ['message.received'] });
		await sim.deliver(withExtraFields());
		expect(harness.runs[0].events[0].event).toMatchObject({
			deliveryId: 'dlv_123',
			message: { forwarded: true, mentions: ['+4915112345678'] },
		});
	});

	test('values outside the listed ones (type, status, role, kind, origin, reason) are accepted', async () => {
		await published({ events: ['*'] });
		const sent = sample('message.sent');
		sent.message.type = 'sticker';
		sent.message.status = 'QUEUED_FOR_SOMETHING_NEW';
		sent.message.origin = 'whatsapp_web';
		const joined = sample('group.member_joined');
		joined.chat.kind = 'community';
		joined.chat.members[0].role = 'admin';
		const disconnected = sample('number.disconnected');
		disconnected.reason = 'BANNED';
		disconnected.number.status = 'SUSPENDED_BY_NETWORK';
		for (const event of [sent, joined, disconnected])
			expect((await sim.deliver(event)).status).toBe(200);
		expect(harness.runs.map((r) => [r.events.length, r.invalid.length])).toEqual([
			[1, 0],
			[1, 0],
			[1, 0],
		]);
	});

	test('a future event type starts nothing unless All Events is chosen, then it is emitted as received', async () => {
		await published({ events: ['message.received'] });
		expect(await sim.deliver(futureEvent)).toMatchObject({ status: 200 });
		expect(harness.runs).toHaveLength(0);
		await harness.stop();
		await published({ events: ['*'] });
		await sim.deliver(futureEvent);
		expect(harness.runs[0].events[0]).toEqual({
			type: 'call.missed',
			occurredAt: '2026-11-20T09:30:00.000Z',
			event: futureEvent,
		});
	});
});

describe('an event that does not match its schema is acknowledged and shown, never lost', () => {
	test('it goes out on the "Invalid Events" output with what is wrong', async () => {
		await published({ events: ['message.received'] });
		const broken = sample('message.received') as unknown as { message: Record<string, unknown> };
		delete broken.message.chatId;
		broken.message.timestamp = 42;
		const result = await sim.deliver(broken);
		expect(result.status).toBe(200);
		expect(harness.runs).toHaveLength(1);
		expect(harness.runs[0].events).toEqual([]);
		expect(harness.runs[0].invalid).toEqual([
			{
				type: 'message.received',
				problems: [
					'message.chatId: Required',
					'message.timestamp: Expected string, received number',
				],
				event: broken,
			},
		]);
	});
});

describe('secrets', () => {
	test.each([
		['wrong', 'whsec_' + 'x'.repeat(48)],
		['wrong length', 'whsec_short'],
		['empty', ''],
	])('a %s secret gets 401 and starts nothing', async (_label, secret) => {
		await published({ events: ['*'] });
		const result = await sim.deliver(sample('message.received'), { secret });
		expect(result.status).toBe(401);
		expect(JSON.parse(result.body)).toEqual({ error: 'Invalid or missing x-service-secret' });
		expect(harness.runs).toHaveLength(0);
	});

	test('a missing header gets 401 and starts nothing', async () => {
		await published({ events: ['*'] });
		const result = await sim.deliver(sample('message.received'), { secret: null });
		expect(result.status).toBe(401);
		expect(harness.runs).toHaveLength(0);
	});

	test("the holder keeps only a digest of the service's secret; one kept in clear by an earlier version still works and is replaced by its digest", async () => {
		await published({ events: ['*'] });
		const secret = sim.webhook!.secret;
		expect(JSON.stringify(harness.stored)).not.toContain(secret);
		// As an earlier version left it: the secret in clear, no digest.
		delete harness.stored.webhookSecretDigest;
		delete harness.stored.webhookSecretLength;
		harness.stored.webhookSecret = secret;
		expect((await sim.deliver(sample('message.received'))).status).toBe(200);
		expect(harness.stored.webhookSecret).toBeUndefined();
		expect(harness.stored.webhookSecretDigest).toMatch(/^[0-9a-f]{64}$/);
		expect(JSON.stringify(harness.stored)).not.toContain(secret);
		expect(
			(await sim.deliver(sample('message.received'), { secret: `${secret.slice(0, -1)}x` })).status,
		).toBe(401);
		expect((await sim.deliver(sample('message.received'))).status).toBe(200);
	});

	test('the secret of an older registration no longer works', async () => {
		await published({ events: ['*'] });
		const old = sim.webhook!.secret;
		delete harness.stored.webhookSecretDigest;
		await harness.activate();
		expect((await sim.deliver(sample('message.received'), { secret: old })).status).toBe(401);
		expect((await sim.deliver(sample('message.received'))).status).toBe(200);
	});

	test('before the secret is stored (a race with registration): 503 with Retry-After', async () => {
		sim.reset();
		harness = await TriggerHarness.start(sim, { events: ['*'] });
		const response = await fetch(harness.productionUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'x-service-secret': 'whsec_anything' },
			body: JSON.stringify(sample('message.received')),
		});
		expect(response.status).toBe(503);
		expect(response.headers.get('retry-after')).toBe('5');
		expect(harness.runs).toHaveLength(0);
	});

	test('the secret never appears in an item or a response body', async () => {
		await published({ events: ['*'] });
		const secret = sim.webhook!.secret;
		await sim.deliver(sample('message.received'));
		await sim.deliver(futureEvent);
		await sim.deliver({ type: 'message.received', message: {} });
		await sim.deliver(sample('message.received'), { secret: secret + 'x' });
		expect(JSON.stringify(harness.runs)).not.toContain(secret);
		expect(JSON.stringify(sim.deliveries)).not.toContain(secret);
	});
});

describe('filters', () => {
	test('an unselected event type is acknowledged with 200 and starts nothing', async () => {
		await published({ events: ['message.received'] });
		const result = await sim.deliver(sample('number.phone_offline'));
		expect(result.status).toBe(200);
		expect(JSON.parse(result.body)).toEqual({ received: true, ignored: 'event type not selected' });
		expect(harness.runs).toHaveLength(0);
	});

	test('Only Numbers keeps events of the chosen numbers (message, group and number events)', async () => {
		await published({ events: ['*'], options: { channelIds: 'num_sales, num_main' } });
		const other = sample('message.received');
		other.message.channelId = 'num_old';
		const otherNumber = sample('number.phone_offline');
		otherNumber.number.id = 'num_old';
		for (const event of [
			sample('message.received'),
			other,
			sample('group.member_joined'),
			otherNumber,
			sample('number.phone_offline'),
		]) {
			await sim.deliver(event);
		}
		expect(harness.runs.map((r) => r.events[0].type)).toEqual([
			'message.received',
			'group.member_joined',
			'number.phone_offline',
		]);
	});

	test('Ignore Events Older Than drops stale events and keeps those without occurredAt', async () => {
		await published({ events: ['*'], options: { maxAgeMinutes: 10 } });
		const fresh = sample('message.received');
		fresh.occurredAt = new Date(Date.now() - 60_000).toISOString();
		const stale = sample('message.received');
		stale.occurredAt = new Date(Date.now() - 11 * 60_000).toISOString();
		expect((await sim.deliver(stale)).body).toContain('event too old');
		await sim.deliver(fresh);
		await sim.deliver(v1MessageReceived);
		expect(harness.runs.map((r) => r.events[0].occurredAt)).toEqual([fresh.occurredAt, null]);
	});

	test.each([
		['group', [true]],
		['direct', [false]],
		['all', [false, true]],
	] as const)('Chats: %s', async (chatType, expected) => {
		await published({ events: ['message.received'], options: { chatType } });
		await sim.deliver(sample('message.received'));
		await sim.deliver(groupMessage());
		expect(harness.runs.map((r) => r.events[0].isGroup)).toEqual(expected);
	});
});

describe('malformed bodies: a clear 4xx, no execution, no crash', () => {
	test.each([
		['malformed JSON', '{"type": "message.received",', 400, 'Body is not valid JSON'],
		['an empty body', '', 400, 'Empty body: expected a JSON event'],
		[
			'an array',
			'[{"type":"message.received"}]',
			400,
			'Expected a JSON object event with a "type"',
		],
		['a string', '"message.received"', 400, 'Expected a JSON object event with a "type"'],
		['an object without type', '{"message":{}}', 400, 'The event has no "type"'],
		[
			'a huge body',
			JSON.stringify({ type: 'message.received', pad: 'x'.repeat(1_100_000) }),
			413,
			'Body too large',
		],
	])('%s', async (_label, rawBody, status, error) => {
		await published({ events: ['*'] });
		const warn = jest.spyOn(coreLogger(), 'warn');
		try {
			const result = await sim.deliver(undefined, { rawBody });
			expect(result.status).toBe(status);
			expect(JSON.parse(result.body).error).toContain(error);
			expect(harness.runs).toHaveLength(0);
			// One line in n8n's log, so that an event the service keeps delivering does not vanish unseen.
			const refused = warn.mock.calls
				.map(([line]) => String(line))
				.filter((line) => line.includes('a delivery was refused'));
			expect(refused).toHaveLength(1);
			expect(refused[0]).toContain(`refused with ${status} (${error}`);
			expect(refused[0]).not.toContain('xxxxxxxx');
		} finally {
			warn.mockRestore();
		}
	});
});

describe('the reply path works from the trigger item with no typed expressions', () => {
	test('Message → Reply on the emitted item answers the same chat on the same number', async () => {
		await published({ events: ['message.received'] });
		await sim.deliver(sample('message.received'));
		const { error } = await runActionNode(
			relayNode({ resource: 'message', operation: 'reply', text: 'Yes, until 6 pm.' }),
			relayCredentials(sim.baseUrl),
			harness.runs[0].events,
		);
		expect(error).toBeUndefined();
		expect(sim.messages.map((m) => [m.channelId, m.to, m.text])).toEqual([
			['num_main', '4917612345678@c.us', 'Yes, until 6 pm.'],
		]);
	});

	test('a group message is answered in the group', async () => {
		await published({ events: ['message.received'] });
		await sim.deliver(groupMessage());
		await runActionNode(
			relayNode({ resource: 'message', operation: 'reply', text: 'Hi all' }),
			relayCredentials(sim.baseUrl),
			harness.runs[0].events,
		);
		expect(sim.messages.map((m) => m.to)).toEqual(['120363025551234567@g.us']);
	});
});
