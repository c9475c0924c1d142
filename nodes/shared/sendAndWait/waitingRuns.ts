import type { IDataObject } from 'n8n-workflow';

import { chatKeys, phoneDigits } from '../chatIds';
import type { ListenerContext } from '../processKey';
import {
	AccountTable,
	packAfter,
	packNumber,
	readPacked,
	unpackAfter,
	unpackNumber,
} from '../sharedWebhook/accountTable';
import { packResumePath, unpackResumePath } from './resumePathPacking';
import type { WebhookState } from '../sharedWebhook/webhookState';

/**
 * The record of runs that wait for a contact's reply (Message → Send and Wait for Reply,
 * docs/design/durability-and-conversations.md §5). Every trigger of the account keeps it from the signed `wait`
 * hand-offs the waiting node sends, so that a holder hand-over keeps it; only the holder routes replies with it
 * (replyRouting.ts). An AccountTable (accountTable.ts): one packed string in static data, found by chat, so a
 * delivery for a chat with no wait costs the same at 10,000 waits as at none (docs/design/account-state.md).
 */
/** A wait as kept: what the hand-offs said, and the delivery that resumed it, if one did. */
export interface WaitEntry extends IDataObject {
	executionId: string;
	resumePath: string;
	chat: string;
	channelId: string;
	since: number;
	until: number;
	questionId?: string | null;
	passOn?: boolean;
	/** The delivery id of the reply this run took (a redelivery of it is acknowledged, not passed on). */
	resumedBy?: string;
	/** When that delivery resumed it: the wait is kept an hour after, for a redelivery of its reply, then goes. */
	resumedAt?: number;
	/** How many times the run asked again after an unclear answer (Approval). */
	asked?: number;
}

/**
 * Live waits one account may hold at once (docs/design/account-state.md). A new wait beyond it is
 * refused, so Send and Wait fails before it asks (sendAndWait.ts); no wait is ever dropped to make
 * room. Chosen from n8n's measured cost of loading and saving that much state on every request
 * (docs/design/account-state.md, "Why 10,000").
 */
export const WAIT_CAPACITY = 10_000;
/** n8n's "wait indefinitely" (3000-01-01), Send and Wait's end with no Limit Wait Time. */
const NO_LIMIT = 32_503_680_000_000;
/** A wait is kept this long past its end, so that a late redelivery of its reply is still recognised. */
const KEEP_AFTER_MS = 60 * 60_000;

function merged(a: WaitEntry, b: WaitEntry): WaitEntry {
	const asked = Math.max(a.asked ?? 0, b.asked ?? 0);
	const resumedAt =
		a.resumedAt !== undefined && b.resumedAt !== undefined
			? Math.min(a.resumedAt, b.resumedAt)
			: (a.resumedAt ?? b.resumedAt);
	// A join (docs/design/account-state.md, "Two webhook processes"): an end only moves earlier, so
	// an ended wait stays ended whatever order two processes' copies merge in.
	const entry = {
		...a,
		...b,
		until: Math.min(a.until, b.until),
		questionId: b.questionId ?? a.questionId ?? null,
		resumedBy: b.resumedBy ?? a.resumedBy,
		asked,
	} as WaitEntry;
	if (resumedAt !== undefined) entry.resumedAt = resumedAt;
	return entry;
}

const orNull = (value: string) => (value === '' ? null : value);

/** The waits, by execution id, packed in static data (`waitRows`) and indexed by chat (accountTable.ts). */
const table = new AccountTable<WaitEntry>({
	rowsField: 'waitRows',
	revField: 'waitsRev',
	// Times in base 36, the end as "F" (no limit) or its distance from `since` (accountTable.ts packNumber).
	encode: (w, id) => [
		w.chat,
		w.channelId,
		packNumber(w.since),
		w.until === NO_LIMIT ? 'F' : packAfter(w.since, w.until),
		packResumePath(id, w.resumePath, w),
		w.questionId ?? '',
		w.resumedBy ?? '',
		w.asked ? packNumber(w.asked) : '',
		w.passOn ? '1' : '',
		w.resumedAt === undefined ? '' : packAfter(w.since, w.resumedAt),
	],
	decode: (
		[
			chat,
			channelId,
			packedSince,
			packedUntil,
			storedPath,
			questionId,
			resumedBy,
			asked,
			passOn,
			resumedAt,
		],
		id,
	) => {
		const since = unpackNumber(packedSince ?? '');
		const until = packedUntil === 'F' ? NO_LIMIT : unpackAfter(since, packedUntil ?? '');
		if (!chat || !channelId || !storedPath || !Number.isFinite(since) || !Number.isFinite(until))
			return undefined;
		const fields = { chat, channelId, since, until, passOn: passOn === '1' };
		const resumePath = unpackResumePath(id, storedPath, fields);
		const entry: WaitEntry = {
			executionId: '',
			resumePath,
			chat,
			channelId,
			since: fields.since,
			until: fields.until,
			questionId: orNull(questionId ?? ''),
		};
		if (resumedBy) entry.resumedBy = resumedBy;
		if (resumedAt) entry.resumedAt = unpackAfter(since, resumedAt);
		if (asked) entry.asked = unpackNumber(asked);
		if (passOn === '1') entry.passOn = true;
		return entry;
	},
	merge: merged,
	// Only ended waits go (past its time limit, or resumed), an hour after: a wait whose run may still
	// take its reply is never dropped (no count bound).
	expired: (w, now) =>
		Math.min(w.until, w.resumedAt ?? Number.POSITIVE_INFINITY) + KEEP_AFTER_MS < now,
	indexKey: (w) => w.chat,
});

