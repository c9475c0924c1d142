import type { IWebhookFunctions } from 'n8n-workflow';

/**
 * One line in n8n's log for a delivery refused before it could be an event (400, 413, 415): the service
 * keeps delivering it again, and nothing else in n8n would show it. Names the event when n8n's parse of
 * the body gives its delivery id or message id; never the body.
 */
export function logRefused(context: IWebhookFunctions, status: number, error: string): void {
	const body = (context.getRequestObject() as { body?: unknown }).body;
	const event = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
	const message = event.message !== null && typeof event.message === 'object' ? event.message : {};
	const named = [
		typeof event.deliveryId === 'string' && event.deliveryId ? `delivery ${event.deliveryId}` : '',
		typeof event.type === 'string' && event.type ? `type ${event.type}` : '',
		typeof (message as { id?: unknown }).id === 'string'
			? `message ${(message as { id: string }).id}`
			: '',
	].filter(Boolean);
	const which = named.length ? named.join(', ').slice(0, 300) : 'its id could not be read';
	context.logger.warn(
		`Messaging Relay Trigger "${context.getNode().name}": a delivery was refused with ${status} (${error}); ${which}. The service will deliver it again and it will be refused again: check what sends it.`,
	);
}
