/**
 * Issue 41, items 3 and 4: a wait lives exactly as long as its run waits. A question that could not be sent
 * leaves no wait behind; at the account's capacity the oldest waits are asked whether their runs still wait
 * and the rest are ended before anything is refused, and the refusal says what was found; members end what
 * the holder ends. On f97c44d a failed question left a live wait with no limit, 10,000 of them refused every
 * Send and Wait forever with a message that was not true, and members kept every wait live for good.
 * Run in n8n-core's WorkflowExecute against a stand-in n8n with published triggers (real HTTP).
 */
import type { INodeParameters } from 'n8n-workflow';
import { sleep, Workflow } from 'n8n-workflow';

import {
	recordWaits,
	WAIT_CAPACITY,
	waitsInStaticData,
	type WaitEntry,
} from '../../../nodes/shared/sendAndWait/waitingRuns';
import { deriveShareKey, proofFor } from '../../../nodes/shared/sharedWebhook/signedHandoff';
import type { WebhookState } from '../../../nodes/shared/sharedWebhook/webhookState';
import { receivedIn } from '../../fixtures/events';
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

const KEY = deriveShareKey('sim-key-full');
let runs = 0;

async function ask(to: string, channelId = 'num_main') {
	const asking = relayNode({
		resource: 'message',
		operation: 'sendAndWait',
		message: 'Can you come on Friday?',
		waitTo: to,
		waitChannelId: channelId,
	});
	const workflow = new Workflow({
		id: 'wf-campaign',
		nodes: [asking],
		connections: {},
		active: true,
		nodeTypes: new PackageNodeTypes(),
	});
	return await executeFrom(
		workflow,
		asking,
		[[{ json: {} }]],
		relayCredentials(sim.baseUrl),
		'webhook',
		n8n.baseUrl,
		`exec-${++runs}`,
	);
}

const stateOf = (w: SharedWorkflow) => JSON.parse(w.db)[`node:${w.node.name}`] as WebhookState;
/** Live waits in what n8n saved (no process's memory). */
const liveIn = (w: SharedWorkflow) =>
	Object.values(waitsInStaticData(stateOf(w))).filter((x) => !x.resumedBy && x.until > Date.now())
		.length;
const questionsSent = () =>
	sim.requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages').length;

test('a question that could not be sent (unknown number): the run fails, and no wait is left live at any trigger', async () => {
	const holder = n8n.addWorkflow('holder', { events: ['message.received'] } as INodeParameters);
	const member = n8n.addWorkflow('member', { events: ['message.received'] } as INodeParameters);
	await member.publish();
	await holder.publish();
	const run = await ask('+4917612345678', 'num_nope');
	expect(run.data.resultData.error?.message).toContain('Not found');
	for (const trigger of [holder, member]) {
		const waits = Object.values(waitsInStaticData(stateOf(trigger)));
		expect(waits).toHaveLength(1);
		expect(waits[0].until).toBeLessThanOrEqual(Date.now());
		expect(liveIn(trigger)).toBe(0);
	}
});

