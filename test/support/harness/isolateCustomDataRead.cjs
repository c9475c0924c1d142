/**
 * Reads one custom-data key of a waiting run, as the package's built `executionCustomData`
 * (dist/nodes/shared/n8n/capabilities.js) reads it in the webhook that resumes the run on n8n
 * 1.123.x, with n8n's expressions evaluated in an isolate as 1.123.81 evaluates them by default
 * (@n8n/config expression-engine.config.js:21, `engine = 'vm'`; n8n commands/base-command.js:128-147).
 *
 * A plain Node.js process, because n8n-workflow starts its isolate engine with a dynamic `import()`
 * that jest's module sandbox refuses. The engine is the runtime's QuickJS one: 1.123.81's
 * isolated-vm has no build for the Node.js the unit tests run on, and both bridges hand the host's
 * data over with the same rule, a function comes back `undefined` (@n8n/expression-runtime 2.41.1
 * bridge/host-functions.js:107-113; 1.123.81 bridge/isolated-vm-bridge.js:324-331).
 *
 * stdin: {"run": IRunExecutionData, "key": "...", "engine"?: "vm"}; stdout: n8n's log lines, then one line
 * `RESULT <json of what was read>`.
 */
const { WebhookContext } = require('n8n-core');
const { Expression, Workflow } = require('n8n-workflow');

const { MessagingRelay } = require('../../../dist/nodes/MessagingRelay/MessagingRelay.node.js');
const { executionCustomData } = require('../../../dist/nodes/shared/n8n/capabilities.js');

/** What n8n-core 1.123.81's WebhookContext lacks (test/support/harness/n8n1.ts, MISSING_IN_1_123). */
const MISSING_IN_1_123 = new Set(['getWebhookResourceUrl', 'customData', 'getWorkflowDataProxy']);

async function main() {
	const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
	await Expression.initExpressionEngine({ engine: input.engine ?? 'quickjs', poolSize: 1, maxCodeCacheSize: 16, bridgeTimeout: 5000, bridgeMemoryLimit: 128 });
	const type = new MessagingRelay();
	const node = { id: 'relay-node', name: 'Messaging Relay', type: 'n8n-nodes-messaging-relay.messagingRelay', typeVersion: 1, position: [0, 0], parameters: {} };
	const workflow = new Workflow({ id: 'wf-wait', nodes: [node], connections: {}, active: true, nodeTypes: { getByName: () => type, getByNameAndVersion: () => type, getKnownTypes: () => ({}) } });
	const additionalData = {
		executionId: 'exec-1',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		variables: {},
		httpRequest: { headers: {}, body: {}, query: {} },
	};
	const description = type.description.webhooks[0];
	const webhookData = { httpMethod: 'POST', node: node.name, path: node.id, webhookDescription: description, workflowId: 'wf-wait', workflowExecuteAdditionalData: additionalData };
	const context = new WebhookContext(workflow, node, additionalData, 'webhook', webhookData, [], input.run);
	const resumed = new Proxy(context, {
		has: (target, property) => !MISSING_IN_1_123.has(property) && Reflect.has(target, property),
		get: (target, property, receiver) => (MISSING_IN_1_123.has(property) ? undefined : Reflect.get(target, property, receiver)),
	});
	// As n8n 1.123.81 serves a waiting run's webhook: inside an acquired isolate (webhooks/waiting-webhooks.js:172-217).
	const result = await workflow.expression.withIsolate(async () => ({
		engine: Expression.expressionEngine,
		// The isolate is live and has the run: a plain value comes through, a function does not.
		executionId: resumed.evaluateExpression('{{ $execution.id }}', 0),
		customDataGet: resumed.evaluateExpression('{{ typeof $execution.customData.get }}', 0),
		value: executionCustomData(resumed).get(input.key) ?? null,
	}));
	await Expression.disposeExpressionEngine();
	process.stdout.write(`\nRESULT ${JSON.stringify(result)}\n`);
}

main().catch((error) => {
	process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
	process.exit(1);
});
