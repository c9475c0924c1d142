/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The bets on n8n's internals that the account state rests on (docs/design/n8n-internals.md, "Whether n8n
 * saved static data"), read in the n8n that this suite's stack runs (2.41.1, and 1.123.81 with
 * `npm run test:e2e:n8n1`): when one of them no longer holds, this fails before a user meets it.
 *   1. A node context keeps the Workflow as its `workflow` field (nodes/shared/n8n/staticDataSave.ts).
 *   2. A write into a node's static data marks the workflow's static data changed.
 *   3. After webhook() n8n saves static data when it changed, and clears the flag only once the save
 *      succeeded; a failed save is logged and leaves it set.
 * And the behaviour the bets add up to, in the running n8n: a hand-off that writes is answered only after
 * its write is in the database.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import type { INodeParameters } from 'n8n-workflow';

import { answerFields } from '../../nodes/MessagingRelayTrigger/webhookAnswer';
import { signHandoff, deriveShareKey } from '../../nodes/shared/sharedWebhook/signedHandoff';
import { ADA_CHAT } from '../fixtures/events';
import { api, info, productionUrl, triggerWorkflow } from '../support/e2e';

/** The installed n8n's node_modules (n8nBin is node_modules/n8n/bin/n8n). */
const modules = join(dirname(info.n8nBin), '..', '..');
const read = (path: string) => readFileSync(join(modules, path), 'utf8');

