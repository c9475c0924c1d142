import type { MissedSummary } from '../protocol/missed';
import { processKey, type ListenerContext } from '../processKey';
import { memorySlot } from '../processMemory';
import type { MemberRecord, MissedEntry, WebhookState } from '../sharedWebhook/webhookState';

/**
 * The holder's view of each member's ability to take forwarded events, and what a member that was set aside
 * missed (docs/shared-webhook.md, "A member that cannot take events for long"). Kept like the delivery records
 * (deliveryLedger.ts): in static data and this process's memory, merged on every read, since concurrent requests'
 * saves overwrite each other. No write an older copy could undo deletes anything: a member's state is the newest
 * write (`changedAt`), and forgetting reported misses is a time (`clearedUpTo`) that only grows.
 */

/** The bound and its costs. An object rather than constants so the tests can shorten them. */
export const setAsideLimits = {
	/** Failed hand-offs (each after its own tries) before a member is set aside… */
	failures: 3,
	/** …spanning at least this long from the first of them. */
	spanMs: 2 * 60_000,
	/** A set-aside member is offered each event once, with this time-out. */
	offerTimeoutMs: 3_000,
	/** Missed events kept per member with their id and type; beyond that only counted. */
	missedKept: 500,
};

const inMemory = memorySlot<Record<string, MemberRecord>>('member health', {
	holds: "the holder's records of its members; static data's `members` holds what was saved",
	maxEntries: 10_000,
	// Static data's `members` goes when the listener stops holding (webhookState.ts forgetHolder).
	forgottenWith: 'holder',
});

/** A total order of two copies of one member's state: the newer write, then its fields as text. */
function isNewer(a: MemberRecord, b: MemberRecord): boolean {
	if (a.changedAt !== b.changedAt) return a.changedAt > b.changedAt;
	const text = (r: MemberRecord) =>
		JSON.stringify([r.failures, r.since, r.setAsideAt, r.missedUncounted ?? 0]);
	return text(a) >= text(b);
}

/** Of two copies of one miss, the later (then the larger as text): each miss is joined on its own. */
function laterMiss(a: MissedEntry | undefined, b: MissedEntry): MissedEntry {
	if (!a || a[1] !== b[1]) return !a || b[1] > a[1] ? b : a;
	return JSON.stringify(a) >= JSON.stringify(b) ? a : b;
}

/**
 * A join (docs/design/conversations-at-scale.md, "Merges are joins"): the newer write's state, the larger
 * `clearedUpTo`, and every miss not cleared, each miss joined on its own.
 */
export function mergeRecord(
	a: MemberRecord | undefined,
	b: MemberRecord | undefined,
): MemberRecord | undefined {
	if (!a || !b) return a ?? b;
	const newer = isNewer(a, b) ? a : b;
	const clearedUpTo = Math.max(a.clearedUpTo ?? 0, b.clearedUpTo ?? 0);
	const missed: Record<string, MissedEntry> = {};
	for (const [id, miss] of [...Object.entries(a.missed ?? {}), ...Object.entries(b.missed ?? {})]) {
		if (miss[1] > clearedUpTo) missed[id] = laterMiss(missed[id], miss);
	}
	const merged: MemberRecord = { ...newer, missed };
	if (clearedUpTo > 0) merged.clearedUpTo = clearedUpTo;
	if (Object.keys(missed).length === 0) delete merged.missed;
	// No count and a count of 0 are one state (written without it), or the join would not commute.
	if (!merged.missedUncounted) delete merged.missedUncounted;
	return merged;
}

function read(
	context: ListenerContext,
	state: WebhookState,
	path: string,
): MemberRecord | undefined {
	return mergeRecord(inMemory.get(processKey(context))?.[path], state.members?.[path]);
}

function write(context: ListenerContext, state: WebhookState, path: string, record: MemberRecord) {
	const key = processKey(context);
	const memory = inMemory.get(key) ?? {};
	memory[path] = record;
	inMemory.set(key, memory);
	state.members = { ...(state.members ?? {}), [path]: mergeRecord(state.members?.[path], record)! };
}

/** Whether the holder currently sets this member aside (one short try, misses instead of 503). */
export function isSetAside(context: ListenerContext, state: WebhookState, path: string): boolean {
	return read(context, state, path)?.setAsideAt !== undefined;
}

/** The member took a hand-off: it is taking events again. Writes only if it was not. */
export function tookHandoff(
	context: ListenerContext,
	state: WebhookState,
	path: string,
	now = Date.now(),
) {
	const record = read(context, state, path);
	if (!record || (record.failures === 0 && record.setAsideAt === undefined)) return;
	const kept: MemberRecord = { ...record, failures: 0, changedAt: now };
	delete kept.since;
	delete kept.setAsideAt;
	write(context, state, path, kept);
}

/**
 * A hand-off to the member failed after its tries. Returns whether the member is (now) set aside:
 * then the event counts as missed for it (`missedEvent`), not as a reason to answer 503.
 * `startedAt`: when the failed attempt's delivery arrived; the span is measured from the first
 * failed attempt's arrival, since a verdict can come seconds after its request under load.
 */
