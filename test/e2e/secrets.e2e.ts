/**
 * After a run with failures of every kind, neither a webhook secret nor an API key appears in
 * execution data, error messages or n8n's log.
 */
import type { IDataObject } from 'n8n-workflow';

import { sample } from '../fixtures/events';
import { api, finishedExecutions, readN8nLog, relayCredential, runN8nCli, sim, triggerWorkflow } from '../support/e2e';

const WEBHOOK_ID = '3c9d0e1f-2a3b-4c5d-8e6f-7a8b9c0d1e2f';

test('secrets stay out of executions, errors and the log', async () => {
	const { workflowId } = await triggerWorkflow({
		name: 'e2e: secrets',
		apiKey: 'sim-key-secrets',
		webhookId: WEBHOOK_ID,
		events: ['*'],
		reply: '={{ "Re: " + $json.text }}',
	});
	await api('POST', `/workflows/${workflowId}/activate`);
	const deliver = (body: IDataObject) => sim('POST', '/deliver', { account: 'acct_secrets', ...body });

	// A good event, one whose reply fails (500), one with a wrong secret, one that does not
	// match its schema, one for a number the reply cannot use.
	await deliver({ type: 'message.received' });
	await sim('POST', '/faults', { method: 'POST', path: '/v1/messages', status: 500, rawBody: 'boom' });
	await deliver({ type: 'message.received' });
	expect((await deliver({ type: 'message.received', secret: 'whsec_guess' })).status).toBe(401);
	const broken = sample('message.received') as unknown as { message: IDataObject };
	delete broken.message.chatId;
	await deliver({ event: broken });
	await deliver({ type: 'message.reaction' });
	const runs = await finishedExecutions(workflowId, 4);
	expect(runs.map((r) => r.status).sort()).toEqual(['error', 'error', 'success', 'success']);

	// Failing CLI runs: a revoked key and a suspended account.
	const cli: string[] = [];
	for (const key of ['sim-key-revoked', 'sim-key-suspended']) {
		const credential = await relayCredential(`CLI credential ${key.replace("sim-key-", "")}`, key);
		const wf = await api('POST', '/workflows', {
			name: `secrets CLI ${key.replace("sim-key-", "")}`,
			nodes: [
				{ id: 's', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{
					id: 'n',
					name: 'Numbers',
					type: 'n8n-nodes-messaging-relay.messagingRelay',
					typeVersion: 1,
					position: [200, 0],
					parameters: { resource: 'number', operation: 'getAll', returnAll: true },
					credentials: { messagingRelayApi: credential },
				},
			],
			connections: { Start: { main: [[{ node: 'Numbers', type: 'main', index: 0 }]] } },
			settings: { executionOrder: 'v1' },
		});
		const result = runN8nCli(['execute', '--id', wf.id as string]);
		cli.push(result.stdout, result.stderr);
	}

	const webhooks = (await sim('GET', '/webhooks')) as Record<string, { secret: string } | null>;
	const secrets = Object.values(webhooks)
		.filter((w): w is { secret: string } => w !== null)
		.map((w) => w.secret);
	expect(secrets.length).toBeGreaterThan(0);

	const everything = [
		JSON.stringify(await api('GET', '/executions?includeData=true&limit=250')),
		readN8nLog(),
		...cli,
	].join('\n');
	for (const secret of secrets) expect(everything).not.toContain(secret);
	expect(everything).not.toMatch(/sim-key-[a-z-]+/);
	// The failures themselves are there, in words.
	expect(everything).toContain('The Messaging Relay service failed on POST /v1/messages (500)');
	await api('POST', `/workflows/${workflowId}/deactivate`);
});
