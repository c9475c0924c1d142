import type { WebhookResponse } from '../n8n/webhookResponse';
import { processKey, type ListenerContext } from '../processKey';
import { memorySlot, type ListenerPart, type MemorySlot } from '../processMemory';
import type { LedgerEntry, WebhookState } from '../sharedWebhook/webhookState';

/** The part of n8n's response (n8n/webhookResponse.ts) that tells when and how a request was answered. */
type AnswerEvents = Pick<WebhookResponse, 'statusCode' | 'writableFinished' | 'once'>;

/**
 * A bounded record of deliveries by id (docs/shared-webhook.md, "What each trigger keeps"): the holder's `pending`
 * (deliveries it answered 503, and who already ran each) and a member's `taken` (forwarded events it ran, so a
 * repeated forward runs nothing twice). In static data and in this process's memory, the union of both written
 * back, because n8n saves each webhook request's whole copy of static data and the last save wins (why, with n8n's
 * code: docs/design/n8n-internals.md, "The delivery ledger: static data saved whole").
 */
export class DeliveryLedger {
	private readonly inMemory: MemorySlot<Record<string, LedgerEntry>>;

	/** Forwards whose execution has not answered yet, by process key and delivery id (recordUntilAnswered). */
	private readonly running: MemorySlot<true>;

	/** When this process last logged that the count bound dropped a record still within its age. */
	private lastOverflowLog = 0;

	constructor(
		private readonly field: 'pending' | 'taken',
		private readonly bounds: { maxEntries: number; maxAgeMs: number },
		forgottenWith?: ListenerPart,
	) {
		this.inMemory = memorySlot(`delivery ledger (${field})`, {
			holds: `what each listener's \`${field}\` record holds, unsaved entries included; static data holds the saved`,
			maxEntries: 10_000,
			forgottenWith,
		});
		this.running = memorySlot(`forwards running (${field})`, {
			holds: 'forwards whose run has not answered yet; they die with the process',
			maxEntries: Number.POSITIVE_INFINITY,
			boundedBy:
				'one entry per forward in flight, deleted when its answer goes out or its connection closes',
		});
	}

	/** What this process and the workflow's static data know of the delivery, if it is not too old. */
	find(
		context: ListenerContext,
		state: WebhookState,
		id: string,
		now = Date.now(),
	): LedgerEntry | undefined {
		const entry = merged(this.inMemory.get(processKey(context))?.[id], state[this.field]?.[id]);
		return entry && now - entry.at <= this.bounds.maxAgeMs ? entry : undefined;
	}

	/** Adds `entry` to what is known of the delivery (both copies; static data gets the union). */
	record(
		context: LedgerContext,
		state: WebhookState,
		id: string,
		entry: LedgerEntry,
		now = Date.now(),
	) {
		const key = processKey(context);
		const memory = this.remember(key, id, entry, now, context);
		const union: Record<string, LedgerEntry> = { ...(state[this.field] ?? {}) };
		for (const [entryId, known] of Object.entries(memory)) {
			// A forward still running is saved by nobody (recordUntilAnswered): if its run fails,
			// forget() reaches only memory, and this save would keep it "ran".
			if (entryId !== id && this.running.has(runningKey(key, entryId))) continue;
			union[entryId] = merged(union[entryId], known)!;
		}
		this.prune(union, now, context);
		state[this.field] = union;
	}

	/** Forgets a delivery. Static data is written only if it held it. */
	forget(context: ListenerContext, state: WebhookState, id: string) {
		const key = processKey(context);
		const memory = this.inMemory.get(key);
		if (memory) {
			delete memory[id];
			if (Object.keys(memory).length === 0) this.inMemory.delete(key);
		}
		const stored = state[this.field];
		if (stored?.[id]) {
			delete stored[id];
			if (Object.keys(stored).length === 0) delete state[this.field];
		}
	}

	/**
	 * Records a forwarded event whose answer n8n sends when its execution has ended (acknowledgement.ts) as running,
	 * in this process's memory only, until that answer has gone out. A 2xx: it ran; the next save of any request
	 * carries it to static data (record()). Anything else (n8n's 500 "Error in workflow" for a failed run or a dead
	 * worker; a run that could not start), or the connection closing first: forgotten, so the next forward runs it.
	 * Why never in static data before: docs/design/n8n-internals.md, "The delivery ledger: static data saved whole".
	 */
	recordUntilAnswered(
		context: LedgerContext,
		state: WebhookState,
		id: string,
		response: AnswerEvents,
		now = Date.now(),
	) {
		const key = processKey(context);
		this.remember(key, id, { at: now }, now, context);
		const running = runningKey(key, id);
		this.running.set(running, true);
		let settled = false;
		const settle = () => {
			if (settled) return;
			settled = true;
			this.running.delete(running);
			if (!(response.writableFinished && response.statusCode < 300))
				this.forget(context, state, id);
		};
		response.once('finish', settle);
		response.once('close', settle);
	}

