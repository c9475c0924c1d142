import type { IDataObject } from 'n8n-workflow';

import { chatKeys, isDirectChat, phoneDigits } from '../chatIds';
import type { ListenerContext } from '../processKey';
import {
	AccountTable,
	packAfter,
	packNumber,
	readPacked,
	unpackAfter,
	unpackNumber,
	type TableLogger,
} from '../sharedWebhook/accountTable';
import { packResumePath, unpackResumePath } from './resumePathPacking';
import type { WebhookState } from '../sharedWebhook/webhookState';

/**
 * The record of questions that runs wait on (Message → Send and Wait for Reply): one row per question asked, so
 * a run that asks twice, in sequence or in a loop, has a row for each. Every trigger of the account keeps it from
 * the signed `wait` hand-offs (waitOutbox.ts), so that a hand-over keeps it; only the holder routes replies with it
 * (replyRouting.ts). An AccountTable (accountTable.ts): one packed string in static data, found by chat. Why and the
 * races: docs/design/conversations-at-scale.md.
 */
type Context = ListenerContext & TableLogger;

/** A wait as kept: what the hand-offs said, and what became of it. */
export interface WaitEntry extends IDataObject {
	executionId: string;
	resumePath: string;
	chat: string;
	channelId: string;
	since: number;
	until: number;
	questionId?: string | null;
	passOn?: boolean;
	/** The delivery of the reply that resumed the run (a redelivery of it is acknowledged, not passed on), and when. */
	resumedBy?: string;
	resumedAt?: number;
	/** The last delivery offered to the run, saved before the offer: a redelivery after a lost answer is recognised. */
	offeredBy?: string;
	offeredAt?: number;
	/** The last offer n8n answered "not waiting yet" (a young 409), by its offeredAt: its redelivery is offered afresh. */
	refusedBy?: string;
	refusedAt?: number;
	/** How many times the run asked again after an unclear answer (Approval). */
	asked?: number;
}

/**
 * Live waits one account may hold at once. A new wait beyond it is refused once the oldest were checked
 * (receiveWaits.ts), so Send and Wait fails before it asks; no wait is ever dropped to make room.
 */
export const WAIT_CAPACITY = 10_000;
/** n8n's "wait indefinitely" (3000-01-01), Send and Wait's end with no Limit Wait Time. */
const NO_LIMIT = 32_503_680_000_000;
/** A wait is kept this long past its end, so that a late redelivery of its reply is still recognised. */
const KEEP_AFTER_MS = 60 * 60_000;

/** The row of one question: the run's execution id and when it asked (two questions of a run never share a ms). */
export function waitIdOf(wait: Pick<WaitEntry, 'executionId' | 'since'>): string {
	// A time that is not whole (never n8n's) keeps no "." after the separator.
	return `${wait.executionId}.${packNumber(wait.since).replace(/\./g, 'p')}`;
}

/** The execution id in a row id (a row of 0.1.0's first versions is the execution id alone). */
export function executionIdOf(id: string): string {
	const dot = id.lastIndexOf('.');
	return dot > 0 ? id.slice(0, dot) : id;
}

/** The smaller of two (time, id) pairs; the larger with `max`. A total order: a join either way. */
function pairMin(
	a: [number | undefined, string | undefined],
	b: [number | undefined, string | undefined],
	max = false,
): [number | undefined, string | undefined] {
	if (a[0] === undefined || a[1] === undefined) return b;
	if (b[0] === undefined || b[1] === undefined) return a;
	const less = a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]);
	return less !== max ? a : b;
}

/** The current offer is one n8n refused while the wait was young: its redelivery is no proof of an earlier resume. */
export const offerRefused = (w: WaitEntry) =>
	w.refusedBy !== undefined && w.refusedBy === w.offeredBy && w.refusedAt === w.offeredAt;

const fixedFields = (w: WaitEntry) =>
	[w.chat, w.channelId, w.resumePath, w.passOn ? '1' : ''].join('\u0000');

