import type { IHookFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { Wait } from '../shared/protocol/wait';
import { CREDENTIAL_NAME } from '../shared/scopes';
import { isRegistered, join, leave, type Me } from '../shared/sharedWebhook/registration';
import { deriveShareKey } from '../shared/sharedWebhook/signedHandoff';
import { webhookState } from '../shared/sharedWebhook/webhookState';
import { recordWaits } from '../shared/sendAndWait/waitingRuns';
import { keepManagedSecret } from '../shared/sharing/managedSecret';
import { isManagedElsewhere } from './triggerSettings';

/**
 * The trigger's whole webhook lifecycle (n8n's `webhookMethods.default`): on publish and at every start n8n calls
 * `checkExists`, then `create` when it said no; on unpublish (and when a test listener ends) `delete`. The account
 * has exactly ONE webhook, shared by every Messaging Relay Trigger of this n8n that uses the same API key (the
 * protocol: nodes/shared/sharedWebhook/, nodes/shared/sharing/ and docs/shared-webhook.md). Nothing here takes over a webhook
 * that points at something else unless the user said so.
 */

async function whoAmI(context: IHookFunctions): Promise<Me> {
	const url = context.getNodeWebhookUrl('default');
	if (!url)
		throw new NodeOperationError(context.getNode(), 'n8n did not give this trigger a webhook URL');
	const { apiKey } = await context.getCredentials(CREDENTIAL_NAME);
	return { url, key: deriveShareKey(String(apiKey ?? '')), isTest: context.getMode() === 'manual' };
}

export async function checkExists(this: IHookFunctions): Promise<boolean> {
	if (isManagedElsewhere(this)) {
		await keepManagedSecret(this, webhookState(this));
		return true;
	}
	return await isRegistered(this, await whoAmI(this));
}

/** Options → Replace Existing Webhook (read by create, below). */
export const replaceExistingOption: INodeProperties = {
	displayName: 'Replace Existing Webhook',
	name: 'replaceExisting',
	type: 'boolean',
	default: false,
	description:
		"Whether to take over the account's webhook when it points at another URL. The receiver there (another workflow or system) stops getting events.",
};

export async function create(this: IHookFunctions): Promise<boolean> {
	if (isManagedElsewhere(this)) return true;
	const replaceExisting = this.getNodeParameter('options.replaceExisting', false) as boolean;
	// The waits it takes on as the holder go into its wait table (registration.ts KeepWaits).
	const keepWaits = (waits: Wait[]) => recordWaits(this, webhookState(this), waits);
	await join(this, await whoAmI(this), replaceExisting, keepWaits);
	return true;
}

export async function deleteRegistration(this: IHookFunctions): Promise<boolean> {
	if (isManagedElsewhere(this)) return true;
	await leave(this, await whoAmI(this));
	return true;
}
