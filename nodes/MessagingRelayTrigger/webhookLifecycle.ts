import type { IDataObject, IHookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { deleteWebhook, readWebhook, registerWebhook } from '../shared/webhookApi';

/**
 * The trigger's whole webhook lifecycle (n8n's `webhookMethods.default`).
 *
 * The account has exactly ONE webhook, so: never take over a URL that is not this node's
 * unless the user said so, never delete a registration that is not this node's current URL,
 * and keep the secret that `PUT /v1/webhook` issued in the node's static data, because the
 * service shows it only once.
 */

/** What the node keeps in the workflow's static data. */
interface StoredRegistration extends IDataObject {
	webhookUrl?: string;
	webhookSecret?: string;
}

export function storedRegistration(context: Pick<IHookFunctions, 'getWorkflowStaticData'>): StoredRegistration {
	return context.getWorkflowStaticData('node') as StoredRegistration;
}

function isManagedElsewhere(context: IHookFunctions): boolean {
	return context.getNodeParameter('registration', 'automatic') === 'manual';
}

function ownUrl(context: IHookFunctions): string {
	const url = context.getNodeWebhookUrl('default');
	if (!url) throw new NodeOperationError(context.getNode(), 'n8n did not give this trigger a webhook URL');
	return url;
}

/**
 * The production and the test URL of one node share its webhook ID
 * (`/webhook/<id>/webhook` and `/webhook-test/<id>/webhook`): both count as this node's own.
 */
function belongsToThisNode(context: IHookFunctions, url: string): boolean {
	const webhookId = context.getNode().webhookId;
	if (url === ownUrl(context)) return true;
	if (!webhookId) return false;
	try {
		return new URL(url).pathname.endsWith(`/${webhookId}/webhook`);
	} catch {
		return false;
	}
}

/** True for URLs the service cannot reach: not HTTPS, or a loopback or private host. */
function isNotPublicHttps(url: string): boolean {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return true;
	}
	const host = parsed.hostname.replace(/^\[|\]$/g, '');
	return (
		parsed.protocol !== 'https:' ||
		host === 'localhost' ||
		host.endsWith('.localhost') ||
		host === '::1' ||
		host === '0.0.0.0' ||
		/^(127|10)\./.test(host) ||
		/^192\.168\./.test(host) ||
		/^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
		/^169\.254\./.test(host) ||
		/^f[cd][0-9a-f]{2}:/i.test(host)
	);
}

export async function checkExists(this: IHookFunctions): Promise<boolean> {
	if (isManagedElsewhere(this)) return true;
	const stored = storedRegistration(this);
	const url = ownUrl(this);
	if (!stored.webhookSecret || stored.webhookUrl !== url) return false;
	const current = await readWebhook.call(this);
	return current?.url === url;
}

export async function create(this: IHookFunctions): Promise<boolean> {
	if (isManagedElsewhere(this)) return true;
	const url = ownUrl(this);
	const replaceExisting = this.getNodeParameter('options.replaceExisting', false) as boolean;

	const current = await readWebhook.call(this);
	if (current && !belongsToThisNode(this, current.url) && !replaceExisting) {
		throw new NodeOperationError(
			this.getNode(),
			`The account's webhook already points at ${current.url}`,
			{
				description:
					'A Messaging Relay account has exactly one webhook, and another workflow or system is using it. Deactivate that workflow (or delete the webhook with the Messaging Relay node → Webhook → Delete), or turn on "Replace Existing Webhook" in this trigger\'s options to take it over; the receiver at that URL then stops getting events.',
			},
		);
	}

	let secret: string;
	try {
		({ secret } = await registerWebhook.call(this, url));
	} catch (error) {
		const refusedUnreachableUrl =
			error instanceof NodeApiError && error.httpCode === '400' && isNotPublicHttps(url);
		const failure = refusedUnreachableUrl
			? // A fresh error object: NodeApiError hands an existing one back unchanged.
			  new NodeApiError(this.getNode(), { httpCode: '400', url } as JsonObject, {
					message: `The Messaging Relay service refused n8n's webhook URL ${url}`,
					description: `The service only delivers to public HTTPS addresses, and this URL is ${
						url.startsWith('https:') ? 'on a loopback or private network' : 'plain http'
					}. Set n8n's public webhook address (the N8N_WEBHOOK_URL environment variable; WEBHOOK_URL in older versions) to an HTTPS URL that reaches this n8n, for example through a reverse proxy or tunnel, then restart n8n. The service said: ${error.description ?? error.message}`,
					httpCode: '400',
				})
			: error;
		throw failure;
	}

	const stored = storedRegistration(this);
	stored.webhookUrl = url;
	stored.webhookSecret = secret;
	return true;
}

export async function deleteRegistration(this: IHookFunctions): Promise<boolean> {
	if (isManagedElsewhere(this)) return true;
	const stored = storedRegistration(this);
	const url = ownUrl(this);
	// Only this node's URL in this mode: ending a test listener must not remove the published
	// workflow's registration, and deactivating must not remove another workflow's.
	const current = await readWebhook.call(this);
	if (current?.url === url) await deleteWebhook.call(this);
	delete stored.webhookUrl;
	delete stored.webhookSecret;
	return true;
}