	/** Whether a forward of this event is still running in this process (recordUntilAnswered). */
	isRunning(context: ListenerContext, id: string): boolean {
		return this.running.has(runningKey(processKey(context), id));
	}

	/**
	 * Whether the record holds nothing within its age (in this process or in static data). Memory past
	 * the age goes here too: only a write pruned it, so a listener that stopped sharing stayed "not empty".
	 */
	isEmpty(context: ListenerContext, state: WebhookState, now = Date.now()): boolean {
		const key = processKey(context);
		const memory = this.inMemory.get(key);
		if (memory) {
			this.prune(memory, now);
			if (Object.keys(memory).length === 0) this.inMemory.delete(key);
		}
		const fresh = (entries: Record<string, LedgerEntry> | undefined) =>
			Object.values(entries ?? {}).some((entry) => now - entry.at <= this.bounds.maxAgeMs);
		return !fresh(this.inMemory.get(key)) && !fresh(state[this.field]);
	}

	/** Adds `entry` to this process's copy only; returns that copy. */
	private remember(
		key: string,
		id: string,
		entry: LedgerEntry,
		now: number,
		context?: LedgerContext,
	): Record<string, LedgerEntry> {
		const memory = this.inMemory.get(key) ?? {};
		memory[id] = merged(memory[id], entry)!;
		this.prune(memory, now, context);
		this.inMemory.set(key, memory);
		return memory;
	}

	/**
	 * Drops entries past the age bound, then the oldest beyond the count bound. A record dropped by
	 * count while still within its age is one the trigger may still need (a repeated forward of it
	 * would run again): that is logged, at most once a minute per ledger.
	 */
	private prune(entries: Record<string, LedgerEntry>, now: number, context?: LedgerContext) {
		let count = 0;
		for (const [id, entry] of Object.entries(entries)) {
			if (now - entry.at > this.bounds.maxAgeMs) delete entries[id];
			else count++;
		}
		if (count <= this.bounds.maxEntries) return;
		const sorted = Object.entries(entries).sort(([, a], [, b]) => a.at - b.at);
		sorted.slice(0, count - this.bounds.maxEntries).forEach(([id]) => delete entries[id]);
		if (context?.logger && now - this.lastOverflowLog >= 60_000) {
			this.lastOverflowLog = now;
			context.logger.warn(
				`Messaging Relay Trigger "${context.getNode().name}": more than ${this.bounds.maxEntries} forwarded events in ${Math.round(this.bounds.maxAgeMs / 60_000)} minutes; the oldest records of what this trigger ran were dropped, so one of those events forwarded again would run again.`,
			);
		}
	}
}

/** A listener, with n8n's logger where the caller has one (a webhook request). */
export type LedgerContext = ListenerContext & { logger?: { warn(message: string): void } };

/** A forward's key in `running`: one process life's delivery id. */
const runningKey = (key: string, id: string) => `${key}\u0000${id}`;

/** A join: the later time, every runner once, in order (docs/design/conversations-at-scale.md, "Merges are joins"). */
export function mergeLedgerEntries(
	a: LedgerEntry | undefined,
	b: LedgerEntry | undefined,
): LedgerEntry | undefined {
	if (!a || !b) return a ?? b;
	const ran =
		a.ran || b.ran ? [...new Set([...(a.ran ?? []), ...(b.ran ?? [])])].sort() : undefined;
	return { at: Math.max(a.at, b.at), ...(ran ? { ran } : {}) };
}
const merged = mergeLedgerEntries;

/**
 * The holder's record: one hour, no count bound. It holds only deliveries answered 503, but a member
 * failing until it is set aside (2 minutes) under steady traffic makes hundreds of them; at 100 the
 * oldest were pruned and their redeliveries ran the holder again (set-aside soak, docs/design §3), and
 * any count would do the same to a longer incident (docs/design/account-state.md).
 */
export const holderLedger = new DeliveryLedger(
	'pending',
	{ maxEntries: Number.POSITIVE_INFINITY, maxAgeMs: 60 * 60_000 },
	// Static data's `pending` goes when the listener stops holding (webhookState.ts forgetHolder).
	'holder',
);

/**
 * A member's record: 15 minutes, at most 2,000 forwarded events (each an object that n8n wraps on every
 * delivery to the member: docs/design/account-state.md); dropping one still within its 15 minutes is logged.
 */
export const memberLedger = new DeliveryLedger('taken', {
	maxEntries: 2_000,
	maxAgeMs: 15 * 60_000,
});
