import type { IWebhookFunctions } from 'n8n-workflow';

import type { TriggerState } from './webhookState';

/**
 * A member's record of the forwarded events it has run (docs/shared-webhook.md, "A member's
 * answer that never reached the service").
 *
 * The holder answers the service only after every member took the event. If n8n stops between a
 * member's run and the holder's answer, the service never gets its 2xx and delivers the event
 * again, and the holder, which kept no record of a delivery it never finished, forwards it again.
 * Seen in the end-to-end mixed soak: on SIGTERM n8n waits for running executions, not for webhook
 * requests (commands/start.js:82-91, active-executions.js:264-291), so the holder's request that
 * was still waiting for its forwards died with the process after the member's run had started.
 * The member recognises the event (sha-256 of its body, as the holder's pending record does) and
 * answers 200 without a second run.
 *
 * Like pendingDeliveries.ts, kept in the workflow's static data (to survive the restart) and in
 * process memory, and written as the union of both: two concurrent requests each write back
 * their whole static data, and the later write would drop the other's entry.
 */
const TTL_MS = 15 * 60 * 1000;
const MAX = 300;
/** Half of the sha-256 hex: 128 bits are enough to tell events apart and keep static data small. */
const shortId = (deliveryId: string) => deliveryId.slice(0, 32);
const inMemory = new Map<string, Record<string, number>>();

// A test listener and the published trigger of one workflow are different members.
const keyOf = (context: IWebhookFunctions) =>
	`${context.getWorkflow().id ?? ''}\u0000${context.getNode().name}\u0000${context.getMode()}`;

function prune(entries: Record<string, number>, now: number) {
	const sorted = Object.entries(entries).sort(([, a], [, b]) => a - b);
	sorted.forEach(([id, at], index) => {
		if (now - at > TTL_MS || sorted.length - index > MAX) delete entries[id];
	});
}

/** Whether this member already ran the event with this delivery id (deliveryIdOf). */
export function alreadyTaken(context: IWebhookFunctions, state: TriggerState, deliveryId: string, now = Date.now()): boolean {
	const id = shortId(deliveryId);
	const at = inMemory.get(keyOf(context))?.[id] ?? state.taken?.[id];
	return at !== undefined && now - at <= TTL_MS;
}

/** Remembers that this member runs the event now (both copies; static data gets the union). */
export function recordTaken(context: IWebhookFunctions, state: TriggerState, deliveryId: string, now = Date.now()) {
	const key = keyOf(context);
	const memory = inMemory.get(key) ?? {};
	memory[shortId(deliveryId)] = now;
	prune(memory, now);
	inMemory.set(key, memory);
	const union = { ...(state.taken ?? {}), ...memory };
	prune(union, now);
	state.taken = union;
}
