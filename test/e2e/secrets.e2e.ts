/**
 * After a run with failures of every kind, neither a webhook secret nor an API key appears in
 * execution data, error messages or n8n's log. And with the webhook managed elsewhere, a Webhook
 * Secret edited in n8n's editor retires the old secret within the stated bound.
 */
import { sleep, type IDataObject } from 'n8n-workflow';

import { managedSecretPolicy } from '../../nodes/shared/sharing/managedSecret';
import { sample } from '../fixtures/events';
import {
	allExecutions,
	api,
	finishedExecutions,
	info,
	n8n,
	productionUrl,
	readN8nLog,
	relayCredential,
	rest,
	runN8nCli,
	sim,
	simulator,
	triggerWorkflow,
} from '../support/e2e';
import * as workflows from '../support/workflows';
import { createWorkflow, triggerWorkflowData } from '../support/workflows';
import { deliver, postEvent } from '../support/deliver';

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
	const deliverToAccount = (what: { type?: string; event?: unknown; secret?: string | null }) =>
		deliver(simulator, what.event, {
			account: 'acct_secrets',
			type: what.type,
			secret: what.secret,
		});

	// A good event, one whose reply fails (500), one with a wrong secret, one that does not
	// match its schema, one for a number the reply cannot use.
	await deliverToAccount({ type: 'message.received' });
	await sim('POST', '/faults', {
		method: 'POST',
		path: '/v1/messages',
		status: 500,
		rawBody: 'boom',
	});
	await deliverToAccount({ type: 'message.received' });
	expect((await deliverToAccount({ type: 'message.received', secret: 'whsec_guess' })).status).toBe(
		401,
	);
	const broken = sample('message.received') as unknown as { message: IDataObject };
	delete broken.message.chatId;
	await deliverToAccount({ event: broken });
	await deliverToAccount({ type: 'message.reaction' });
	const runs = await finishedExecutions(workflowId, 4);
	expect(runs.map((r) => r.status).sort()).toEqual(['error', 'error', 'success', 'success']);

	// Failing CLI runs: a revoked key and a suspended account.
	const cli: string[] = [];
	for (const key of ['sim-key-revoked', 'sim-key-suspended']) {
		const credential = await relayCredential(`CLI credential ${key.replace('sim-key-', '')}`, key);
		const wf = await api('POST', '/workflows', {
			name: `secrets CLI ${key.replace('sim-key-', '')}`,
			nodes: [
				{
					id: 's',
					name: 'Start',
					type: 'n8n-nodes-base.manualTrigger',
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
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

const MANAGED_WEBHOOK_ID = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

// The edit goes through the editor's REST API as the editor makes it, in n8n 2.41.1 and 1.123.81.
test('Webhook Managed Elsewhere: a Webhook Secret edited in n8n retires the old secret within the bound, the new one works at once', async () => {
	const [oldSecret, newSecret] = [
		'whsec_e2e_before_rotation_0001',
		'whsec_e2e_after_rotation_00002',
	];
	const credential = await workflows.relayCredential(n8n, 'e2e: managed secret account', {
		baseUrl: info.simUrl,
		apiKey: 'sim-key-secrets',
		webhookSecret: oldSecret,
	});
	const workflow = triggerWorkflowData({
		name: 'e2e: managed secret',
		credential,
		webhookId: MANAGED_WEBHOOK_ID,
		events: ['message.received'],
		typeVersion: 3,
	});
	(workflow.nodes[0].parameters as IDataObject).registration = 'manual';
	const workflowId = await createWorkflow(n8n, workflow);
	await api('POST', `/workflows/${workflowId}/activate`);

	let sent = 0;
	const statusWith = async (secret: string) => {
		const event = sample('message.received');
		event.message.id = `wamid.rotation.${++sent}`;
		return (await postEvent(productionUrl(MANAGED_WEBHOOK_ID), JSON.stringify(event), { secret }))
			.status;
	};
	expect(await statusWith(oldSecret)).toBe(200);

	// The user edits the credential in the editor: it loads it (secrets blanked), changes Webhook
	// Secret, and saves the whole form back (n8n restores the blanked API key).
	const loaded = await rest('GET', `/credentials/${credential.id}?includeData=true`);
	const form = (loaded.body.data ?? loaded.body) as IDataObject;
	const saved = await rest('PATCH', `/credentials/${credential.id}`, {
		name: form.name,
		type: form.type,
		data: { ...(form.data as IDataObject), webhookSecret: newSecret },
	});
	expect(saved.status).toBe(200);
	const editedAt = Date.now();

	// Nothing arrives until the bound has passed; then the old secret is refused. The bound is
	// what is tested: the secret is reread only at a delivery after it, so nothing signals first.
	await sleep(managedSecretPolicy.rereadAfterMs + 250 - (Date.now() - editedAt));
	expect(await statusWith(oldSecret)).toBe(401);
	// The new secret works at once, and the old one stays refused after it.
	expect(await statusWith(newSecret)).toBe(200);
	expect(await statusWith(oldSecret)).toBe(401);
	expect(await statusWith(newSecret)).toBe(200);

	const runs = await finishedExecutions(workflowId, 3);
	expect(runs.map((r) => r.status)).toEqual(['success', 'success', 'success']);
	expect(await allExecutions(workflowId)).toHaveLength(3);
	expect(
		JSON.stringify(await api('GET', `/executions?workflowId=${workflowId}&includeData=true`)),
	).not.toContain('whsec_e2e_');
	expect(readN8nLog()).not.toContain('whsec_e2e_');
	await api('POST', `/workflows/${workflowId}/deactivate`);
});
