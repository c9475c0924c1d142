/**
 * The id a set-aside member's report names a missed event by (memberHealth.ts), so the owner can tell which events
 * to fetch or replay. The spec (part 6) shows no id of a delivery, so: the body's `deliveryId` when the sender
 * puts one in; for a message event, `message <message.id>` (eventItem.ts's `messageId`; the type tells events of one
 * message apart); else `delivery <ledger id>` (deliveryLedger.ts, a hash of the body). Why: docs/shared-webhook.md,
 * "A member that cannot take events for long".
 */
export function missedEventId(body: unknown, ledgerId: string): string {
	const event = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
	if (typeof event.deliveryId === 'string' && event.deliveryId !== '') return event.deliveryId;
	const message =
		event.message !== null && typeof event.message === 'object'
			? (event.message as Record<string, unknown>)
			: undefined;
	if (typeof message?.id === 'string' && message.id !== '') return `message ${message.id}`;
	return `delivery ${ledgerId}`;
}
