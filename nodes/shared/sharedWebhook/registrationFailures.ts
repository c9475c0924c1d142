import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { registerWebhook } from '../webhookApi';
import type { ShareContext } from './peerClient';

/**
 * The two ways registering can fail that the user must act on, in their words: the account's
 * webhook is used by something else (conflictError), or the service refuses n8n's URL
 * (registerOrExplain). Used by the trigger's join (registration.ts) and by a waiting run that
 * holds the webhook itself (waitingHolder.ts).
 */

export function conflictError(
	node: INode,
	currentUrl: string,
	reason: 'foreign' | 'otherKey',
): NodeOperationError {
	const cure =
		reason === 'otherKey'
			? 'It is another Messaging Relay Trigger, but one that uses a different API key. Triggers share the account\'s webhook only when they use the same Messaging Relay credential (the same API key): select that credential in this trigger, or turn on "Replace Existing Webhook" in this trigger\'s options to take the webhook over (the other trigger then stops getting events).'
			: 'A Messaging Relay account has exactly one webhook, and another system or another n8n instance is using it (Messaging Relay Triggers on this n8n share it automatically). Deactivate that receiver (or delete the webhook with the Messaging Relay node → Webhook → Delete), or turn on "Replace Existing Webhook" in this trigger\'s options to take it over; the receiver at that URL then stops getting events.';
	return new NodeOperationError(node, `The account's webhook already points at ${currentUrl}`, {
		description: cure,
	});
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

/** `PUT /v1/webhook` with `url`; a refusal of an unreachable n8n URL names the setting to change. */
export async function registerOrExplain(context: ShareContext, url: string): Promise<string> {
	try {
		return (await registerWebhook.call(context, url)).secret;
	} catch (error) {
		const refusedUnreachableUrl =
			error instanceof NodeApiError && error.httpCode === '400' && isNotPublicHttps(url);
		const failure = refusedUnreachableUrl
			? // A fresh error object: NodeApiError hands an existing one back unchanged.
				new NodeApiError(context.getNode(), { httpCode: '400', url } as JsonObject, {
					message: `The Messaging Relay service refused n8n's webhook URL ${url}`,
					description: `The service only delivers to public HTTPS addresses, and this URL is ${
						url.startsWith('https:') ? 'on a loopback or private network' : 'plain http'
					}. Set n8n's public webhook address (the N8N_WEBHOOK_URL environment variable; WEBHOOK_URL in older versions) to an HTTPS URL that reaches this n8n, for example through a reverse proxy or tunnel, then restart n8n. The service said: ${error.description ?? error.message}`,
					httpCode: '400',
				})
			: error;
		throw failure;
	}
}