export function failedHandoff(
	context: ListenerContext,
	state: WebhookState,
	path: string,
	now = Date.now(),
	startedAt = now,
): { setAside: boolean; justNow: boolean } {
	const record = read(context, state, path) ?? { changedAt: now, failures: 0 };
	if (record.setAsideAt !== undefined) return { setAside: true, justNow: false };
	const failures = record.failures + 1;
	const since = record.failures > 0 && record.since !== undefined ? record.since : startedAt;
	const setAside = failures >= setAsideLimits.failures && now - since >= setAsideLimits.spanMs;
	write(context, state, path, {
		...record,
		failures,
		since,
		changedAt: now,
		...(setAside ? { setAsideAt: now } : {}),
	});
	return { setAside, justNow: setAside };
}

/**
 * The bound decided when a delivery arrives: a member that has failed the bound's hand-offs, the
 * first of them the span ago, with none taken since, is set aside now, before this event's attempt
 * can fail once more. Deciding only at a failure's verdict let an attempt that arrived just after
 * the bound run and fail when no verdict came in between (n8n busy). Returns whether it was set
 * aside just now. It is still offered each event once (`offerTimeoutMs`), and taken back at once.
 */
export function setAsideIfDue(
	context: ListenerContext,
	state: WebhookState,
	path: string,
	now = Date.now(),
): boolean {
	const record = read(context, state, path);
	if (!record || record.setAsideAt !== undefined || record.since === undefined) return false;
	if (record.failures < setAsideLimits.failures) return false;
	if (now - record.since < setAsideLimits.spanMs) return false;
	write(context, state, path, {
		...record,
		setAsideAt: now,
		// Newer than the copy it decides on, even when another process's clock ran ahead.
		changedAt: Math.max(record.changedAt + 1, now),
	});
	return true;
}

/**
 * A set-aside member did not take this event: it is recorded as missed for it, under the holder's
 * delivery id `id` (a redelivery is one miss), with the id its report names it by.
 */
export function missedEvent(
	context: ListenerContext,
	state: WebhookState,
	path: string,
	id: string,
	event: { type: string; missedId: string },
	now = Date.now(),
) {
	const record = read(context, state, path) ?? { changedAt: now, failures: 0 };
	const missed = { ...(record.missed ?? {}) };
	let uncounted = record.missedUncounted ?? 0;
	if (missed[id] === undefined) {
		if (Object.keys(missed).length < setAsideLimits.missedKept)
			missed[id] = [event.type, now, event.missedId];
		else uncounted += 1;
	}
	write(context, state, path, {
		...record,
		missed,
		...(uncounted > 0 ? { missedUncounted: uncounted } : {}),
		changedAt: Math.max(record.changedAt, now),
	});
}

/** What the member at `path` missed and was not told yet, or undefined. */
export function missedSummary(
	context: ListenerContext,
	state: WebhookState,
	path: string,
	now = Date.now(),
): MissedSummary | undefined {
	const record = read(context, state, path);
	// A miss recorded before the event's own id was kept is named by the holder's delivery id.
	const misses = Object.entries(record?.missed ?? {}).map(([ledgerId, [type, at, missedId]]) => ({
		id: missedId ?? `delivery ${ledgerId}`,
		type,
		at,
	}));
	const uncounted = record?.missedUncounted ?? 0;
	if (misses.length === 0 && uncounted === 0) return undefined;
	const types: Record<string, number> = {};
	for (const { type } of misses) types[type] = (types[type] ?? 0) + 1;
	const times = misses.map(({ at }) => at);
	return {
		count: misses.length + uncounted,
		types,
		uncounted,
		firstAt: times.length ? Math.min(...times) : now,
		lastAt: times.length ? Math.max(...times) : now,
		upTo: times.length ? Math.max(...times) : now,
		events: misses.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1)),
	};
}

/** The member reported its misses up to `upTo`: forget them (and the uncounted ones). */
export function forgetMissed(
	context: ListenerContext,
	state: WebhookState,
	path: string,
	upTo: number,
) {
	const record = read(context, state, path);
	if (!record) return;
	const missed = Object.fromEntries(
		Object.entries(record.missed ?? {}).filter(([, [, at]]) => at > upTo),
	);
	const kept: MemberRecord = {
		...record,
		missed,
		clearedUpTo: Math.max(record.clearedUpTo ?? 0, upTo),
		changedAt: Math.max(record.changedAt + 1, Date.now()),
	};
	delete kept.missedUncounted;
	write(context, state, path, kept);
}

/**
 * Writes this process's copy of the record into the request's static data when it says something the stored one
 * does not: for the holder's own runs (ownRuns.ts), whose verdicts arrive after n8n saved the request that started
 * them. Only a change that matters after a restart is written (another state, another start of the failures, a
 * count below the bound, misses): each write is a save of the whole workflow row, and on SQLite every delivery
 * writing one adds to the write lock's queue.
 */
export function carryToStaticData(context: ListenerContext, state: WebhookState, path: string) {
	const memory = inMemory.get(processKey(context))?.[path];
	const stored = state.members?.[path];
	if (!memory || (stored && stored.changedAt >= memory.changedAt)) return;
	const counted = (record: MemberRecord | undefined) =>
		Math.min(record?.failures ?? 0, setAsideLimits.failures);
	const differs =
		!stored ||
		stored.setAsideAt !== memory.setAsideAt ||
		stored.since !== memory.since ||
		counted(stored) !== counted(memory) ||
		Object.keys(memory.missed ?? {}).some((id) => stored.missed?.[id] === undefined);
	if (differs) write(context, state, path, memory);
}
