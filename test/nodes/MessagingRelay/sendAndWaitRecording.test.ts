/**
 * Send and Wait for Reply records its wait with the account's triggers once per run in the usual
 * case (docs/design/account-state.md): each `wait` hand-off makes n8n save the trigger's whole
 * static data, so the question's message id is sent in a second hand-off only when another run
 * waits in the same chat (a reply that quotes one of two questions goes to that question's run).
 * Run in n8n-core's WorkflowExecute against a stand-in n8n with a published trigger.
 */
import type { INodeParameters } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { waitsInStaticData } from '../../../nodes/shared/sendAndWait/waitingRuns';
import type { WebhookState } from '../../../nodes/shared/sharedWebhook/webhookState';
import type { RelaySimulator } from '../../simulator';
import {
	executeFrom,
	PackageNodeTypes,
	relayCredentials,
	relayNode,
} from '../../support/harness/n8nRuntime';
import {
	withSharedN8nPerTest,
	type SharedN8n,
	type SharedWorkflow,
} from '../../support/harness/sharedN8n';

let sim: RelaySimulator;
let n8n: SharedN8n;
withSharedN8nPerTest((s, n) => ([sim, n8n] = [s, n]));

const ADA = '+4917612345678';

let runs = 0;
async function ask(to: string) {
	const asking = relayNode({
		resource: 'message',
		operation: 'sendAndWait',
		message: 'Can you come on Friday?',
		waitTo: to,
		waitChannelId: 'num_main',
	});
	const workflow = new Workflow({
		id: 'wf-campaign',
		nodes: [asking],
		connections: {},
		active: true,
		nodeTypes: new PackageNodeTypes(),
	});
	const run = await executeFrom(
		workflow,
		asking,
		[[{ json: {} }]],
		relayCredentials(sim.baseUrl),
		'webhook',
		n8n.baseUrl,
		`exec-${++runs}`,
	);
	expect(run.data.resultData.error).toBeUndefined();
	return run;
}

const waitHandoffs = () => n8n.served.filter((s) => s.handoff === 'wait').length;
const stored = (holder: SharedWorkflow) =>
	Object.values(
		waitsInStaticData(JSON.parse(holder.db)[`node:${holder.node.name}`] as WebhookState),
	);
const questionsSent = () =>
	sim.requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages').length;

test("the only run in its chat: one save of the trigger's static data (its `wait`, then a confirm that finds it saved); a second run in that chat also sends its question's id", async () => {
	const holder = n8n.addWorkflow('campaign trigger', {
		events: ['message.received'],
	} as INodeParameters);
	await holder.publish();
	let saves = 0;
	const counting = holder as unknown as { db: string };
	let db = counting.db;
	Object.defineProperty(counting, 'db', {
		get: () => db,
		set: (value: string) => void ((db = value), saves++),
	});

	await ask(ADA);
	expect(waitHandoffs()).toBe(2);
	expect(saves).toBe(1);
	expect(questionsSent()).toBe(1);
	expect(stored(holder)).toEqual([
		expect.objectContaining({ chat: '4917612345678', questionId: null }),
	]);

	// Another run asks the same contact while the first waits: its wait carries its question's id.
	await ask(ADA);
	expect(waitHandoffs()).toBe(5);
	const waits = stored(holder).sort((a, b) => a.since - b.since);
	expect(waits.map((w) => w.questionId)).toEqual([null, expect.stringMatching(/\S/)]);

	// A third contact is alone in its chat again: record and confirm.
	await ask('+4915112345678');
	expect(waitHandoffs()).toBe(7);
});

test("two webhook processes: a wait another process's save dropped is written again before the question goes out", async () => {
	const holder = n8n.addWorkflow('campaign trigger', {
		events: ['message.received'],
	} as INodeParameters);
	await holder.publish();
	// The wait's save and the first confirm's rewrite are both lost to another process's saves.
	holder.lostSaves = 2;
	await ask(ADA);
	// record, confirm (not found: written again, lost), confirm (not found: written again), confirm (found)
	expect(waitHandoffs()).toBe(4);
	expect(stored(holder)).toEqual([expect.objectContaining({ chat: '4917612345678' })]);
	expect(questionsSent()).toBe(1);
});

test('a wait that never reaches the database: the run fails before it asks, and says what to do', async () => {
	const holder = n8n.addWorkflow('campaign trigger', {
		events: ['message.received'],
	} as INodeParameters);
	await holder.publish();
	holder.lostSaves = 100;
	const asking = relayNode({
		resource: 'message',
		operation: 'sendAndWait',
		message: 'Can you come on Friday?',
		waitTo: ADA,
		waitChannelId: 'num_main',
	});
	const workflow = new Workflow({
		id: 'wf-campaign',
		nodes: [asking],
		connections: {},
		active: true,
		nodeTypes: new PackageNodeTypes(),
	});
	const run = await executeFrom(
		workflow,
		asking,
		[[{ json: {} }]],
		relayCredentials(sim.baseUrl),
		'webhook',
		n8n.baseUrl,
		'exec-lost',
	);
	expect(run.data.resultData.error).toMatchObject({
		message:
			"The Messaging Relay Trigger that receives this account's events could not keep the wait",
		description: expect.stringContaining('The question was not sent.'),
	});
	expect(questionsSent()).toBe(0);
	// Its wait may still be in the holder's memory: it was ended, so the next save does not bring it back.
	holder.lostSaves = 0;
	await ask('+4917612345679');
	const live = stored(holder).filter((w) => w.until > Date.now() && w.resumedBy === undefined);
	expect(live.map((w) => w.chat)).toEqual(['4917612345679']);
});
