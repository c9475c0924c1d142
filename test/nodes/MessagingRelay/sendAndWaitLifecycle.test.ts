/**
 * The action node's webhook lifecycle (Send and Wait for Reply's restart webhook). n8n never
 * calls it (restart webhooks are left out at publish: the node file says where); if something
 * does, it must leave the account's one webhook to whoever holds it, a published trigger or a
 * waiting run, and make no request at all. Run through n8n-core's HookContext, as n8n would.
 */
import { HookContext } from 'n8n-core';
import type { IWebhookData, WorkflowActivateMode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { MessagingRelay } from '../../../nodes/MessagingRelay/MessagingRelay.node';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import {
	ACTION_TYPE,
	PackageNodeTypes,
	additionalDataFor,
	packageNode,
	relayCredentials,
} from '../../support/harness/n8nRuntime';
import { TriggerHarness } from '../../support/harness/triggerRuntime';

type LifecycleMethod = 'checkExists' | 'create' | 'delete';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.reset());

const action = new MessagingRelay();
const node = packageNode(
	'ask-node',
	'Ask the guest',
	ACTION_TYPE,
	{ resource: 'message', operation: 'sendAndWait' },
	{ webhookId: 'ask-node' },
);
const workflow = new Workflow({
	id: 'wf-ask',
	nodes: [node],
	connections: {},
	active: true,
	nodeTypes: new PackageNodeTypes(),
	staticData: {},
});

/** Calls one lifecycle method of the action node's webhook as n8n's WebhookService.runWebhookMethod would. */
async function lifecycle(
	method: LifecycleMethod,
	activation: WorkflowActivateMode,
): Promise<boolean> {
	const additionalData = additionalDataFor(relayCredentials(sim.baseUrl));
	const webhookData: IWebhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: node.id,
		webhookDescription: action.description.webhooks![0],
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
		webhookId: node.webhookId,
	};
	const context = new HookContext(
		workflow,
		node,
		additionalData,
		activation === 'manual' ? 'manual' : 'trigger',
		activation,
		webhookData,
	);
	return await action.webhookMethods.default[method].call(context);
}

/** Every way n8n could call the lifecycle: publish (checkExists, then create if missing), unpublish, test listening. */
async function callEverything(): Promise<boolean[]> {
	const answers: boolean[] = [];
	for (const activation of ['activate', 'update', 'manual'] as WorkflowActivateMode[]) {
		for (const method of ['checkExists', 'create', 'delete'] as LifecycleMethod[])
			answers.push(await lifecycle(method, activation));
	}
	return answers;
}

test('the lifecycle is complete and says there is nothing to register: checkExists, create and delete answer true', async () => {
	expect(await lifecycle('checkExists', 'activate')).toBe(true);
	expect(await lifecycle('create', 'activate')).toBe(true);
	expect(await lifecycle('delete', 'activate')).toBe(true);
});

test('a published trigger keeps the account webhook: no request reaches the service, the registration stands', async () => {
	const trigger = await TriggerHarness.start(sim, { events: ['message.received'] });
	try {
		await trigger.activate();
		const registered = { ...sim.webhook! };
		const before = sim.requests.length;
		expect(await callEverything()).toEqual(Array(9).fill(true));
		expect(sim.requests.slice(before)).toEqual([]);
		expect(sim.webhook).toEqual(registered);
	} finally {
		await trigger.stop();
	}
});

test('a waiting run that holds the account webhook keeps it: delete removes nothing', async () => {
	// What waitingHolder.ts registers when no trigger is published: the waiting node's resume URL.
	const waiting = {
		url: 'https://n8n.example.com/webhook-waiting/exec-7/ask-node?signature=abc',
		active: true,
		secret: 'whsec_waiting',
	};
	sim.webhook = { ...waiting };
	expect(await callEverything()).toEqual(Array(9).fill(true));
	expect(sim.requests).toEqual([]);
	expect(sim.webhook).toEqual(waiting);
});