/** Whether any run waits on this account (read-only: every write goes through this file). */
export const waits: Pick<AccountTable<WaitEntry>, 'isEmpty'> = table;

const withId = (executionId: string, w: WaitEntry): WaitEntry => ({ ...w, executionId });

function isLive(entry: WaitEntry, now: number): boolean {
	return !entry.resumedBy && entry.until > now;
}

/** The waits this process and static data know that a run still waits on (not resumed, not past its end). */
export function liveWaitCount(
	context: ListenerContext,
	state: WebhookState,
	now = Date.now(),
): number {
	let count = 0;
	for (const entry of table.all(context, state)) if (isLive(entry, now)) count++;
	return count;
}

export type RecordOutcome = { recorded: true } | { recorded: false; reason: string };

/**
 * Adds or updates a wait (this process's copy and static data). With `capacity`, a wait the account
 * does not know yet is refused when the account already holds that many live waits.
 */
export function recordWait(
	context: ListenerContext,
	state: WebhookState,
	wait: WaitEntry,
	now = Date.now(),
	capacity?: number,
): RecordOutcome {
	if (
		capacity !== undefined &&
		table.get(context, state, wait.executionId) === undefined &&
		liveWaitCount(context, state, now) >= capacity
	) {
		return {
			recorded: false,
			reason: `this account already has ${capacity} runs waiting for a reply`,
		};
	}
	table.write(context, state, [[wait.executionId, withId(wait.executionId, wait)]], now);
	return { recorded: true };
}

/**
 * How many other runs still wait in the wait's chat: only then does Send and Wait send its
 * question's message id too (a reply that quotes one of two questions goes to that question's run).
 */
export function otherWaitsInChat(
	context: ListenerContext,
	state: WebhookState,
	wait: WaitEntry,
	now = Date.now(),
): number {
	let others = 0;
	for (const [id, entry] of table.withKey(context, state, [wait.chat]))
		if (id !== wait.executionId && isLive(entry, now)) others++;
	return others;
}

/**
 * Ends a wait whose run no longer waits (it timed out, was cancelled or deleted): kept as ended, not
 * deleted, so that no copy of it in another process's memory brings it back; it goes an hour later.
 */
export function dropWait(
	context: ListenerContext,
	state: WebhookState,
	executionId: string,
	now = Date.now(),
) {
	const known = table.get(context, state, executionId);
	if (known && known.until > now)
		table.write(context, state, [[executionId, { ...known, until: now }]], now);
}

/** Whether the static data this request loaded already holds this wait as given (Send and Wait's confirm). */
export function waitStored(
	context: ListenerContext,
	state: WebhookState,
	wait: WaitEntry,
): boolean {
	return table.storedHolds(context, state, wait.executionId, withId(wait.executionId, wait));
}

/** Writes back the waits this process holds that another process's save dropped (accountTable.ts `repair`). */
export function repairWaits(
	context: ListenerContext,
	state: WebhookState,
	now = Date.now(),
): boolean {
	return table.repair(context, state, now);
}

/** The waits as static data holds them (what n8n saved), by execution id: for tests and the bench. */
export function waitsInStaticData(state: WebhookState): Record<string, WaitEntry> {
	return Object.fromEntries([...readPacked(state, table)].map(([id, w]) => [id, withId(id, w)]));
}

/** The message id a reply quotes, wherever the service puts it (the shape of `replyTo` is not shown in the spec). */
export function quotedId(message: IDataObject): string | undefined {
	const replyTo = message.replyTo as unknown;
	if (typeof replyTo === 'string' && replyTo) return replyTo;
	if (replyTo && typeof replyTo === 'object') {
		for (const field of ['id', 'messageId', 'message_id']) {
			const value = (replyTo as IDataObject)[field];
			if (typeof value === 'string' && value) return value;
		}
	}
	return undefined;
}

/**
 * The waits this message may answer, in the order they are offered it: the one whose question
 * it quotes, then the others by age, oldest first. A wait for a chat id matches that chat; a wait
 * for a phone number matches a direct chat from that phone. A wait that already took another
 * delivery is left out; the one that took this very delivery comes first (a redelivery).
 */
export function waitsForReply(
	context: ListenerContext,
	state: WebhookState,
	message: IDataObject,
	deliveryId: string,
	now = Date.now(),
): WaitEntry[] {
	const chatId = typeof message.chatId === 'string' ? message.chatId : '';
	const isGroup = message.group !== undefined && message.group !== null;
	const keys = new Set([
		...chatKeys(chatId, isGroup),
		...(isGroup ? [] : [phoneDigits(message.from)].filter((d): d is string => d !== undefined)),
	]);
	const channelId = message.channelId;
	const quoted = quotedId(message);
	const candidates = [...table.withKey(context, state, keys)]
		.map(([id, w]) => withId(id, w))
		.filter(
			(w) =>
				keys.has(w.chat) &&
				(typeof channelId !== 'string' || w.channelId === channelId) &&
				(w.resumedBy ? w.resumedBy === deliveryId : w.until > now),
		);
	const rank = (w: WaitEntry) =>
		w.resumedBy === deliveryId ? 0 : quoted !== undefined && w.questionId === quoted ? 1 : 2;
	return candidates.sort((a, b) => rank(a) - rank(b) || a.since - b.since);
}
