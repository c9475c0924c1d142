/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Message → Pause Automatic Replies and Resume Automatic Replies
 * (docs/design/durability-and-conversations.md §5a), over real HTTP: the action node reads the
 * account's registered webhook from the simulator and sends signed `pause` hand-offs to the
 * stand-in n8n's triggers, which the simulator's deliveries then meet.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PAUSED, pausesInStaticData } from '../../../nodes/MessagingRelayTrigger/chatPause';
import { deriveShareKey, signHandoff } from '../../../nodes/shared/sharedWebhook/signedHandoff';
import { ADA_CHAT, GRACE_CHAT, receivedIn, sentIn } from '../../fixtures/events';
import type { RelaySimulator } from '../../simulator';
import { relayCredentials, relayNode, runActionNode } from '../../support/harness/n8nRuntime';
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
const received = (chat = ADA) => receivedIn(chat);

const pauseOption = {
	pauseWhenPersonReplies: { settings: { minutes: 30, keyword: '#bot', apiOrigins: 'api' } },
};

/** The account's assistant (the option on) and a logger of everything (no option), both published. */
async function account() {
	const assistant = n8n.addWorkflow('assistant', {
		events: ['message.received'],
		options: pauseOption,
	} as INodeParameters);
	const logger = n8n.addWorkflow('logger', { events: ['*'] });
	await assistant.publish();
	await logger.publish();
	return { assistant, logger };
}

const ran = (w: SharedWorkflow) =>
	w.productionEvents.map((e) => ((e.event as IDataObject).message as IDataObject).id);

/** Delivered, answered 200; the answer's JSON. */
const deliverOk = async (event: object) => (await deliver(sim, event, { status: 200 })).json;

const action = async (parameters: INodeParameters, input: IDataObject[] = [{}]) =>
	await runActionNode(
		relayNode({ resource: 'message', ...parameters }),
		relayCredentials(sim.baseUrl),
		input,
	);

