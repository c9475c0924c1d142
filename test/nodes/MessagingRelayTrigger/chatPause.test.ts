/**
 * Pause When a Person Replies and Ignore Chats (docs/design/durability-and-conversations.md §5a),
 * over real HTTP: the simulator delivers to stand-in n8n workflows, alone and sharing one account.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { PAUSED, pausesInStaticData } from '../../../nodes/MessagingRelayTrigger/chatPause';
import {
	ADA_CHAT,
	GRACE_CHAT,
	groupMessage,
	receivedIn,
	sample,
	sentIn,
} from '../../fixtures/events';
import type { RelaySimulator } from '../../simulator';
import {
	withSharedN8nPerTest,
	type SharedN8n,
	type SharedWorkflow,
} from '../../support/harness/sharedN8n';
import { deliver } from '../../support/deliver';

let sim: RelaySimulator;
let n8n: SharedN8n;
withSharedN8nPerTest((s, n) => ([sim, n8n] = [s, n]));

const ADA = ADA_CHAT;
const GRACE = GRACE_CHAT;
const received = (chat = ADA, changes: IDataObject = {}) => receivedIn(chat, changes);
const sent = (origin: string | null | undefined, chat = ADA, text?: string, sentAt?: Date) =>
	sentIn(chat, origin, text, sentAt);

const pauseOn = (settings: IDataObject = {}) => ({
	pauseWhenPersonReplies: {
		settings: { minutes: 30, keyword: '#bot', apiOrigins: 'api', ...settings },
	},
});

async function assistant(
	options: IDataObject = pauseOn(),
	events = ['message.received'],
): Promise<SharedWorkflow> {
	const workflow = n8n.addWorkflow('assistant', { events, options } as INodeParameters);
	await workflow.publish();
	return workflow;
}

const texts = (w: SharedWorkflow) =>
	w.productionEvents.map((e) => ((e.event as IDataObject).message as IDataObject).id);

/** Delivered, answered 200; the answer's JSON. */
const deliverOk = async (event: object) => (await deliver(sim, event, { status: 200 })).json;