test(`n8n ${info.n8nVersion}: a node context keeps its Workflow, a node's write marks static data changed, and the flag is cleared only after a successful save`, () => {
	const context = read(
		'n8n-core/dist/execution-engine/node-execution-context/node-execution-context.js',
	);
	expect(context).toMatch(
		/constructor\(workflow, node, additionalData, mode[^)]*\) \{\s*this\.workflow = workflow;/,
	);

	const observable = read('n8n-workflow/dist/cjs/observable-object.js');
	expect(observable).toContain('parent.__dataChanged = true;');
	const workflow = read('n8n-workflow/dist/cjs/workflow.js');
	expect(workflow).toMatch(
		/this\.staticData\[key\] = ObservableObject\.create\(\{\}, this\.staticData\)/,
	);

	const service = read('n8n/dist/workflows/workflow-static-data.service.js');
	const save = service.slice(service.indexOf('async saveStaticData(workflow)'));
	expect(save).toMatch(
		/if \(workflow\.staticData\.__dataChanged === true\) \{[\s\S]*?try \{\s*await this\.saveStaticDataById\(workflow\.id, workflow\.staticData\);\s*workflow\.staticData\.__dataChanged = false;\s*\}\s*catch \(error\) \{[\s\S]*?this\.logger\.error/,
	);
	const live = read('n8n/dist/webhooks/live-webhooks.js');
	expect(live).toMatch(
		/await this\.workflowStaticDataService\.saveStaticData\(workflow\);\s*resolve\(data\);/,
	);
});

// staticDataSave.ts runLeavesWritesUnsaved: a request whose webhook() returns a run hands its
// static data to WorkflowRunner, which builds a new Workflow on that same object; the Workflow's
// ObservableObject.create defines `__dataChanged` false on it again, so the webhook's save after
// the answer finds nothing to save (docs/design/account-state.md, "Found while measuring").
test(`n8n ${info.n8nVersion}: a run started by a webhook request takes its static data into a new Workflow, which clears the changed flag`, () => {
	const runner = read('n8n/dist/workflow-runner.js');
	const main = runner.slice(runner.indexOf('async runMainProcess('));
	expect(main).toMatch(
		/new n8n_workflow_1\.Workflow\(\{[^}]*staticData: data\.workflowData\.staticData,/,
	);
	const observable = read('n8n-workflow/dist/cjs/observable-object.js');
	expect(observable).toMatch(
		/Object\.defineProperty\(target, '__dataChanged', \{\s*value: false,\s*writable: true,/,
	);
	const workflow = read('n8n-workflow/dist/cjs/workflow.js');
	expect(workflow).toMatch(/ObservableObject\.create\(parameters\.staticData/);
});

// staticDataSave.ts isWebhookRequest: of n8n's node contexts, only a webhook call's has the
// request's response, and n8n saves static data after that request (the save above).
test(`n8n ${info.n8nVersion}: only the webhook context has getResponseObject`, () => {
	const contexts = 'n8n-core/dist/execution-engine/node-execution-context';
	expect(read(`${contexts}/webhook-context.js`)).toMatch(/getResponseObject\(\) \{/);
	for (const other of [
		'hook-context.js',
		'trigger-context.js',
		'poll-context.js',
		'execute-context.js',
	])
		expect(read(`${contexts}/${other}`)).not.toContain('getResponseObject');
});

/** The resolver of one description field, as the running n8n's n8n-workflow exports it (2.x). */
type ResolveField = (
	node: { parameters: INodeParameters },
	description: object,
	field: string,
) => { resolved: boolean; value?: unknown };

// nodes/shared/n8n/webhookResolvers.ts builds n8n-workflow's resolver key itself (1.123.81 has none).
test(`n8n ${info.n8nVersion}: trigger version 3's answer fields resolve without the expression engine (2.x), or are templates only (1.x)`, () => {
	const interfaces = read('n8n-workflow/dist/cjs/interfaces.js');
	if (Number(info.n8nVersion.split('.')[0]) < 2) {
		expect(interfaces).not.toContain('webhookDescriptionResolvers');
		return;
	}
	expect(interfaces).toContain(
		"exports.WEBHOOK_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');",
	);
	// eslint-disable-next-line @typescript-eslint/no-require-imports -- the running n8n's own copy, by path
	const workflow = require(join(modules, 'n8n-workflow')) as {
		resolveWebhookDescriptionField: ResolveField;
	};
	const fields = answerFields([3]);
	for (const [acknowledge, responseMode, responseData] of [
		['whenFinished', 'lastNode', 'noData'],
		['whenStarted', 'onReceived', ''],
	]) {
		const node = { parameters: { acknowledge } };
		expect(workflow.resolveWebhookDescriptionField(node, fields, 'responseMode')).toEqual({
			resolved: true,
			value: responseMode,
		});
		expect(workflow.resolveWebhookDescriptionField(node, fields, 'responseData')).toEqual({
			resolved: true,
			value: responseData,
		});
	}
});

test(`n8n ${info.n8nVersion}: a pause hand-off is answered once its pause is in the database`, async () => {
	const webhookId = '6c2d3e4f-0041-4000-8000-000000000001';
	const { workflowId } = await triggerWorkflow({
		name: 'internals: a trigger with pauses',
		apiKey: 'sim-key-ask-twice',
		webhookId,
		events: ['message.received'],
		options: {
			pauseWhenPersonReplies: { settings: { minutes: 30, keyword: '#bot', apiOrigins: 'api' } },
		} as INodeParameters,
		typeVersion: 3,
	});
	await api('POST', `/workflows/${workflowId}/activate`);
	try {
		const url = productionUrl(webhookId);
		const body = JSON.stringify({ chat: ADA_CHAT, pause: true, at: Date.now() });
		const answer = await fetch(url, {
			method: 'POST',
			headers: {
				...signHandoff(deriveShareKey('sim-key-ask-twice'), 'pause', new URL(url).pathname, body)
					.headers,
				'content-type': 'application/json',
			},
			body,
		});
		expect(answer.status).toBe(200);
		expect(await answer.json()).toMatchObject({ applied: true });
		// Read right after the answer: already saved.
		const saved = (await api('GET', `/workflows/${workflowId}`)) as {
			staticData?: Record<string, { pauseRows?: string }>;
		};
		expect(Object.values(saved.staticData ?? {})[0]?.pauseRows).toContain(ADA_CHAT);
	} finally {
		await api('POST', `/workflows/${workflowId}/deactivate`).catch(() => undefined);
	}
});
