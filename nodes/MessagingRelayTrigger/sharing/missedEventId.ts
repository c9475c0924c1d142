/**
 * The id a set-aside member's report names a missed event by (memberHealth.ts, docs/shared-webhook.md,
 * "A member that cannot take events for long"), so that the owner can tell which events to fetch
 * or replay, not only how many.
 *
 * The interface (messaging-relay-interface.md, part 6) shows no id of a delivery: an event body has
 * `type`, `occurredAt` and its `message`, `chat` or `number`. So, in this order:
 * - the body's `deliveryId`, when the sender puts one in (the project's simulator and tests do;
 *   the spec neither shows nor rules it out), as it is;
 * - for a message event, `message <message.id>` (the item's `messageId`, eventItem.ts): a
 *   `message.delivered` and a `message.read` of one message share it, the type tells them apart;
 * - otherwise `delivery <ledger id>`: the holder's id of the delivery (deliveryLedger.ts, a hash of
 *   the body), unique but only useful to compare with n8n's log.
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