describe('Pause When a Person Replies', () => {
	test('a message typed on the phone pauses that chat: its next messages start nothing, other chats run', async () => {
		const w = await assistant();
		const before = received();
		await deliverOk(before);
		await deliverOk(sent('phone'));
		const during = received();
		expect(await deliverOk(during)).toEqual({ received: true, ignored: PAUSED });
		const other = received(GRACE);
		await deliverOk(other);
		expect(texts(w)).toEqual([before.message.id, other.message.id]);
		// Kept in the workflow's static data (n8n saves it with the request), for 30 minutes.
		const entry = pausesInStaticData(w.stored)[ADA];
		expect(entry.until - entry.at).toBe(30 * 60_000);
	});

	test('a message sent through the API (origin "api", any case) pauses nothing: the workflow\'s own replies do not stop it', async () => {
		const w = await assistant();
		await deliverOk(sent('api'));
		await deliverOk(sent(' API '));
		const next = received();
		await deliverOk(next);
		expect(texts(w)).toEqual([next.message.id]);
	});

	test('the API origins are a setting: with "api, crm" a message from the CRM pauses nothing, one from the phone does', async () => {
		const w = await assistant(pauseOn({ apiOrigins: 'api, crm' }));
		await deliverOk(sent('CRM'));
		const first = received();
		await deliverOk(first);
		await deliverOk(sent('phone'));
		await deliverOk(received());
		expect(texts(w)).toEqual([first.message.id]);
	});

	test('a sent message without an origin, or with one that is not text, pauses nothing', async () => {
		const w = await assistant();
		await deliverOk(sent(undefined));
		await deliverOk(sent(null));
		const next = received();
		await deliverOk(next);
		expect(texts(w)).toEqual([next.message.id]);
	});

	test('the keyword from the phone ends the pause at once (trimmed, any case); from the contact it does nothing', async () => {
		const w = await assistant();
		await deliverOk(sent('phone'));
		await deliverOk(received(ADA, { text: '#bot' })); // the contact cannot end it
		await deliverOk(sent('phone', ADA, '  #BOT '));
		const after = received();
		await deliverOk(after);
		expect(texts(w)).toEqual([after.message.id]);
	});

	test('the pause ends on its own, counted from when the person wrote; each message from the phone starts it again', async () => {
		const w = await assistant(pauseOn({ minutes: 1 }));
		// Written 59.2 s ago (delivered late): paused for 0.8 s more.
		await deliverOk(sent('phone', ADA, 'on it', new Date(Date.now() - 59_200)));
		await deliverOk(received());
		await sleep(1_000);
		const afterExpiry = received();
		await deliverOk(afterExpiry);
		// Again from the phone, now: paused for a minute.
		await deliverOk(sent('phone'));
		await sleep(1_000);
		await deliverOk(received());
		expect(texts(w)).toEqual([afterExpiry.message.id]);
	});

	test('the newest message of the person wins: a late delivery of an older one does not undo the keyword', async () => {
		const w = await assistant();
		await deliverOk(sent('phone', ADA, '#bot', new Date()));
		await deliverOk(sent('phone', ADA, 'older, delivered late', new Date(Date.now() - 10_000)));
		const next = received();
		await deliverOk(next);
		expect(texts(w)).toEqual([next.message.id]);
	});

	test('off (the default), a message from the phone pauses nothing', async () => {
		const w = await assistant({});
		await deliverOk(sent('phone'));
		const next = received();
		await deliverOk(next);
		expect(texts(w)).toEqual([next.message.id]);
		expect(pausesInStaticData(w.stored)).toEqual({});
	});

	test('only message.received is paused: other events of the chat still start the workflow', async () => {
		const w = await assistant(pauseOn(), ['message.received', 'message.sent']);
		const phone = sent('phone');
		await deliverOk(phone);
		await deliverOk(received());
		const api = sent('api');
		await deliverOk(api);
		expect(texts(w)).toEqual([phone.message.id, api.message.id]);
	});

	test("a person's message that also starts the workflow: the pause is saved in static data all the same (n8n saves nothing else of that request)", async () => {
		const w = await assistant(pauseOn(), ['message.received', 'message.sent']);
		const phone = sent('phone');
		await deliverOk(phone);
		expect(texts(w)).toEqual([phone.message.id]);
		// Saved by the trigger's own `pause` hand-off: the delivery's request started a run.
		const entry = pausesInStaticData(w.stored)[ADA];
		expect(entry.until - entry.at).toBe(30 * 60_000);
		expect(n8n.served.filter((s) => s.handoff === 'pause').map((s) => s.path)).toEqual([
			w.productionPath,
		]);
		// The keyword, also run by the workflow, ends it in static data too.
		await deliverOk(sent('phone', ADA, '#bot'));
		expect(pausesInStaticData(w.stored)[ADA].until).toBe(0);
	});

	test('several workflows on one account: each trigger with the option knows the pause, whatever events it selects and whichever holds the webhook', async () => {
		// The holder (published last) logs everything and has no pause; the assistant selects
		// only message.received, so it sees the person's message only as the holder's forward.
		const assistantWf = await assistant();
		const logger = n8n.addWorkflow('logger', { events: ['*'] });
		await logger.publish();
		expect(new URL(sim.webhook!.url).pathname).toBe(logger.productionPath);
		const phone = sent('phone');
		await deliverOk(phone);
		const during = received();
		await deliverOk(during);
		expect(texts(assistantWf)).toEqual([]);
		expect(texts(logger)).toEqual([phone.message.id, during.message.id]);

		// And the other way round: the holder pauses, the member without the option does not.
		const helper = n8n.addWorkflow('helper', { events: ['message.received'] });
		await helper.publish();
		const holderWithPause = n8n.addWorkflow('assistant-2', {
			events: ['message.received'],
			options: pauseOn(),
		} as INodeParameters);
		await holderWithPause.publish();
		expect(new URL(sim.webhook!.url).pathname).toBe(holderWithPause.productionPath);
		await deliverOk(sent('phone', GRACE));
		const grace = received(GRACE);
		await deliverOk(grace);
		expect(texts(holderWithPause)).toEqual([]);
		expect(texts(helper)).toEqual([grace.message.id]);
		expect(texts(assistantWf)).toEqual([]);
	});

	test('the option is read alone: another option whose expression fails does not fail events this trigger does not select', async () => {
		// A broken "Only Numbers" expression fails the events the trigger selects (n8n answers the
		// delivery 500), as it should; the others are still answered "not selected" (the set-aside
		// soak's broken alert in CI got its message.received reported as missed otherwise).
		const w = n8n.addWorkflow('alert', {
			events: ['number.disconnected'],
			options: { ...pauseOn(), channelIds: "={{ $('Broken on purpose').first().json.numbers }}" },
		} as INodeParameters);
		await w.publish();
		expect(await deliverOk(received())).toEqual({
			received: true,
			ignored: 'event type not selected',
		});
		expect(await deliverOk(sent('phone'))).toEqual({
			received: true,
			ignored: 'event type not selected',
		});
		expect((await sim.deliver(sample('number.disconnected'))).status).toBe(500);
	});
});

describe('Ignore Chats', () => {
	const ignoring = async (list: string) => {
		const w = n8n.addWorkflow('assistant', {
			events: ['message.received'],
			options: { ignoreChats: list },
		});
		await w.publish();
		return w;
	};

	test('a phone number as people type it ignores its direct chat; other chats run', async () => {
		const w = await ignoring('+49 (176) 1234-5678, someone@else');
		expect(await deliverOk(received(ADA))).toEqual({ received: true, ignored: 'chat ignored' });
		const grace = received(GRACE);
		await deliverOk(grace);
		expect(texts(w)).toEqual([grace.message.id]);
	});

	test('a chat id ignores that chat; a group only by its chat id, not by a listed member writing in it', async () => {
		const byPhone = await ignoring('4917612345678');
		const group = groupMessage(); // Ada writes in the group
		group.message.id = 'wamid.group-1';
		await deliverOk(group);
		expect(texts(byPhone)).toEqual([group.message.id]);

		const byGroupId = n8n.addWorkflow('groups', {
			events: ['message.received'],
			options: { ignoreChats: '120363025551234567@g.us' },
		});
		await byGroupId.publish();
		const again = groupMessage();
		again.message.id = 'wamid.group-2';
		await deliverOk(again);
		expect(texts(byGroupId)).toEqual([]);
		// The chat id of Ada's direct chat, typed in full, ignores it too.
		const byChatId = n8n.addWorkflow('direct', {
			events: ['message.received'],
			options: { ignoreChats: ADA },
		});
		await byChatId.publish();
		await deliverOk(received(ADA));
		expect(texts(byChatId)).toEqual([]);
	});
});
