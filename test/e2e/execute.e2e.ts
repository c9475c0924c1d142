/**
 * The action node in a workflow run by `n8n execute --id`, n8n's own CLI runner, against the
 * simulator's acct_cli (its own webhook, so the published triggers are not disturbed).
 */
import { api, relayCredential, runN8nCli, simRequests } from '../support/e2e';

/** The Bearer header here, so both ways of sending the key are used in the real n8n. */
const credential = (name: string, apiKey: string) => relayCredential(name, apiKey, 'bearer');

const sendStep = (text: string) => ({
	resource: 'message',
	operation: 'send',
	channelId: { __rl: true, mode: 'id', value: 'num_main' },
	to: '+4917600000042',
	text,
});

/** Manual trigger → each given action node in a row, each run once. */
async function actionWorkflow(
	name: string,
	cred: { id: string; name: string },
	steps: Array<Record<string, unknown>>,
) {
	const nodes = [
		{
			id: 'start',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		...steps.map((parameters, index) => ({
			id: `step-${index}`,
			name: `Step ${index + 1}`,
			type: 'n8n-nodes-messaging-relay.messagingRelay',
			typeVersion: 1,
			position: [220 * (index + 1), 0],
			executeOnce: true,
			parameters,
			credentials: { messagingRelayApi: cred },
		})),
	];
	const names = nodes.map((n) => n.name);
	const connections = Object.fromEntries(
		names
			.slice(0, -1)
			.map((from, i) => [from, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]),
	);
	const workflow = await api('POST', '/workflows', {
		name,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	});
	return workflow.id as string;
}

describe('the action node under `n8n execute`', () => {
	test('sends a message, reads numbers and manages the webhook', async () => {
		const cred = await credential('Messaging Relay CLI account', 'sim-key-cli');
		const id = await actionWorkflow('e2e: actions', cred, [
			sendStep('Sent by n8n execute'),
			{ resource: 'number', operation: 'getAll', returnAll: true },
			{
				resource: 'number',
				operation: 'get',
				numberId: { __rl: true, mode: 'id', value: 'num_old' },
			},
			{ resource: 'webhook', operation: 'set', url: 'https://hooks.example.com/cli' },
			{ resource: 'webhook', operation: 'get' },
			{ resource: 'webhook', operation: 'delete' },
		]);
		const since = Date.now();
		const result = runN8nCli(['execute', '--id', id]);
		expect(result.stdout + result.stderr).toContain('Execution was successful');
		expect(result.status).toBe(0);
		const calls = (await simRequests(since))
			.filter((r) => r.account === 'acct_cli')
			.map((r) => `${r.method} ${r.path}`);
		expect(calls).toEqual([
			'POST /v1/messages',
			'GET /v1/numbers',
			'GET /v1/numbers/num_old',
			'PUT /v1/webhook',
			'GET /v1/webhook',
			'DELETE /v1/webhook',
		]);
		// The API key is sent by the credential, never printed.
		expect(result.stdout + result.stderr).not.toContain('sim-key-cli');
	});

	test('a suspended account fails the execution with the clear message', async () => {
		const cred = await credential('Messaging Relay suspended account', 'sim-key-suspended');
		const id = await actionWorkflow('e2e: suspended', cred, [
			{ resource: 'number', operation: 'getAll', returnAll: true },
		]);
		const result = runN8nCli(['execute', '--id', id]);
		expect(result.status).not.toBe(0);
		expect(result.stdout + result.stderr).toContain(
			'The Messaging Relay account is on hold (402 ACCOUNT_SUSPENDED)',
		);
		expect(result.stdout + result.stderr).not.toContain('sim-key-suspended');
	});

	test('a key lacking a scope fails the execution naming the scope', async () => {
		const cred = await credential('Messaging Relay read-only key', 'sim-key-readonly');
		const id = await actionWorkflow('e2e: read-only key sends', cred, [
			sendStep('should not go out'),
		]);
		const result = runN8nCli(['execute', '--id', id]);
		expect(result.status).not.toBe(0);
		expect(result.stdout + result.stderr).toContain('lacks the messages:send scope');
	});
});
