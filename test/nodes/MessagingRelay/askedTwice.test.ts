/**
 * Issue 41, item 1: a run that asks twice (two Send and Wait nodes, one node in a loop, the same contact or
 * another) gets each answer at its own question. The record keeps a row per question, and the waiting node
 * takes a resume only for the question it waits on now (its node id and `since`, signed into the resume path,
 * against the run's custom data): a stale path, or the redelivery of the first answer, is declined. On f97c44d
 * the second question merged onto the first, already answered row, and the run waited forever.
 */
import { WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	IRunExecutionData,
	IWebhookFunctions,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';

import { askOf, CURRENT_ASK } from '../../../nodes/MessagingRelay/actions/sendAndWait/sendAndWait';
import { MessagingRelay } from '../../../nodes/MessagingRelay/MessagingRelay.node';
import {
	recordWait,
	updateWaits,
	waitIdOf,
	waitsForReply,
	type WaitEntry,
} from '../../../nodes/shared/sendAndWait/waitingRuns';
import {
	deriveShareKey,
	proofFor,
	signHandoff,
} from '../../../nodes/shared/sharedWebhook/signedHandoff';
import type { WebhookState } from '../../../nodes/shared/sharedWebhook/webhookState';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import {
	additionalDataFor,
	PackageNodeTypes,
	relayCredentials,
	relayNode,
} from '../../support/harness/n8nRuntime';

const CHAT = '4917610000009@c.us';
const T = 1_800_000_000_000;

describe('the record: a row per question', () => {
	let workflows = 0;
	let listener = {
		getWorkflow: () => ({ id: '' }),
		getNode: () => ({ name: 'Trigger' }),
		getMode: () => 'webhook',
	};
	beforeEach(() => {
		const id = `wf-asked-twice-${++workflows}`;
		listener = { ...listener, getWorkflow: () => ({ id }) };
	});
	const ask = (since: number, chat = CHAT): WaitEntry => ({
		executionId: '77',
		resumePath: `/webhook-waiting/77/ask?since=${since}`,
		chat,
		channelId: 'num_main',
		since,
		until: T + 3_600_000,
	});

	test.each([
		['the same contact again', CHAT],
		['another contact', '4917610000010@c.us'],
	])(
		'the second question of a run (%s) is a wait of its own, and takes the next answer',
		(_what, chat) => {
			const state: WebhookState = {};
			const first = ask(T);
			recordWait(listener, state, first, T);
			// The first answer resumed the run.
			updateWaits(
				listener,
				state,
				[[waitIdOf(first), { ...first, resumedBy: 'd1', resumedAt: T + 10 }]],
				T + 10,
			);
			// The run asks again: a row of its own, live.
			const second = ask(T + 20, chat);
			recordWait(listener, state, second, T + 20);
			const offered = waitsForReply(
				listener,
				state,
				{ chatId: chat, channelId: 'num_main' },
				'd2',
				T + 30,
			);
			expect(offered.map((w) => w.id)).toEqual([waitIdOf(second)]);
			// The first answer's redelivery is still recognised by the first row, the second's by the second.
			expect(
				waitsForReply(listener, state, { chatId: CHAT, channelId: 'num_main' }, 'd1', T + 30)[0].id,
			).toBe(waitIdOf(first));
		},
	);
});

describe("the waiting node: only its current question's resume", () => {
	let sim: RelaySimulator;
	beforeAll(async () => {
		sim = await startRelaySimulator();
	});
	afterAll(async () => await sim.stop());

	const node: INode = relayNode({
		resource: 'message',
		operation: 'sendAndWait',
		message: 'Which day?',
	});
	const answered: Array<{ status: number; body: IDataObject }> = [];

	/** The run waits on its question asked at `current`; a hand-off arrives for the one asked at `since`. */
	async function handOff(
		op: 'resume' | 'ping',
		since: number,
		current: number,
		apiKey = 'sim-key-full',
		signedWith = apiKey,
		resumeBody?: string,
	) {
		const key = deriveShareKey(signedWith);
		const run: IRunExecutionData = createRunExecutionData({
			executionData: {
				nodeExecutionStack: [{ node, data: { main: [[{ json: {} }]] }, source: null }],
			},
		});
		run.resultData.metadata = { [CURRENT_ASK]: askOf(node.id, current) };
		const path = `/webhook-waiting/77/${node.id}`;
		const body =
			resumeBody ??
			JSON.stringify({
				asked: 0,
				questionId: null,
				event: {
					type: 'message.received',
					message: {
						id: 'm1',
						chatId: CHAT,
						from: '+4917610000009',
						channelId: 'num_main',
						text: 'Monday',
					},
				},
			});
		const { headers, nonce } = signHandoff(key, op, path, op === 'ping' ? '{}' : body);
		let status = 200;
		const response = {
			status(code: number) {
				status = code;
				return response;
			},
			json(json: IDataObject) {
				answered.push({ status, body: json });
				return response;
			},
			setHeader: () => undefined,
		};
		const additionalData = {
			...additionalDataFor(relayCredentials(sim.baseUrl, apiKey)),
			httpRequest: {
				headers: { ...headers, 'content-type': 'application/json' },
				body: {},
				rawBody: Buffer.from(op === 'ping' ? '{}' : body),
				query: { chat: CHAT, since: String(since) },
				originalUrl: `${path}?chat=${CHAT}&since=${since}`,
			},
			httpResponse: response,
		} as unknown as IWorkflowExecuteAdditionalData;
		const workflow = new Workflow({
			id: 'wf-ask',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: new PackageNodeTypes(),
		});
		const description = new MessagingRelay().description.webhooks![0];
		const context = new WebhookContext(
			workflow,
			node,
			additionalData,
			'webhook',
			{
				httpMethod: 'POST',
				node: node.name,
				path: node.id,
				webhookDescription: description,
				workflowId: 'wf-ask',
				workflowExecuteAdditionalData: additionalData,
			},
			[],
			run,
		);
		answered.length = 0;
		const result = await new MessagingRelay().webhook.call(context as unknown as IWebhookFunctions);
		return { result, answer: answered[0], proof: proofFor(key, nonce, path) };
	}

	test('the current question takes the answer; an earlier question of the run declines it', async () => {
		const taken = await handOff('resume', T + 20, T + 20);
		expect(taken.answer).toEqual({ status: 200, body: { proof: taken.proof, consumed: true } });
		expect(taken.result.workflowData?.[0][0].json).toMatchObject({
			answered: true,
			text: 'Monday',
		});

		const stale = await handOff('resume', T, T + 20);
		expect(stale.answer).toEqual({ status: 200, body: { proof: stale.proof, consumed: false } });
		expect(stale.result.workflowData).toBeUndefined();
	});

	test('a resume this version cannot read is answered 400 and resumes nothing; a field it cannot read falls back', async () => {
		const notJson = await handOff(
			'resume',
			T + 20,
			T + 20,
			'sim-key-full',
			'sim-key-full',
			'not json',
		);
		expect(notJson.answer).toEqual({
			status: 400,
			body: { error: 'A resume hand-off this version cannot read' },
		});
		expect(notJson.result.workflowData).toBeUndefined();

		// `asked` as text reads as 0 (the node may ask again); an event that is not an object answers nothing.
		const event = {
			type: 'message.received',
			message: { id: 'm2', chatId: CHAT, text: 'Tuesday' },
		};
		const oddCount = JSON.stringify({ asked: 'twice', questionId: 7, event });
		const counted = await handOff(
			'resume',
			T + 20,
			T + 20,
			'sim-key-full',
			'sim-key-full',
			oddCount,
		);
		expect(counted.answer).toEqual({ status: 200, body: { proof: counted.proof, consumed: true } });
		expect(counted.result.workflowData?.[0][0].json).toMatchObject({ text: 'Tuesday' });
		const noEvent = JSON.stringify({ asked: 0, event: 'Tuesday' });
		const declined = await handOff(
			'resume',
			T + 20,
			T + 20,
			'sim-key-full',
			'sim-key-full',
			noEvent,
		);
		expect(declined.answer).toEqual({
			status: 200,
			body: { proof: declined.proof, consumed: false },
		});
	});

	test('asked whether it still waits (the capacity check, a joining trigger): a proof only for its current question', async () => {
		const current = await handOff('ping', T + 20, T + 20);
		expect(current.answer).toEqual({ status: 200, body: { proof: current.proof } });
		const earlier = await handOff('ping', T, T + 20);
		expect(earlier.answer).toEqual({ status: 200, body: { waiting: false } });
	});

	test("the credential's API key changed since this process read it: the new key's hand-off is taken", async () => {
		// K is kept per credential in memory: the first hand-off reads it, the next ones find it.
		expect((await handOff('ping', T + 20, T + 20)).answer.status).toBe(200);
		const changed = await handOff('resume', T + 20, T + 20, 'sim-key-other');
		expect(changed.answer).toEqual({ status: 200, body: { proof: changed.proof, consumed: true } });
		// The old key no longer signs anything this node takes.
		const old = await handOff('ping', T + 20, T + 20, 'sim-key-other', 'sim-key-full');
		expect(old.answer).toEqual({
			status: 401,
			body: { error: 'Invalid hand-off: hand-off signature does not match' },
		});
	});
});
