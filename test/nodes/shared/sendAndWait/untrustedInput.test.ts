/**
 * Issue 41, item 10: what a row or a hand-off holds is not trusted further than it must be. A stored resume
 * path that is not a path never sends a reply to another host (f97c44d joined `${origin}${path}`: a path
 * "@evil.example/x" made the holder post the contact's message there); a hand-off's fields are bounded (a
 * 1 MB "To" made a 1 MB row that every delivery then loaded); a message of a group, a broadcast or a linked
 * id, with or without its `group` field, is never its sender's direct answer.
 */
import type { IDataObject, IWebhookFunctions, INodeParameters } from 'n8n-workflow';

import { routeReply } from '../../../../nodes/shared/sendAndWait/replyRouting';
import {
	recordWait,
	waitsForReply,
	waitsInStaticData,
} from '../../../../nodes/shared/sendAndWait/waitingRuns';
import { deriveShareKey, signHandoff } from '../../../../nodes/shared/sharedWebhook/signedHandoff';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';
import type { RelaySimulator } from '../../../simulator';
import { withSharedN8nPerTest, type SharedN8n } from '../../../support/harness/sharedN8n';

const KEY = deriveShareKey('sim-key-full');
const CHAT = '4917610000001@c.us';
const HOLDER_URL = 'https://n8n.example.com/webhook/abc/webhook';

describe('a stored resume path that is not a path on the holder', () => {
	test.each([
		'@evil.example/webhook-waiting/7/n',
		'//evil.example/webhook-waiting/7/n',
		'https://evil.example/webhook-waiting/7/n',
		'\\\\evil.example/x',
	])('%s: nothing is sent anywhere, the wait is ended', async (resumePath) => {
		const context = {
			getWorkflow: () => ({ id: `wf-untrusted-${resumePath}` }),
			getNode: () => ({ name: 'Trigger' }),
			getMode: () => 'webhook',
			helpers: {
				httpRequest: jest.fn(async () => {
					throw new Error('no request may be made');
				}),
			},
		} as unknown as IWebhookFunctions;
		const state: WebhookState = { webhookUrl: HOLDER_URL };
		recordWait(context, state, {
			executionId: '7',
			resumePath,
			chat: CHAT,
			channelId: 'num_main',
			since: Date.now() - 1_000,
			until: Date.now() + 60_000,
		});
		const body = {
			type: 'message.received',
			message: { id: 'm', chatId: CHAT, from: '+4917610000001', channelId: 'num_main', text: 'hi' },
		};
		const outcome = await routeReply(context, state, JSON.stringify(body), body, 'd1', KEY);
		expect(outcome).toMatchObject({
			kind: 'notAReply',
			ended: [expect.objectContaining({ resumePath })],
		});
		expect((context.helpers.httpRequest as jest.Mock).mock.calls).toEqual([]);
		expect(Object.values(waitsInStaticData(state))[0].until).toBeLessThanOrEqual(Date.now());
	});
});

describe("a message that is not its sender's direct chat", () => {
	test.each([
		['a group, its `group` field left out', '120363025551234567@g.us'],
		['a broadcast', 'status@broadcast'],
		['a linked id', '4917610000001@lid'],
	])('%s is not the answer of a wait for the sender’s phone', (_what, chatId) => {
		const context = {
			getWorkflow: () => ({ id: `wf-chats-${chatId}` }),
			getNode: () => ({ name: 'Trigger' }),
			getMode: () => 'webhook',
		};
		const state: WebhookState = {};
		recordWait(context, state, {
			executionId: '8',
			resumePath: '/webhook-waiting/8/n',
			chat: '4917610000001',
			channelId: 'num_main',
			since: Date.now() - 1_000,
			until: Date.now() + 60_000,
		});
		const message: IDataObject = { chatId, from: '+4917610000001', channelId: 'num_main' };
		expect(waitsForReply(context, state, message, 'd1')).toEqual([]);
		expect(
			waitsForReply(context, state, { ...message, chatId: '4917610000001@c.us' }, 'd1'),
		).toHaveLength(1);
	});
});

describe('a `wait` hand-off with a field beyond its bound', () => {
	let n8n: SharedN8n;
	withSharedN8nPerTest((_sim: RelaySimulator, n) => (n8n = n));

	test.each([
		['a 1 MB chat', { chat: 'x'.repeat(1_000_000) }],
		['a 300-character number id', { channelId: 'n'.repeat(300) }],
		['a resume path that names a host', { resumePath: '//evil.example/x' }],
		['a 5,000-character resume path', { resumePath: `/webhook-waiting/1/${'p'.repeat(5_000)}` }],
	])('%s: refused (400), nothing recorded', async (_what, field) => {
		const holder = n8n.addWorkflow('holder', { events: ['message.received'] } as INodeParameters);
		await holder.publish();
		const body = JSON.stringify({
			waits: [
				{
					executionId: '1',
					resumePath: '/webhook-waiting/1/n?x=1',
					chat: CHAT,
					channelId: 'num_main',
					since: Date.now(),
					until: Date.now() + 60_000,
					...field,
				},
			],
		});
		const response = await fetch(holder.productionUrl, {
			method: 'POST',
			headers: {
				...signHandoff(KEY, 'wait', holder.productionPath, body).headers,
				'content-type': 'application/json',
			},
			body,
		});
		expect(response.status).toBe(400);
		expect(waitsInStaticData(holder.stored as WebhookState)).toEqual({});
	});
});
