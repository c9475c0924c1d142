/**
 * A run that asks more than once, in the real n8n (issue 41, item 1): two Send and Wait for Reply nodes
 * one after the other (a follow-up question, to the same contact or to another), two Approval questions
 * (the first asked again after an unclear answer), and one node in a loop that asks three times, with a
 * Messaging Relay Trigger published on the account and without one (the waiting run then holds the
 * account's webhook itself). Each question gets its own answer, exactly once, and the run ends with every
 * answer where it was asked. On f97c44d, with a trigger, the second question's answer never reached the
 * run: it waited forever.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	api,
	contactWrites,
	eventually,
	executions,
	info,
	n8n,
	relayCredential,
	sentTo,
	triggerWorkflow,
	type Execution,
} from '../support/e2e';
import { createWorkflow, NODE_TYPES, type CredentialRef } from '../support/workflows';

const WITH_TRIGGER = { account: 'acct_ask_twice', apiKey: 'sim-key-ask-twice' };
const ALONE = { account: 'acct_ask_twice_alone', apiKey: 'sim-key-ask-twice-alone' };
const ADA = '4917620000001@c.us';
const GRACE = '4917620000002@c.us';
/** What an Approval question sends after an answer it cannot read (the node's default). */
const RE_ASK = 'Sorry, I did not understand. Please answer yes or no.';

const webhookNode = (path: string, webhookId: string): IDataObject => ({
	id: `start-${path}`,
	name: 'Start',
	type: 'n8n-nodes-base.webhook',
	typeVersion: 2,
	position: [0, 0],
	webhookId,
	parameters: { httpMethod: 'POST', path, options: {} },
});

const askNode = (
	name: string,
	to: string,
	question: string,
	credential: CredentialRef,
	webhookId: string,
	x: number,
	responseType: 'freeText' | 'approval' = 'freeText',
): IDataObject => ({
	id: `${webhookId}-node`,
	name,
	type: NODE_TYPES.action,
	typeVersion: 1,
	position: [x, 0],
	webhookId,
	parameters: {
		resource: 'message',
		operation: 'sendAndWait',
		waitTo: to,
		waitChannelId: { __rl: true, mode: 'id', value: 'num_main' },
		message: question,
		responseType,
	},
	credentials: { messagingRelayApi: credential },
});

const link = (from: string, to: string, output = 0) => ({
	[from]: { main: Object.assign([[]], { [output]: [{ node: to, type: 'main', index: 0 }] }) },
});

/** Webhook → "Which day?" to `to` → "Which time?" to `second` (an expression of the start's body). */
function followUp(credential: CredentialRef, path: string, ids: [string, string, string]) {
	return {
		name: `ask twice: ${path}`,
		nodes: [
			webhookNode(path, ids[0]),
			askNode('Which day', '={{ $json.body.to }}', 'Which day?', credential, ids[1], 240),
			askNode(
				'Which time',
				"={{ $('Start').item.json.body.second }}",
				'Which time?',
				credential,
				ids[2],
				480,
			),
		],
		connections: { ...link('Start', 'Which day'), ...link('Which day', 'Which time') },
		settings: { executionOrder: 'v1' },
	};
}

/** Webhook → "Approve the order?" → "Approve the shipping?", both Approval questions to one contact. */
function approveTwice(credential: CredentialRef, path: string, ids: [string, string, string]) {
	const to = "={{ $('Start').item.json.body.to }}";
	return {
		name: `approve twice: ${path}`,
		nodes: [
			webhookNode(path, ids[0]),
			askNode('Order', to, 'Approve the order?', credential, ids[1], 240, 'approval'),
			askNode('Shipping', to, 'Approve the shipping?', credential, ids[2], 480, 'approval'),
		],
		connections: { ...link('Start', 'Order'), ...link('Order', 'Shipping') },
		settings: { executionOrder: 'v1' },
	};
}

/** Webhook → "Anything else?" → IF asked fewer than 3 times → back to the question. */
function loop(credential: CredentialRef, path: string, ids: [string, string]) {
	return {
		name: `ask in a loop: ${path}`,
		nodes: [
			webhookNode(path, ids[0]),
			askNode(
				'Anything else',
				"={{ $('Start').item.json.body.to }}",
				'Anything else?',
				credential,
				ids[1],
				240,
			),
			{
				id: `${ids[1]}-again`,
				name: 'Again',
				type: 'n8n-nodes-base.if',
				typeVersion: 2,
				position: [480, 0],
				parameters: {
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'strict' },
						conditions: [
							{
								id: 'c1',
								leftValue: '={{ $runIndex }}',
								rightValue: 2,
								operator: { type: 'number', operation: 'lt' },
							},
						],
						combinator: 'and',
					},
					options: {},
				},
			},
		],
		connections: {
			...link('Start', 'Anything else'),
			...link('Anything else', 'Again'),
			...link('Again', 'Anything else'),
		},
		settings: { executionOrder: 'v1' },
	};
}

/** The answers each node of the run took, in order (a node's output after each resume). */
function answersIn(run: Execution, node: string, field = 'text'): string[] {
	return (run.data?.resultData.runData[node] ?? []).map((r) =>
		String(r.data?.main[0]?.[0]?.json[field] ?? ''),
	);
}

