import type { IWebhookFunctions } from 'n8n-workflow';

import type { PendingDelivery, TriggerState } from './webhookState';

/**
 * The holder's record of deliveries it answered 503 because a member could not take them, and who
 * already ran each (docs/shared-webhook.md, "A delivery at the holder").
 *
 * It lives in the workflow's static data, so it survives a restart and reaches other webhook
 * processes. But n8n loads static data at the start of each webhook request and writes the whole
 * object back at its end (live-webhooks.js:105-147, workflow-static-data.service.js:31-57): two
 * deliveries failing at the same time each write their own copy and the later write drops the
 * other's entry. Seen in the shared soak: eight deliveries answered 503 together, and at their
 * redelivery the holder ran some a second time. So each process also keeps the record in memory,
 * reads the union of both, and writes the union back: within one process no entry is lost; across
 * processes (queue mode) the static-data copy is what a redelivery to another process sees.
 */
const MAX = 100;
const TTL_MS = 60 * 60 * 1000;
const inMemory = new Map<string, Record<string, PendingDelivery>>();

const keyOf = (context: IWebhookFunctions) => `${context.getWorkflow().id ?? ''}\u0000${context.getNode().name}`;

function prune(entries: Record<string, PendingDelivery>, now: number) {
	const sorted = Object.entries(entries).sort(([, a], [, b]) => a.at - b.at);
	sorted.forEach(([id, entry], index) => {
		if (now - entry.at > TTL_MS || sorted.length - index > MAX) delete entries[id];
	});
}

function merged(a: PendingDelivery | undefined, b: PendingDelivery | undefined): PendingDelivery | undefined {
	if (!a || !b) return a ?? b;
	return { ran: [...new Set([...a.ran, ...b.ran])], at: Math.max(a.at, b.at) };
}

/** Who already ran this delivery, from this process's record and the workflow's static data. */
export function pendingEntry(context: IWebhookFunctions, state: TriggerState, id: string): PendingDelivery | undefined {
	return merged(inMemory.get(keyOf(context))?.[id], state.pending?.[id]);
}

/** Remembers who ran a delivery that is answered 503 (both copies; static data gets the union). */
export function recordPending(context: IWebhookFunctions, state: TriggerState, id: string, ran: string[], now = Date.now()) {
	const key = keyOf(context);
	const memory = inMemory.get(key) ?? {};
	memory[id] = merged(memory[id], { ran, at: now })!;
	prune(memory, now);
	inMemory.set(key, memory);
	const union: Record<string, PendingDelivery> = { ...(state.pending ?? {}) };
	for (const [entryId, entry] of Object.entries(memory)) union[entryId] = merged(union[entryId], entry)!;
	prune(union, now);
	state.pending = union;
}

/** Forgets a delivery every member has now taken. Static data is written only if it held it. */
export function forgetPending(context: IWebhookFunctions, state: TriggerState, id: string) {
	const memory = inMemory.get(keyOf(context));
	if (memory) {
		delete memory[id];
		if (Object.keys(memory).length === 0) inMemory.delete(keyOf(context));
	}
	if (state.pending?.[id]) {
		delete state.pending[id];
		if (Object.keys(state.pending).length === 0) delete state.pending;
	}
}

/** Whether this holder has any delivery waiting for a member. */
export function hasPending(context: IWebhookFunctions, state: TriggerState): boolean {
	return inMemory.has(keyOf(context)) || Object.keys(state.pending ?? {}).length > 0;
}