/** A join (docs/design/conversations-at-scale.md, "Merges are joins"): the same result in any order. */
export function mergeWaits(a: WaitEntry, b: WaitEntry): WaitEntry {
	// A resumed wait read back keeps no chat, number or path: the copy that has them gives them.
	const base = !a.chat ? b : !b.chat ? a : fixedFields(a) <= fixedFields(b) ? a : b;
	const [resumedAt, resumedBy] = pairMin([a.resumedAt, a.resumedBy], [b.resumedAt, b.resumedBy]);
	const [offeredAt, offeredBy] = pairMin(
		[a.offeredAt, a.offeredBy],
		[b.offeredAt, b.offeredBy],
		true,
	);
	// The latest refusal, like the latest offer: a stopped run refuses every fresh offer of one delivery.
	const [refusedAt, refusedBy] = pairMin(
		[a.refusedAt, a.refusedBy],
		[b.refusedAt, b.refusedBy],
		true,
	);
	const questions = [a.questionId, b.questionId].filter((q): q is string => !!q).sort();
	const entry: WaitEntry = {
		executionId: base.executionId,
		resumePath: base.resumePath,
		chat: base.chat,
		channelId: base.channelId,
		since: Math.min(a.since, b.since),
		until: Math.min(a.until, b.until),
		questionId: questions[0] ?? null,
	};
	if (base.passOn) entry.passOn = true;
	if (resumedBy !== undefined) [entry.resumedAt, entry.resumedBy] = [resumedAt, resumedBy];
	if (offeredBy !== undefined) [entry.offeredAt, entry.offeredBy] = [offeredAt, offeredBy];
	if (refusedBy !== undefined) [entry.refusedAt, entry.refusedBy] = [refusedAt, refusedBy];
	const asked = Math.max(a.asked ?? 0, b.asked ?? 0);
	if (asked > 0) entry.asked = asked;
	return entry;
}

const orNull = (value: string) => (value === '' ? null : value);

/** A delivery id (32 hex digits, deliveryLedger.ts) as "*" and 22 base64url characters; anything else as it is. */
function packDelivery(id: string | undefined): string {
	if (id === undefined) return '';
	return /^[0-9a-f]{32}$/.test(id) ? `*${Buffer.from(id, 'hex').toString('base64url')}` : id;
}

function unpackDelivery(packed: string): string | undefined {
	if (packed === '') return undefined;
	return packed.startsWith('*')
		? Buffer.from(packed.slice(1), 'base64url').toString('hex')
		: packed;
}

/** A row id's time (waitIdOf): the time packed in the row is then left out. */
function sinceInId(id: string): string | undefined {
	const dot = id.lastIndexOf('.');
	return dot > 0 ? id.slice(dot + 1) : undefined;
}

/** A resumed wait's row starts with an empty chat (no chat is empty): it keeps what recognises a redelivery of its answer. */
const RESUMED = '';

/**
 * The waits, one row per question, packed in static data (`waitRows`) and found by chat and by delivery
 * (accountTable.ts). A wait is about 120 bytes; once resumed, only what recognises its answer's
 * redelivery is kept, so that a campaign's answers shrink what n8n loads and saves with every request.
 */
const table = new AccountTable<WaitEntry>({
	rowsField: 'waitRows',
	revField: 'waitsRev',
	// Times in base 36, the end as "F" (no limit) or its distance from `since` (accountTable.ts packNumber).
	encode: (w, id) => {
		const since = sinceInId(id) === packNumber(w.since) ? '' : packNumber(w.since);
		if (w.resumedBy !== undefined && w.resumedAt !== undefined)
			return [
				RESUMED,
				since,
				packAfter(w.since, Math.min(w.until, w.resumedAt)),
				packAfter(w.since, w.resumedAt),
				packDelivery(w.resumedBy),
			];
		const row = [
			w.chat,
			w.channelId,
			since,
			w.until === NO_LIMIT ? 'F' : packAfter(w.since, w.until),
			packResumePath(executionIdOf(id), w.resumePath, w),
			w.questionId ?? '',
			packDelivery(w.resumedBy),
			w.asked ? packNumber(w.asked) : '',
			w.passOn ? '1' : '',
			w.resumedAt === undefined ? '' : packAfter(w.since, w.resumedAt),
			packDelivery(w.offeredBy),
			w.offeredAt === undefined ? '' : packAfter(w.since, w.offeredAt),
		];
		// Two trailing columns only with a refusal: every other row stays as older versions wrote it.
		if (w.refusedBy === undefined || w.refusedAt === undefined) return row;
		return [...row, packDelivery(w.refusedBy), packAfter(w.since, w.refusedAt)];
	},
	decode: (fields, id) => {
		const sinceOf = (packed: string | undefined) => unpackNumber(packed || (sinceInId(id) ?? ''));
		if (fields[0] === RESUMED) {
			const [, packedSince, packedEnd, packedAt, resumedBy] = fields;
			const since = sinceOf(packedSince);
			const until = unpackAfter(since, packedEnd ?? '');
			const resumedAt = unpackAfter(since, packedAt ?? '');
			const by = unpackDelivery(resumedBy ?? '');
			if (!Number.isFinite(since) || !Number.isFinite(until) || !Number.isFinite(resumedAt) || !by)
				return undefined;
			return {
				executionId: executionIdOf(id),
				resumePath: '',
				chat: '',
				channelId: '',
				since,
				until,
				questionId: null,
				resumedBy: by,
				resumedAt,
			};
		}
		const [
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
			offeredBy,
			offeredAt,
			refusedBy,
			refusedAt,
		] = fields;
		const since = sinceOf(packedSince);
		const until = packedUntil === 'F' ? NO_LIMIT : unpackAfter(since, packedUntil ?? '');
		if (!chat || !channelId || !storedPath || !Number.isFinite(since) || !Number.isFinite(until))
			return undefined;
		const entry: WaitEntry = {
			executionId: executionIdOf(id),
			resumePath: unpackResumePath(executionIdOf(id), storedPath, {
				chat,
				channelId,
				since,
				until,
				passOn: passOn === '1',
			}),
			chat,
			channelId,
			since,
			until,
			questionId: orNull(questionId ?? ''),
		};
		if (resumedBy) entry.resumedBy = unpackDelivery(resumedBy);
		if (resumedAt) entry.resumedAt = unpackAfter(since, resumedAt);
		if (offeredBy) entry.offeredBy = unpackDelivery(offeredBy);
		if (offeredAt) entry.offeredAt = unpackAfter(since, offeredAt);
		if (refusedBy && refusedAt) {
			entry.refusedBy = unpackDelivery(refusedBy);
			entry.refusedAt = unpackAfter(since, refusedAt);
		}
		if (asked) entry.asked = unpackNumber(asked);
		if (passOn === '1') entry.passOn = true;
		return entry;
	},
	merge: mergeWaits,
	// Only ended waits go (past its time limit, or resumed), an hour after: a wait whose run may still
	// take its reply is never dropped (no count bound).
	expired: (w, now) =>
		Math.min(w.until, w.resumedAt ?? Number.POSITIVE_INFINITY) + KEEP_AFTER_MS < now,
	indexKeys: (w) =>
		[w.chat, w.resumedBy && `d:${w.resumedBy}`, w.offeredBy && `d:${w.offeredBy}`].filter(
			(key): key is string => !!key,
		),
});

