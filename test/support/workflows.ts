/**
 * Credentials and workflows created in a running n8n through its public API: the example
 * workflows as a user imports them, and the trigger workflows the suites and the benchmark build.
 */
import type { IDataObject } from 'n8n-workflow';

import type { N8nClient } from './n8nClient';
import { PACKAGE_NAME } from './repo';

export const NODE_TYPES = {
	trigger: `${PACKAGE_NAME}.messagingRelayTrigger`,
	action: `${PACKAGE_NAME}.messagingRelay`,
	watch: `${PACKAGE_NAME}.messagingRelayWatch`,
};

export interface CredentialRef {
	id: string;
	name: string;
}

/** A workflow as n8n's API and the examples/ files hold it. */
export interface WorkflowData {
	name: string;
	nodes: IDataObject[];
	connections: IDataObject;
	settings?: IDataObject;
}

/**
 * n8n 1.123 adds "Allowed HTTP Request Domains" (allowedHttpRequestDomains, and allowedDomains
 * shown for 'domains') to every credential type that authenticates requests
 * (n8n/dist/load-nodes-and-credentials.js:556-609), and its public API's JSON schema of the
 * credential requires allowedDomains whenever allowedHttpRequestDomains is absent (the schema's
 * `if` holds for a missing property: public-api/v1/handlers/credentials/credentials.service.js:213-234).
 * A user of that API must name the choice: 'all', the default the editor saves.
 */
async function credentialData(client: N8nClient, data: IDataObject): Promise<IDataObject> {
	if (Number((await client.n8nVersion()).split('.')[0]) >= 2) return data;
	return { allowedHttpRequestDomains: 'all', ...data };
}

async function createCredential(
	client: N8nClient,
	name: string,
	type: string,
	data: IDataObject,
): Promise<CredentialRef> {
	const created = await client.api('POST', '/credentials', {
		name,
		type,
		data: await credentialData(client, data),
	});
	return { id: created.id as string, name };
}

/** A Messaging Relay credential for an account of the service (or the simulator) at `baseUrl`. */
export async function relayCredential(
	client: N8nClient,
	name: string,
	account: { baseUrl: string; apiKey: string; authHeader?: string; webhookSecret?: string },
) {
	return await createCredential(client, name, 'messagingRelayApi', {
		baseUrl: account.baseUrl,
		apiKey: account.apiKey,
		authHeader: account.authHeader ?? 'xApiKey',
		...(account.webhookSecret !== undefined && { webhookSecret: account.webhookSecret }),
	});
}

/** An OpenAI credential whose Base URL points at the loopback stand-in for the model API. */
export async function openAiCredential(client: N8nClient, name: string, baseUrl: string) {
	return await createCredential(client, name, 'openAiApi', {
		apiKey: 'sk-standin-not-a-real-key',
		url: baseUrl,
		organizationId: '',
		header: false,
	});
}

/** n8n's Header Auth credential (n8n's Webhook node checks the header itself): `name` header must equal `value`. */
export async function headerAuthCredential(
	client: N8nClient,
	name: string,
	header: { name: string; value: string },
) {
	return await createCredential(client, name, 'httpHeaderAuth', header as unknown as IDataObject);
}

/** Creates the workflow (not published); its id. */
export async function createWorkflow(client: N8nClient, workflow: WorkflowData): Promise<string> {
	const created = await client.api('POST', '/workflows', {
		name: workflow.name,
		nodes: workflow.nodes,
		connections: workflow.connections,
		settings: workflow.settings ?? {},
	});
	return created.id as string;
}

/**
 * Imports an example workflow as a user would, with each credential placeholder pointed at the
 * credential of that type; nothing else in it changes.
 */
export async function importExample(
	client: N8nClient,
	example: WorkflowData,
	credentials: Record<string, CredentialRef>,
) {
	const nodes = example.nodes.map((node) => {
		const used = node.credentials as Record<string, unknown> | undefined;
		if (!used) return node;
		return {
			...node,
			credentials: Object.fromEntries(Object.keys(used).map((type) => [type, credentials[type]])),
		};
	});
	return { id: await createWorkflow(client, { ...example, nodes }), name: example.name };
}

/**
 * A Messaging Relay Trigger ("Relay Trigger") on the credential's account, optionally followed by
 * a Message → Reply ("Reply") that sends `reply`.
 */
export function triggerWorkflowData(options: {
	name: string;
	credential: CredentialRef;
	webhookId: string;
	events: string[];
	reply?: string;
	/** The trigger's Options collection. */
	options?: IDataObject;
	/** The trigger node's version (1 unless told). */
	typeVersion?: number;
	/** A Wait node of this many seconds after the trigger, so that executions are in flight for a while. */
	waitSeconds?: number;
	/** After the Wait node, a Stop and Error node with this message: every execution ends in an error. */
	thenFail?: string;
}): WorkflowData {
	const credentials = { messagingRelayApi: options.credential };
	const nodes: IDataObject[] = [
		{
			id: 'relay-trigger',
			name: 'Relay Trigger',
			type: NODE_TYPES.trigger,
			typeVersion: options.typeVersion ?? 1,
			position: [0, 0],
			webhookId: options.webhookId,
			parameters: {
				events: options.events,
				...(options.options ? { options: options.options } : {}),
			},
			credentials,
		},
	];
	const connections: IDataObject = {};
	if (options.reply !== undefined) {
		nodes.push({
			id: 'relay-reply',
			name: 'Reply',
			type: NODE_TYPES.action,
			typeVersion: 1,
			position: [240, 0],
			parameters: { resource: 'message', operation: 'reply', text: options.reply },
			credentials,
		});
		connections['Relay Trigger'] = { main: [[{ node: 'Reply', type: 'main', index: 0 }]] };
	}
	if (options.waitSeconds !== undefined) {
		// Under 65 s n8n waits in the running execution (Wait.node.js), not in its database.
		nodes.push({
			id: 'wait',
			name: 'Wait',
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			position: [240, 0],
			parameters: { amount: options.waitSeconds, unit: 'seconds' },
		});
		connections['Relay Trigger'] = { main: [[{ node: 'Wait', type: 'main', index: 0 }]] };
		if (options.thenFail !== undefined) {
			nodes.push({
				id: 'fail',
				name: 'Fail',
				type: 'n8n-nodes-base.stopAndError',
				typeVersion: 1,
				position: [480, 0],
				parameters: { errorMessage: options.thenFail },
			});
			connections.Wait = { main: [[{ node: 'Fail', type: 'main', index: 0 }]] };
		}
	}
	return { name: options.name, nodes, connections, settings: { executionOrder: 'v1' } };
}

/** The production webhook URL n8n gives a trigger node. */
export const productionUrl = (n8nUrl: string, webhookId: string) =>
	`${n8nUrl}/webhook/${webhookId}/webhook`;
