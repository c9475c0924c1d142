/**
 * What a fresh n8n of the stack gets before anyone uses it: the owner account, an API key,
 * the Messaging Relay credential of the account, and the example workflows, published.
 */
import type { IDataObject } from 'n8n-workflow';

import { choicesLeftToUser, filledForSimulator, readExample, type ExampleFile } from '../examples';
import type { N8nClient, Owner, Session } from '../n8nClient';
import {
	importExample,
	NODE_TYPES,
	relayCredential,
	type CredentialRef,
	type WorkflowData,
} from '../workflows';
import { say } from './runtime';

export const OWNER: Owner = {
	email: 'owner@example.com',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'Relay-demo-2026',
};

export interface Provisioned {
	apiKey: string;
	owner: Owner;
	/** The owner's session opened here, for whoever uses /rest next (n8n limits logins: N8nClient.session). */
	session?: Session;
	credentials: Record<string, CredentialRef>;
	/** The published example workflows, by the name the suites use for them. */
	workflows: Record<string, { id: string; name: string }>;
	/** Examples imported but left unpublished: on a real account, what only the user can fill in is empty. */
	unpublished?: Record<string, { id: string; name: string }>;
}

/** The examples `npm start` publishes, by the name the suites use for them. */
const EXAMPLES: Record<string, ExampleFile> = {
	autoReply: 'auto-reply.json',
	disconnectAlert: 'disconnect-alert.json',
};

export interface ProvisionOptions {
	/** Import the examples and publish them (true). */
	examples?: boolean;
	/**
	 * The account is the relay simulator (true): the examples get the simulator's number and
	 * operator phone (examples.ts). On a real account an example that needs them is imported
	 * with them empty and not published: n8n refuses to publish it until the user picks them.
	 */
	simulator?: boolean;
	/** Parameters set on every example trigger (e.g. the queue soak's `acknowledge`). */
	triggerParameters?: IDataObject;
}

export async function provision(
	client: N8nClient,
	account: { baseUrl: string; apiKey: string },
	{ examples = true, simulator = true, triggerParameters }: ProvisionOptions = {},
): Promise<Provisioned> {
	say('creating the owner account, an API key and the credential');
	await client.setupOwner(OWNER);
	const apiKey = await client.createApiKey('relay-stack');
	const credentials = { main: await relayCredential(client, 'Messaging Relay account', account) };
	const workflows: Provisioned['workflows'] = {};
	const unpublished: Provisioned['unpublished'] = {};
	if (examples) {
		say('importing and publishing the example workflows');
		// Both triggers on the same account and credential: they share its one webhook
		// (docs/shared-webhook.md), each receives the events it selects.
		for (const [key, file] of Object.entries(EXAMPLES)) {
			const example = simulator ? filledForSimulator(readExample(file)) : readExample(file);
			const imported = await importExample(
				client,
				withTriggerParameters(example, triggerParameters),
				{ messagingRelayApi: credentials.main },
			);
			if (choicesLeftToUser(example).length) {
				unpublished[key] = imported;
				continue;
			}
			workflows[key] = imported;
			await client.publish(imported.id);
		}
	}
	return {
		apiKey,
		owner: OWNER,
		session: client.session,
		credentials,
		workflows,
		...(Object.keys(unpublished).length ? { unpublished } : {}),
	};
}

function withTriggerParameters(
	example: WorkflowData,
	parameters: IDataObject | undefined,
): WorkflowData {
	if (!parameters) return example;
	const nodes = example.nodes.map((node) =>
		node.type === NODE_TYPES.trigger
			? { ...node, parameters: { ...(node.parameters as IDataObject), ...parameters } }
			: node,
	);
	return { ...example, nodes };
}