/** Whether any run waits on this account (read-only: every write goes through this file). */
export const waits: Pick<AccountTable<WaitEntry>, 'isEmpty'> = table;

/** A wait with its row id (`id`), as the routing and the hand-offs name it. */
export type IdentifiedWait = WaitEntry & { id: string };

const identified = (id: string, w: WaitEntry): IdentifiedWait => ({ ...w, id });

export function isLive(entry: WaitEntry, now: number): boolean {
	return !entry.resumedBy && entry.until > now;
}

/** The waits this process knows a run still waits on (not resumed, not past its end). */
export function liveWaits(
	context: Context,
	state: WebhookState,
	now = Date.now(),
): IdentifiedWait[] {
	const live: IdentifiedWait[] = [];
	for (const [id, entry] of table.all(context, state))
		if (isLive(entry, now)) live.push(identified(id, entry));
	return live;
}

export function liveWaitCount(context: Context, state: WebhookState, now = Date.now()): number {
	let count = 0;
	for (const [, entry] of table.all(context, state)) if (isLive(entry, now)) count++;
	return count;
}

export type RecordOutcome = { recorded: true } | { recorded: false; reason: string };

/**
 * What recording `batch` changes, without writing it: per wait, recorded or refused. With
 * `capacity`, a live wait the account does not know yet is refused when the account already holds
 * that many live waits.
 */
export function planWaits(
	context: Context,
	state: WebhookState,
	batch: WaitEntry[],
	now = Date.now(),
	capacity?: number,
): { outcomes: RecordOutcome[]; changes: Array<[string, WaitEntry]> } {
	let live = capacity === undefined ? 0 : liveWaitCount(context, state, now);
	const changes: Array<[string, WaitEntry]> = [];
	const outcomes = batch.map((wait): RecordOutcome => {
		const id = waitIdOf(wait);
		const known = table.get(context, state, id) !== undefined || changes.some(([c]) => c === id);
		if (capacity !== undefined && !known && isLive(wait, now)) {
			if (live >= capacity)
				return {
					recorded: false,
					reason: `this account already has ${capacity} runs waiting for a reply`,
				};
			live++;
		}
		changes.push([id, wait]);
		return { recorded: true };
	});
	return { outcomes, changes };
}

/** Joins waits into this process's view and static data, in one write (planWaits). */
export function recordWaits(
	context: Context,
	state: WebhookState,
	batch: WaitEntry[],
	now = Date.now(),
	capacity?: number,
): RecordOutcome[] {
	const { outcomes, changes } = planWaits(context, state, batch, now, capacity);
	updateWaits(context, state, changes, now);
	return outcomes;
}

