'use strict';
/**
 * The main job until the real-n8n setup lands: starts the relay simulator, then runs the BUILT
 * Messaging Relay node (dist/) through n8n-core's WorkflowExecute to list the numbers and send
 * a message, and shows what the simulator received. Run with `npm run demo`.
 */
const { ExecutionLifecycleHooks, WorkflowExecute } = require('n8n-core');
const { ICredentialsHelper, Workflow, createRunExecutionData } = require('n8n-workflow');

const { MessagingRelay } = require('../dist/nodes/MessagingRelay/MessagingRelay.node');
const { MessagingRelayApi } = require('../dist/credentials/MessagingRelayApi.credentials');
const { startRelaySimulator } = require('../test/fixtures/relay-simulator');

const TYPE = 'n8n-nodes-messaging-relay.messagingRelay';

class DemoCredentialsHelper extends ICredentialsHelper {
	constructor(data) {
		super();
		this.data = data;
		this.type = new MessagingRelayApi();
	}
	getParentTypes() { return []; }
	isCredentialUsableByNode() { return true; }
	authenticate(credentials, _type, options) { return this.type.authenticate(credentials, options); }
	async preAuthentication() { return undefined; }
	async runPreAuthentication() { return undefined; }
	async getCredentials() { throw new Error('not used'); }
	async getDecrypted() { return { ...this.data }; }
	async updateCredentials() {}
	async updateCredentialsOauthTokenData() {}
	getCredentialsProperties() { return this.type.properties; }
}

async function run(parameters, credentials) {
	const node = {
		id: 'demo', name: 'Messaging Relay', type: TYPE, typeVersion: 1, position: [0, 0], parameters,
		credentials: { messagingRelayApi: { id: '1', name: 'Messaging Relay account' } },
	};
	const nodeType = new MessagingRelay();
	const nodeTypes = { getByName: () => nodeType, getByNameAndVersion: () => nodeType, getKnownTypes: () => ({}) };
	const workflow = new Workflow({ id: 'demo', nodes: [node], connections: {}, active: false, nodeTypes });
	const hooks = new ExecutionLifecycleHooks('manual', 'demo-1', { id: 'demo', name: 'demo', nodes: [node], connections: {} });
	const done = new Promise((resolve) => hooks.addHandler('workflowExecuteAfter', resolve));
	const base = 'http://127.0.0.1:5678';
	const additionalData = {
		credentialsHelper: new DemoCredentialsHelper(credentials), hooks, executionId: 'demo-1', currentNodeExecutionIndex: 0,
		restApiUrl: `${base}/rest`, instanceBaseUrl: `${base}/`, formBaseUrl: `${base}/form`, formWaitingBaseUrl: `${base}/form-waiting`,
		formTestBaseUrl: `${base}/form-test`, webhookBaseUrl: `${base}/webhook`, webhookWaitingBaseUrl: `${base}/webhook-waiting`,
		webhookTestBaseUrl: `${base}/webhook-test`, mcpBaseUrl: `${base}/mcp`, mcpTestBaseUrl: `${base}/mcp-test`, variables: {},
	};
	const data = createRunExecutionData({
		executionData: { nodeExecutionStack: [{ node, data: { main: [[{ json: {} }]] }, source: null }] },
	});
	await new WorkflowExecute(additionalData, 'manual', data).processRunExecutionData(workflow);
	const result = await done;
	if (result.data.resultData.error) throw new Error(result.data.resultData.error.message);
	return result.data.resultData.runData[node.name][0].data.main[0].map((item) => item.json);
}

async function main() {
	const simulator = await startRelaySimulator({ port: Number(process.env.RELAY_SIM_PORT ?? 0) });
	const credentials = { baseUrl: simulator.baseUrl, apiKey: 'sim-key-full', authHeader: 'xApiKey' };
	console.log(`Relay simulator on ${simulator.baseUrl}`);
	try {
		const numbers = await run({ resource: 'number', operation: 'getAll', returnAll: true }, credentials);
		console.log('Number → Get Many:', numbers.map((n) => `${n.id} (${n.status})`).join(', '));
		const sent = await run(
			{ resource: 'message', operation: 'send', channelId: { __rl: true, mode: 'id', value: 'num_main' }, to: '+4917612345678', text: 'Hello from n8n' },
			credentials,
		);
		console.log('Message → Send output:', JSON.stringify(sent[0]));
		console.log('The simulator received:', JSON.stringify(simulator.messages));
	} finally {
		await simulator.stop();
	}
}

main().catch((error) => {
	console.error(`Demo failed: ${error.message}`);
	process.exit(1);
});