describe('at the capacity', () => {
	/** The holder with WAIT_CAPACITY live waits, the oldest 100 older than a minute, as n8n saved them. */
	async function full(): Promise<SharedWorkflow> {
		const holder = n8n.addWorkflow('holder', { events: ['message.received'] } as INodeParameters);
		await holder.publish();
		const now = Date.now();
		const waits: WaitEntry[] = Array.from({ length: WAIT_CAPACITY }, (_, i) => ({
			executionId: `old-${i}`,
			resumePath: `/webhook-waiting/old-${i}/ask?since=${now - 600_000 + i}`,
			chat: `49176${String(i).padStart(8, '0')}@c.us`,
			channelId: 'num_main',
			since: now - 600_000 + i,
			until: now + 3_600_000,
		}));
		const state = stateOf(holder);
		const filler = `filler-${holder.node.webhookId}`;
		recordWaits(
			{
				getWorkflow: () => ({ id: filler }),
				getNode: () => ({ name: 'x' }),
				getMode: () => 'webhook',
			},
			state,
			waits,
		);
		holder.db = JSON.stringify({ [`node:${holder.node.name}`]: state });
		return holder;
	}

	test('the oldest runs no longer wait: they are ended, and the new question is asked', async () => {
		const holder = await full();
		// n8n answers the oldest 10 without the node's proof (finished or deleted); the others prove they wait.
		n8n.waitingRoute = (path, request, response) => {
			const i = Number(/old-(\d+)/.exec(path)?.[1]);
			if (i < 10)
				return void response.status(404).json({ message: 'The execution does not exist.' });
			const nonce = request.headers['x-relay-nonce'] as string;
			response.status(200).json({ proof: proofFor(KEY, nonce, path.split('?')[0]) });
		};
		const run = await ask('+4915112345678');
		expect(run.data.resultData.error).toBeUndefined();
		expect(questionsSent()).toBe(1);
		const state = stateOf(holder);
		expect(liveIn(holder)).toBe(WAIT_CAPACITY - 10 + 1);
		const stored = waitsInStaticData(state);
		for (let i = 0; i < 10; i++)
			expect(
				Object.values(stored).find((w) => w.executionId === `old-${i}`)?.until,
			).toBeLessThanOrEqual(Date.now());
	});

	test('every run still waits: refused before it asks, with what was found and checked', async () => {
		await full();
		n8n.waitingRoute = (path, request, response) => {
			const nonce = request.headers['x-relay-nonce'] as string;
			response.status(200).json({ proof: proofFor(KEY, nonce, path.split('?')[0]) });
		};
		const run = await ask('+4915112345678');
		expect(run.data.resultData.error?.message).toBe(
			'This account already has 10,000 runs waiting for a reply, the most one account can hold',
		);
		expect(run.data.resultData.error?.description).toContain(
			'10,000 runs wait for a reply on this account; the 64 oldest were checked just now and still wait.',
		);
		expect(questionsSent()).toBe(0);
	});
});

test('members end what the holder ends: a run resumed by its answer is not live at a member either', async () => {
	const member = n8n.addWorkflow('member', { events: ['message.received'] } as INodeParameters);
	const holder = n8n.addWorkflow('holder', { events: ['message.received'] } as INodeParameters);
	await member.publish();
	await holder.publish();
	const run = await ask('+4917612345678');
	expect(run.data.resultData.error).toBeUndefined();
	expect(liveIn(member)).toBe(1);
	n8n.waitingRoute = (path, request, response) => {
		const nonce = request.headers['x-relay-nonce'] as string;
		response.status(200).json({ proof: proofFor(KEY, nonce, path.split('?')[0]), consumed: true });
	};
	expect((await sim.deliver(receivedIn('4917612345678@c.us', { text: 'yes' }))).status).toBe(200);
	// The holder tells its members in the background.
	for (let i = 0; i < 50 && liveIn(member) > 0; i++) await sleep(20);
	expect(liveIn(member)).toBe(0);
	// The holder's own mark went into its memory after n8n saved the offer: with no other request to
	// carry it, a request of its own saves it (FLUSH_AFTER_MS).
	for (let i = 0; i < 100 && liveIn(holder) > 0; i++) await sleep(50);
	expect(liveIn(holder)).toBe(0);
});

test('a trigger published while runs wait becomes the holder with their waits, and routes their answers', async () => {
	const first = n8n.addWorkflow('first', { events: ['message.received'] } as INodeParameters);
	await first.publish();
	expect((await ask('+4917612345678')).data.resultData.error).toBeUndefined();
	const later = n8n.addWorkflow('later', { events: ['message.received'] } as INodeParameters);
	await later.publish();
	// The later trigger holds the account's webhook now (the registration names it first).
	expect(sim.webhook?.url.startsWith(later.productionUrl)).toBe(true);
	expect(liveIn(later)).toBe(1);
	const offered: string[] = [];
	n8n.waitingRoute = (path, request, response) => {
		offered.push(path);
		const nonce = request.headers['x-relay-nonce'] as string;
		response.status(200).json({ proof: proofFor(KEY, nonce, path.split('?')[0]), consumed: true });
	};
	const answered = await sim.deliver(receivedIn('4917612345678@c.us', { text: 'yes' }));
	expect([answered.status, JSON.parse(answered.body)]).toEqual([
		200,
		{ received: true, answered: 'a waiting run' },
	]);
	expect(offered).toHaveLength(1);
	expect(first.productionEvents).toHaveLength(0);
	expect(later.productionEvents).toHaveLength(0);
});
