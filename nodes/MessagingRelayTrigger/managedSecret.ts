import type { IHookFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../shared/scopes';
import { rememberManagedSecret, type WebhookState } from '../shared/sharedWebhook/webhookState';
import { secretMatches } from './verifySecret';

/**
 * The secret of a webhook managed elsewhere (Registration: Webhook Managed Elsewhere), which the
 * user types into the credential. Reading the credential costs n8n a decryption (and, as n8n
 * 2.41.1 ships, an expression isolate) per call, so it is not read on every delivery: publishing
 * (and every n8n start) keeps it in the node's static data, beside where an automatic
 * registration keeps the secret the service issued.
 *
 * A user who edits the credential does not republish: a delivery that does not match the kept
 * secret reads the credential once more, and a changed secret is kept from then on. So an edited
 * secret works at the next delivery, and only deliveries with a wrong secret pay for the read.
 */

/** Registration: Webhook Managed Elsewhere. The node then registers nothing and shares nothing. */
export function isManagedElsewhere(context: IHookFunctions | ITriggerFunctions | IWebhookFunctions): boolean {
	return context.getNodeParameter('registration', 'automatic') === 'manual';
}

export async function keepManagedSecret(context: IHookFunctions, state: WebhookState) {
	rememberManagedSecret(state, String((await context.getCredentials(CREDENTIAL_NAME)).webhookSecret ?? ''));
}

/** The secret a delivery is compared with, in constant time by the caller. */
export async function managedSecretFor(context: IWebhookFunctions, state: WebhookState, provided: unknown): Promise<string> {
	const kept = state.managedSecret ?? '';
	if (kept !== '' && secretMatches(provided, kept)) return kept;
	const current = String((await context.getCredentials(CREDENTIAL_NAME)).webhookSecret ?? '');
	if (current !== kept) rememberManagedSecret(state, current);
	return current;
}
