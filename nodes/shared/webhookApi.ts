import type {
	IExecuteFunctions,
	IHookFunctions,
	IPollFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { parseResource, unwrapObject } from './responses';
import { webhookSchema, type RelayWebhook } from './schemas/webhook';
import { relayApiRequest } from './transport';

/**
 * The account's one webhook, as the action node and the trigger both use it. Response bodies
 * of GET and DELETE are not shown in the spec: a 404, an empty body, `null` or an object
 * without a URL all mean "no webhook registered".
 */

type WebhookContext =
	| IExecuteFunctions
	| IHookFunctions
	| IPollFunctions
	| ITriggerFunctions
	| IWebhookFunctions;

export async function readWebhook(
	this: WebhookContext,
	itemIndex?: number,
): Promise<RelayWebhook | undefined> {
	const { statusCode, body } = await relayApiRequest.call(this, {
		method: 'GET',
		path: '/v1/webhook',
		scope: 'webhooks:manage',
		itemIndex,
		acceptStatuses: [404],
	});
	if (statusCode === 404 || body === undefined) return undefined;
	const webhook = unwrapObject(body, ['webhook', 'data']);
	if (webhook === null || typeof webhook !== 'object') return undefined;
	const { url } = webhook as { url?: unknown };
	if (url === undefined || url === null || url === '') return undefined;
	return parseResource(this.getNode(), webhookSchema, webhook, 'the webhook', itemIndex);
}

/** `PUT /v1/webhook`: sets or replaces the URL. The answer must carry the new secret. */
export async function registerWebhook(
	this: WebhookContext,
	url: string,
	itemIndex?: number,
): Promise<RelayWebhook & { secret: string }> {
	const { body } = await relayApiRequest.call(this, {
		method: 'PUT',
		path: '/v1/webhook',
		body: { url },
		scope: 'webhooks:manage',
		itemIndex,
	});
	const webhook = parseResource(
		this.getNode(),
		webhookSchema,
		unwrapObject(body, ['webhook', 'data']),
		'the registered webhook',
		itemIndex,
	);
	if (typeof webhook.secret !== 'string' || webhook.secret === '') {
		// Without the secret no delivery can be verified: better no registration than half of one.
		throw new NodeApiError(
			this.getNode(),
			{ message: 'no secret in PUT /v1/webhook response' },
			{
				message: 'The Messaging Relay API registered the webhook but returned no secret',
				description:
					'Deliveries cannot be verified without the secret. Try again; if it keeps happening, set the webhook in the dashboard and use the trigger\'s "Webhook Managed Elsewhere" mode with the secret shown there.',
				itemIndex,
			},
		);
	}
	return { ...webhook, secret: webhook.secret };
}

/** `DELETE /v1/webhook`. Returns false when there was none (404). */
export async function deleteWebhook(this: WebhookContext, itemIndex?: number): Promise<boolean> {
	const { statusCode } = await relayApiRequest.call(this, {
		method: 'DELETE',
		path: '/v1/webhook',
		scope: 'webhooks:manage',
		itemIndex,
		acceptStatuses: [404],
	});
	return statusCode !== 404;
}