/** One wait (recordWaits). */
export function recordWait(
	context: Context,
	state: WebhookState,
	wait: WaitEntry,
	now = Date.now(),
	capacity?: number,
): RecordOutcome {
	return recordWaits(context, state, [wait], now, capacity)[0];
}

/** Joins changes of known waits (an offer, a resume, an end) into the view and static data, in one write. */
export function updateWaits(
	context: Context,
	state: WebhookState,
	updates: Array<[string, WaitEntry]>,
	now = Date.now(),
) {
	if (updates.length > 0) table.write(context, state, updates, now);
}

/** The wait of row `id` as this process knows it. */
export function waitById(
	context: Context,
	state: WebhookState,
	id: string,
): IdentifiedWait | undefined {
	const entry = table.get(context, state, id);
	return entry && identified(id, entry);
}

/** How many other runs still wait in the wait's chat: only then does Send and Wait send its question's id. */
export function otherWaitsInChat(
	context: Context,
	state: WebhookState,
	wait: WaitEntry,
	now = Date.now(),
): number {
	const own = waitIdOf(wait);
	let others = 0;
	for (const [id, entry] of table.withKey(context, state, [wait.chat]))
		if (id !== own && isLive(entry, now)) others++;
	return others;
}

/**
 * The changes that end waits whose run no longer waits (it timed out, was cancelled or deleted, its
 * question was not sent): kept as ended, not deleted, so that no copy of it in another process brings
 * it back; it goes an hour later.
 */
export function endingsOf(
	context: Context,
	state: WebhookState,
	ids: string[],
	now = Date.now(),
): Array<[string, WaitEntry]> {
	const ends: Array<[string, WaitEntry]> = [];
	for (const id of ids) {
		const known = table.get(context, state, id);
		if (known && known.until > now) ends.push([id, { ...known, until: now }]);
	}
	return ends;
}

/** Ends waits (endingsOf), in one write. */
export function endWaits(context: Context, state: WebhookState, ids: string[], now = Date.now()) {
	updateWaits(context, state, endingsOf(context, state, ids, now), now);
}

/** Whether the static data this request loaded already holds this wait as given (Send and Wait's confirm). */
export function waitStored(context: Context, state: WebhookState, wait: WaitEntry): boolean {
	return table.storedHolds(context, state, waitIdOf(wait), wait);
}

/** Writes back what this process wrote recently that the loaded static data lacks (accountTable.ts `repair`). */
export function repairWaits(context: Context, state: WebhookState, now = Date.now()): boolean {
	return table.repair(context, state, now);
}

/** The waits as static data holds them (what n8n saved), by row id: for tests and the bench. */
export function waitsInStaticData(state: WebhookState): Record<string, IdentifiedWait> {
	return Object.fromEntries(
		[...readPacked(state, table)].map(([id, w]) => [id, identified(id, w)]),
	);
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
 * The waits this message may answer, in the order they are offered it: the one that took or was offered this
 * very delivery (a redelivery), then the one whose question it quotes, then the others by age, oldest first. A
 * wait for a chat id matches that chat; a wait for a phone number matches a direct chat from that phone (not a
 * group, a broadcast or a linked id: chatIds.ts). A wait that already took another delivery is left out.
 */
export function waitsForReply(
	context: Context,
	state: WebhookState,
	message: IDataObject,
	deliveryId: string,
	now = Date.now(),
): IdentifiedWait[] {
	const chatId = typeof message.chatId === 'string' ? message.chatId : '';
	const direct = isDirectChat(chatId, message.group);
	const keys = new Set([
		...chatKeys(chatId, !direct),
		...(direct ? [phoneDigits(message.from)].filter((d): d is string => d !== undefined) : []),
	]);
	const channelId = message.channelId;
	const quoted = quotedId(message);
	const mine = (w: WaitEntry) => w.resumedBy === deliveryId || w.offeredBy === deliveryId;
	const candidates = [...table.withKey(context, state, [...keys, `d:${deliveryId}`])]
		.map(([id, w]) => identified(id, w))
		.filter((w) =>
			// The wait that took this very delivery (kept short once resumed: no chat), whatever its chat.
			w.resumedBy === deliveryId
				? true
				: !w.resumedBy &&
					w.until > now &&
					(w.offeredBy === deliveryId ||
						(keys.has(w.chat) && (typeof channelId !== 'string' || w.channelId === channelId))),
		);
	const rank = (w: WaitEntry) =>
		mine(w) ? 0 : quoted !== undefined && w.questionId === quoted ? 1 : 2;
	return candidates.sort((a, b) => rank(a) - rank(b) || a.since - b.since);
}
