/**
 * What a fresh n8n of the stack gets before anyone uses it: the owner account, an API key,
 * the Messaging Relay credential of the account, and the example workflows, published.
 */
import type { N8nClient, Owner } from '../n8nClient';
import { readJson } from '../repo';
import { importExample, relayCredential, type CredentialRef, type WorkflowData } from '../workflows';
import { say } from './runtime';

export const OWNER: Owner = { email: 'owner@example.com', firstName: 'Demo', lastName: 'Owner', password: 'Relay-demo-2026' };

export interface Provisioned {
	apiKey: string;
	owner: Owner;
	credentials: Record<string, CredentialRef>;
	workflows: Record<string, { id: string; name: string }>;
}

/** The examples `npm start` publishes, by the name the suites use for them. */
const EXAMPLES = { autoReply: 'auto-reply.json', disconnectAlert: 'disconnect-alert.json' };

export async function provision(client: N8nClient, account: { baseUrl: string; apiKey: string }, { examples = true } = {}): Promise<Provisioned> {
	say('creating the owner account, an API key and the credential');
	await client.setupOwner(OWNER);
	const apiKey = await client.createApiKey('relay-stack');
	const credentials = { main: await relayCredential(client, 'Messaging Relay account', account) };
	const workflows: Provisioned['workflows'] = {};
	if (examples) {
		say('importing and publishing the example workflows');
		// Both triggers on the same account and credential: they share its one webhook
		// (docs/shared-webhook.md), each receives the events it selects.
		for (const [key, file] of Object.entries(EXAMPLES)) {
			workflows[key] = await importExample(client, readJson<WorkflowData>('examples', file), { messagingRelayApi: credentials.main });
			await client.publish(workflows[key].id);
		}
	}
	return { apiKey, owner: OWNER, credentials, workflows };
}