describe('Pause and Resume Automatic Replies', () => {
	test('pausing a chat stops its messages in the workflows with the option, not in the others; resuming starts them again', async () => {
		const { assistant, logger } = await account();
		const paused = await action({ operation: 'pauseReplies', chat: ADA, pauseMinutes: 60 });
		expect(paused.error).toBeUndefined();
		expect(paused.items![0].json).toEqual({
			chatId: ADA,
			automaticReplies: 'paused',
			until: expect.any(String),
			workflows: 1,
		});
		expect(Date.parse(paused.items![0].json.until as string) - Date.now()).toBeGreaterThan(
			59 * 60_000,
		);

		const during = received();
		expect(await deliverOk(during)).toEqual({ received: true });
		const other = received(GRACE);
		await deliverOk(other);
		expect(ran(assistant)).toEqual([other.message.id]);
		expect(ran(logger)).toEqual([during.message.id, other.message.id]);

		const resumed = await action({ operation: 'resumeReplies', chat: ADA });
		expect(resumed.items![0].json).toEqual({
			chatId: ADA,
			automaticReplies: 'resumed',
			until: null,
			workflows: 1,
		});
		const after = received();
		await deliverOk(after);
		expect(ran(assistant)).toEqual([other.message.id, after.message.id]);
	});

	test("the holder applies it too: the service's 200 says the chat is paused", async () => {
		const logger = n8n.addWorkflow('logger', { events: ['*'] });
		const assistant = n8n.addWorkflow('assistant', {
			events: ['message.received'],
			options: pauseOption,
		} as INodeParameters);
		await logger.publish();
		await assistant.publish();
		expect(new URL(sim.webhook!.url).pathname).toBe(assistant.productionPath);
		await action({ operation: 'pauseReplies', chat: ADA, pauseMinutes: 60 });
		expect(await deliverOk(received())).toEqual({ received: true, ignored: PAUSED });
		expect(ran(assistant)).toEqual([]);
		expect(ran(logger)).toHaveLength(1);
	});

	test('a phone number as people type it pauses its direct chat', async () => {
		const { assistant } = await account();
		await action({ operation: 'pauseReplies', chat: '+49 176 1234 5678', pauseMinutes: 60 });
		await deliverOk(received());
		expect(ran(assistant)).toEqual([]);
	});

	test('with Chat left empty, the chat of the trigger item it came from (as an AI Agent tool after the trigger would)', async () => {
		const { assistant } = await account();
		const run = await action({ operation: 'pauseReplies', chat: '', pauseMinutes: 0 }, [
			{ chatId: ADA, channelId: 'num_main', text: 'a person please' },
		]);
		expect(run.items![0].json).toMatchObject({
			chatId: ADA,
			automaticReplies: 'paused',
			until: 'resumed by hand',
		});
		await deliverOk(received());
		expect(ran(assistant)).toEqual([]);
		// 0 minutes: until resumed (its record has no end).
		const entry = pausesInStaticData(assistant.stored)[ADA];
		expect(entry.until).toBe(Number.MAX_SAFE_INTEGER);
	});

	test('a resume by the action ends a pause a person started from the phone, and a later phone message starts it again', async () => {
		const { assistant } = await account();
		const fromPhone = () => sentIn(ADA, 'phone');
		await deliverOk(fromPhone());
		await action({ operation: 'resumeReplies', chat: ADA });
		const after = received();
		await deliverOk(after);
		expect(ran(assistant)).toEqual([after.message.id]);
		await new Promise((r) => setTimeout(r, 5));
		await deliverOk(fromPhone());
		await deliverOk(received());
		expect(ran(assistant)).toEqual([after.message.id]);
	});

	test('no trigger with the option: a clear error that says which option to add; nothing is paused', async () => {
		const logger = n8n.addWorkflow('logger', { events: ['*'] });
		await logger.publish();
		const run = await action({ operation: 'pauseReplies', chat: ADA });
		expect(run.items).toBeUndefined();
		expect(run.error?.message).toBe(
			'No published Messaging Relay Trigger on this account has "Pause When a Person Replies" on [item 0]',
		);
		expect(run.error?.description).toContain('add the option "Pause When a Person Replies"');
		expect(pausesInStaticData(logger.stored)).toEqual({});
	});

	test('no trigger published on the account: a clear error', async () => {
		const run = await action({ operation: 'resumeReplies', chat: ADA });
		expect(run.error?.message).toBe(
			'No Messaging Relay Trigger is published on this account [item 0]',
		);
	});

	test('no chat given and no trigger item: says to set Chat or connect the node after the trigger', async () => {
		await account();
		const run = await action({ operation: 'pauseReplies', chat: '' }, [{ unrelated: true }]);
		expect(run.error?.message).toBe('No chat to pause [item 0]');
		expect(run.error?.description).toContain('Type a chat ID or phone number in "Chat"');
	});

	test("only a hand-off signed with the account's key pauses: a forged one, a changed body or a replay is refused with 401", async () => {
		const { assistant } = await account();
		const url = assistant.productionUrl;
		const path = new URL(url).pathname;
		const post = async (headers: Record<string, string>, body: string) =>
			(
				await fetch(url, {
					method: 'POST',
					headers: { ...headers, 'content-type': 'application/json' },
					body,
				})
			).status;
		const pauseAda = JSON.stringify({ chat: ADA, pause: true, at: Date.now(), minutes: 60 });
		expect(
			await post(
				signHandoff(deriveShareKey('not-the-key'), 'pause', path, pauseAda).headers,
				pauseAda,
			),
		).toBe(401);
		const pauseGrace = JSON.stringify({ chat: GRACE, pause: true, at: Date.now(), minutes: 60 });
		const genuine = signHandoff(deriveShareKey('sim-key-full'), 'pause', path, pauseGrace).headers;
		expect(await post(genuine, pauseAda)).toBe(401); // the signature covers the body
		expect(await post(genuine, pauseGrace)).toBe(200);
		expect(await post(genuine, pauseGrace)).toBe(401); // a replay

		const ada = received();
		await deliverOk(ada);
		await deliverOk(received(GRACE));
		expect(ran(assistant)).toEqual([ada.message.id]);
	});
});
