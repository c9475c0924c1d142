/**
 * A run that no longer waits stops counting, in the real n8n (issue 41, item 3): a Send and Wait run
 * deleted, or stopped, in n8n while it waits for its contact. The contact's next message is not swallowed
 * by the wait nothing ends: the account's trigger offers it to the run's resume URL, n8n answers that the
 * run is gone (404 for a deleted run; 409 "finished with error" for a stopped one), the wait is ended and
 * the message reaches the trigger's workflow as a new message. The contact's next question then takes the
 * next answer. The unit suite (waitsThatEnd.test.ts) stands n8n in with a server answering 404; this is
 * n8n itself.
 *
 * A stopped run is answered after its wait's first minute, and at once: within the minute a 409 also means
 * "not put to wait yet" (replyRouting.ts), so the message is answered 503 and its refusal saved; every
 * redelivery is offered afresh, and from the minute on the 409 ends the wait and the message reaches the
 * trigger's workflow, late but not lost (docs/design/conversations-at-scale.md, "A run stopped in its first
 * minute"; before that fix the redelivery was taken as the run's own answer and lost).
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	api,
	contactWrites,
	eventually,
	executions,
	info,
	n8n,
	relayCredential,
	rest,
	sentTo,
	triggerWorkflow,
} from '../support/e2e';
import { createWorkflow, NODE_TYPES, type CredentialRef } from '../support/workflows';

const ACCOUNT = 'acct_runs_stop_waiting';
const API_KEY = 'sim-key-runs-stop-waiting';
const QUESTION = 'Still there?';
const TRIGGER_REPLY = 'A new conversation: how can I help?';

/** Webhook → Send and Wait "Still there?" to the start's `to`. */
function asking(credential: CredentialRef, path: string, n: number) {
	const id = (k: number) => `5a1b2c3d-0043-4000-8000-${String(n + k).padStart(12, '0')}`;
	return {
		name: `runs that stop waiting: ${path}`,
		nodes: [
			{
				id: `start-${path}`,
				name: 'Start',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: id(0),
				parameters: { httpMethod: 'POST', path, options: {} },
			},
			{
				id: `ask-${path}`,
				name: 'Still there',
				type: NODE_TYPES.action,
				typeVersion: 1,
				position: [240, 0],
				webhookId: id(1),
				parameters: {
					resource: 'message',
					operation: 'sendAndWait',
					waitTo: '={{ $json.body.to }}',
					waitChannelId: { __rl: true, mode: 'id', value: 'num_main' },
					message: QUESTION,
					responseType: 'freeText',
				},
				credentials: { messagingRelayApi: credential },
			},
		],
		connections: { Start: { main: [[{ node: 'Still there', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

async function startAsking(path: string, workflowId: string, chat: string, since: number) {
	const started = await fetch(`${info.n8nUrl}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ to: chat }),
	});
	expect(started.status).toBe(200);
	return await eventually(async () => {
		const asked = (await sentTo(ACCOUNT, chat, since)).includes(QUESTION);
		const waiting = (await executions(workflowId)).find(
			(e) => e.status === 'waiting' && Date.parse(e.startedAt ?? '') >= since - 1_000,
		);
		return asked && waiting ? waiting : undefined;
	}, 30_000);
}

describe('a Send and Wait run that n8n no longer has waiting', () => {
	const made: string[] = [];
	let credential: CredentialRef;

	beforeAll(async () => {
		credential = await relayCredential('runs that stop waiting', API_KEY);
		const { workflowId } = await triggerWorkflow({
			name: 'runs that stop waiting: the account trigger',
			apiKey: API_KEY,
			webhookId: '5a1b2c3d-0043-4000-8000-000000000001',
			events: ['message.received'],
			reply: TRIGGER_REPLY,
			typeVersion: 3,
		});
		await api('POST', `/workflows/${workflowId}/activate`);
		made.push(workflowId);
	});
	afterAll(async () => {
		for (const id of made) await api('POST', `/workflows/${id}/deactivate`).catch(() => undefined);
	});

	const stop = async (id: string) => {
		const { status } = await rest('POST', `/executions/${id}/stop`);
		expect(status).toBe(200);
	};
	/**
	 * How the run stops waiting, when (ms after the question) its contact writes next, and how long the
	 * service goes on delivering that message.
	 */
	const endings: Array<[string, string, (id: string) => Promise<void>, number, number]> = [
		[
			'deleted',
			'4917630000001@c.us',
			async (id) => {
				await api('DELETE', `/executions/${id}`);
			},
			0,
			30_000,
		],
		// Past the minute in which a 409 may mean a run not put to wait yet (replyRouting.ts).
		['stopped', '4917630000002@c.us', stop, 62_000, 30_000],
		// Within it: refused until the wait is a minute old, then passed on.
		['stopped, written at once', '4917630000003@c.us', stop, 0, 90_000],
	];

	test.each(endings)(
		"%s: the contact's next message goes to the trigger's workflow, and the next question takes the next answer",
		async (how, chat, end, writeAfterMs, deliveredForMs) => {
			const index = endings.findIndex((e) => e[0] === how);
			const path = `runs-stop-waiting-${index}`;
			const workflowId = await createWorkflow(n8n, asking(credential, path, 10 * (index + 1)));
			await api('POST', `/workflows/${workflowId}/activate`);
			made.push(workflowId);

			const since = Date.now();
			const first = await startAsking(path, workflowId, chat, since);
			await end(first.id);

			await sleep(Math.max(0, since + writeAfterMs - Date.now()));
			const message = await contactWrites(ACCOUNT, chat, 'Hello again', deliveredForMs);
			expect(message.status).toBe(200);
			if (writeAfterMs === 0 && how !== 'deleted') {
				// Refused while the wait was young, taken by the trigger's workflow once it was not.
				expect(message.attempts[0].status).toBe(503);
				expect(message.attempts.at(-1)!.at).toBeGreaterThanOrEqual(since + 55_000);
			}
			// The trigger's workflow answered it as a new conversation: the wait no longer holds the chat.
			expect(
				await eventually(async () => {
					const sent = await sentTo(ACCOUNT, chat, since);
					return sent.includes(TRIGGER_REPLY) ? sent : undefined;
				}, 30_000),
			).toEqual([QUESTION, TRIGGER_REPLY]);

			const again = Date.now();
			const second = await startAsking(path, workflowId, chat, again);
			expect((await contactWrites(ACCOUNT, chat, 'Yes', 30_000)).status).toBe(200);
			const resumed = await eventually(async () => {
				const run = (await executions(workflowId)).find((e) => e.id === second.id);
				return run?.status === 'success' ? run : undefined;
			}, 30_000);
			const taken = resumed.data?.resultData.runData['Still there']?.[0]?.data?.main[0]?.[0]
				?.json as IDataObject | undefined;
			expect(taken?.text).toBe('Yes');
			// Only the first message reached the trigger's workflow.
			expect((await sentTo(ACCOUNT, chat, since)).filter((t) => t === TRIGGER_REPLY)).toHaveLength(
				1,
			);
		},
		260_000,
	);
});