async function start(path: string, body: IDataObject) {
	const answer = await fetch(`${info.n8nUrl}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	expect(answer.status).toBe(200);
}

/**
 * The question reached the contact and n8n has put the run to wait on it (as a person answers: after the
 * question). Without a trigger an answer before that meets n8n's own 409, which only a service that delivers
 * again turns into an answer (docs/design/durability-and-conversations.md, "Races").
 */
async function asked(
	workflowId: string,
	account: string,
	chat: string,
	question: string,
	times: number,
	since: number,
) {
	await eventually(async () => {
		const sent = (await sentTo(account, chat, since)).filter((text) => text === question);
		return sent.length >= times ? true : undefined;
	}, 30_000);
	await eventually(async () => {
		const waiting = (await executions(workflowId)).filter((e) => e.status === 'waiting');
		return waiting.length > 0 ? true : undefined;
	}, 30_000);
}

/** The contact answers in its chat, as the service delivers it (again, until a 2xx). */
async function answer(account: string, chat: string, text: string) {
	expect((await contactWrites(account, chat, text)).status).toBe(200);
}

async function finished(workflowId: string, count: number): Promise<Execution[]> {
	return await eventually(async () => {
		const runs = (await executions(workflowId)).filter((e) => e.status === 'success');
		return runs.length >= count ? runs : undefined;
	}, 60_000);
}

for (const setting of [
	{ name: 'with a trigger published on the account', ...WITH_TRIGGER, trigger: true },
	{ name: 'with no trigger on the account (the run holds the webhook)', ...ALONE, trigger: false },
]) {
	describe(setting.name, () => {
		const made: string[] = [];
		let credential: CredentialRef;
		const prefix = setting.trigger ? 'with' : 'alone';

		beforeAll(async () => {
			credential = await relayCredential(`ask twice ${prefix}`, setting.apiKey);
			if (setting.trigger) {
				const { workflowId } = await triggerWorkflow({
					name: `ask twice: the account's trigger`,
					apiKey: setting.apiKey,
					webhookId: '5a1b2c3d-0041-4000-8000-000000000001',
					events: ['message.received'],
					typeVersion: 3,
				});
				await api('POST', `/workflows/${workflowId}/activate`);
				made.push(workflowId);
			}
		});
		afterAll(async () => {
			for (const id of made)
				await api('POST', `/workflows/${id}/deactivate`).catch(() => undefined);
		});

		const id = (n: number) =>
			`5a1b2c3d-0041-4000-8${setting.trigger ? '1' : '2'}00-${String(n).padStart(12, '0')}`;

		test.each([
			['the same contact twice', ADA, ADA, 10],
			['another contact the second time', ADA, GRACE, 20],
		])(
			'two Send and Wait nodes, %s: each question gets its own answer',
			async (_what, to, second, n) => {
				const path = `ask-twice-${prefix}-${n}`;
				const workflowId = await createWorkflow(
					n8n,
					followUp(credential, path, [id(n), id(n + 1), id(n + 2)]),
				);
				await api('POST', `/workflows/${workflowId}/activate`);
				made.push(workflowId);
				const since = Date.now();
				await start(path, { to, second });
				await asked(workflowId, setting.account, to, 'Which day?', 1, since);
				await answer(setting.account, to, 'Monday');
				await asked(workflowId, setting.account, second, 'Which time?', 1, since);
				await answer(setting.account, second, 'Noon');
				const [run] = await finished(workflowId, 1);
				expect(answersIn(run, 'Which day')).toEqual(['Monday']);
				expect(answersIn(run, 'Which time')).toEqual(['Noon']);
			},
		);

		test('two Approval questions, the first asked again after an unclear answer: each takes its own decision', async () => {
			const path = `approve-twice-${prefix}`;
			const workflowId = await createWorkflow(
				n8n,
				approveTwice(credential, path, [id(40), id(41), id(42)]),
			);
			await api('POST', `/workflows/${workflowId}/activate`);
			made.push(workflowId);
			const since = Date.now();
			await start(path, { to: ADA });
			await asked(workflowId, setting.account, ADA, 'Approve the order?', 1, since);
			await answer(setting.account, ADA, 'maybe');
			await asked(workflowId, setting.account, ADA, RE_ASK, 1, since);
			await answer(setting.account, ADA, 'yes');
			await asked(workflowId, setting.account, ADA, 'Approve the shipping?', 1, since);
			await answer(setting.account, ADA, 'no');
			const [run] = await finished(workflowId, 1);
			expect(answersIn(run, 'Order')).toEqual(['yes']);
			expect(answersIn(run, 'Order', 'decision')).toEqual(['approved']);
			expect(answersIn(run, 'Shipping')).toEqual(['no']);
			expect(answersIn(run, 'Shipping', 'decision')).toEqual(['declined']);
		});

		test('one node in a loop asks three times: three answers, in order, once each', async () => {
			const path = `ask-loop-${prefix}`;
			const workflowId = await createWorkflow(n8n, loop(credential, path, [id(30), id(31)]));
			await api('POST', `/workflows/${workflowId}/activate`);
			made.push(workflowId);
			const since = Date.now();
			await start(path, { to: GRACE });
			for (const [i, text] of ['one', 'two', 'three'].entries()) {
				await asked(workflowId, setting.account, GRACE, 'Anything else?', i + 1, since);
				await answer(setting.account, GRACE, text);
			}
			const [run] = await finished(workflowId, 1);
			expect(answersIn(run, 'Anything else')).toEqual(['one', 'two', 'three']);
		});
	});
}
