import { randomBytes } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { isWebhookRequest, markRunStarting, watchSave } from '../n8n/staticDataSave';

import { processKey, type ListenerContext } from '../processKey';
import { contextMemory, memorySlot, type MemorySlot } from '../processMemory';

/**
 * A record that grows with an account (the waiting runs, the paused chats): ONE string of rows in static data (n8n
 * builds no Proxy for a string) beside its revision. Each process keeps a view: the join of the newest revision it
 * loaded and what it wrote since, so that a request costs what it changes, not what the table holds. Why and the
 * races: docs/design/conversations-at-scale.md, "What each process keeps in memory".
 */
export interface TableShape<T> {
	/** The static-data fields of the rows and of their revision. */
	rowsField: string;
	revField: string;
	/** Row fields in order; each row is `id` then these, each field escaped (escapeField). */
	encode(row: T, id: string): string[];
	/** Undefined (or a throw) for a row that does not decode: it is skipped, logged once, dropped at the next write. */
	decode(fields: string[], id: string): T | undefined;
	/** A join: commutative, associative, idempotent (docs/design/conversations-at-scale.md, "Merges are joins"). */
	merge(a: T, b: T): T;
	expired(row: T, now: number): boolean;
	/** Rows are also found by these keys (a chat, a delivery), when set: `withKey`. */
	indexKeys?(row: T): string[];
}

/** A process writes back its own writes of this long ago at most: shorter than any ended row is kept. */
export const REPAIR_WINDOW_MS = 10 * 60_000;
/** Expired rows are dropped at most this often per process (they are only kept longer). */
const SWEEP_EVERY_MS = 60_000;

const ROW = ';';
const FIELD = ' ';

interface Held<T> {
	row: T;
	line: string;
	/** The counter of this process's first revision that held this form; 0: not known to be in one of ours. */
	inOwn: number;
}

interface RecentWrite<T> {
	row: T;
	at: number;
}

interface ProcessCopy<T> {
	/** This copy's name in the revisions it writes (one per listener and process): it never parses its own. */
	writer: string;
	view: Map<string, Held<T>>;
	byKey: Map<string, Set<string>>;
	/** This process's writes of the last REPAIR_WINDOW_MS, as it wrote them: all it ever writes back. */
	recent: Map<string, RecentWrite<T>>;
	/** The newest revision in the view (time, for the order of revisions) and this process's write counter. */
	newestAt: number;
	counter: number;
	/** The last revision another process wrote that this one parsed: what it held exactly, by id. */
	foreign?: { rev: string; rows: Map<string, Held<T>> };
	/** Older revisions of other processes already joined into the view (a request that loaded before a save). */
	joined: Set<string>;
	/**
	 * The counter of this process's first revision after the view was last taken from another process's:
	 * every row of the view that this process has not changed since is in that revision and every later one.
	 */
	foundation?: number;
	/** A write whose save was not seen (n8n failed it): the next request writes the view again. */
	unsaved: boolean;
	/** When a request of this process last ran repair (which writes the view again while unsaved). */
	repairedAt: number;
	/**
	 * The string this process last wrote and how many lines it has: while the view only changed by the
	 * rows written since, the next string is this one with their lines appended (a later line of an id
	 * joins onto the earlier one when read), so that a write costs what it changes.
	 */
	written?: { text: string; lines: number };
	sweptAt?: number;
}

/**
 * Escapes the characters the packing uses (space, ";", "%") and everything JSON would escape, so
 * the packed string is stored byte for byte: decodeURIComponent is the exact inverse.
 */
export function escapeField(value: string): string {
	let escaped = '';
	for (const char of value) {
		const code = char.charCodeAt(0);
		escaped +=
			code < 0x20 || code === 0x7f || SPECIAL.has(char)
				? `%${code.toString(16).padStart(2, '0').toUpperCase()}`
				: char;
	}
	return escaped;
}

const SPECIAL: ReadonlySet<string> = new Set(['%', ROW, FIELD, '"', '\\']);

function unescapeField(value: string): string {
	return value.includes('%') ? decodeURIComponent(value) : value;
}

/**
 * A row's number, short: a whole number in base 36 (a time in ms, 13 digits, takes 8), anything
 * else as "_" and its decimal. Times are most of a pause's bytes, and n8n loads them on every delivery.
 */
export function packNumber(n: number): string {
	return Number.isSafeInteger(n) ? n.toString(36) : `_${n}`;
}

export function unpackNumber(packed: string): number {
	if (packed.startsWith('_')) return Number(packed.slice(1));
	return /^-?[0-9a-z]+$/.test(packed) ? parseInt(packed, 36) : NaN;
}

/** A time as its distance from another (`base`) when both are whole; otherwise "=" and itself. */
export function packAfter(base: number, n: number): string {
	return Number.isSafeInteger(base) && Number.isSafeInteger(n) && Number.isSafeInteger(n - base)
		? packNumber(n - base)
		: `=${packNumber(n)}`;
}

export function unpackAfter(base: number, packed: string): number {
	return packed.startsWith('=') ? unpackNumber(packed.slice(1)) : base + unpackNumber(packed);
}

/** A revision: `<time base 36>.<writer>.<counter base 36>`, ordered by its time across processes. */
function revisionOf(at: number, writer: string, counter: number): string {
	return `${at.toString(36)}.${writer}.${counter.toString(36)}`;
}

function parseRevision(
	rev: unknown,
	writer: string,
): { at: number; own: boolean; counter: number } | undefined {
	if (typeof rev !== 'string') return undefined;
	const [at, by, counter] = rev.split('.');
	const time = parseInt(at ?? '', 36);
	// A revision of an earlier version (a UUID) is someone else's, older than any of ours.
	if (!by || counter === undefined || !Number.isFinite(time))
		return { at: 0, own: false, counter: 0 };
	return { at: time, own: by === writer, counter: parseInt(counter, 36) };
}

/** Rows that did not decode, logged once per process (bounded: a flood is one line each, then silence). */
const MAX_REPORTED = 100;
const reportedBadRows = memorySlot<true>('bad rows reported', {
	holds: 'table rows that did not decode, already logged; a restart logs them once more',
	maxEntries: MAX_REPORTED,
});

/** Where a bad row is reported: n8n's logger when the caller has one. */
export interface TableLogger {
	logger?: { warn(message: string, meta?: IDataObject): void; debug?(message: string): void };
}

/** Every table of the account, for the repair that any request not refused makes (repairTables). */
const tables: Array<AccountTable<unknown>> = [];
/** The requests that wrote a table (a request that then starts a run is not saved: tablesNotSaved). */
const writers = contextMemory<true>('table writers', 'requests that wrote a table');

export class AccountTable<T> {
	private readonly copies: MemorySlot<ProcessCopy<T>>;

	constructor(readonly shape: TableShape<T>) {
		tables.push(this as AccountTable<unknown>);
		this.copies = memorySlot(`account table (${shape.rowsField})`, {
			holds:
				"each listener's view of the table and its writes not saved yet; a restart rebuilds it",
			maxEntries: 10_000,
		});
	}

	/** No row in this process's view nor in the loaded static data: nothing to look up (no parse). */
	isEmpty(context: ListenerContext, state: IDataObject): boolean {
		const packed = state[this.shape.rowsField];
		const held = this.copies.get(processKey(context))?.view.size ?? 0;
		return held === 0 && (typeof packed !== 'string' || packed === '');
	}

	private copy(context: ListenerContext): ProcessCopy<T> {
		const key = processKey(context);
		// Written again at each use: the count bound drops the view used longest ago (as a restart would).
		return this.copies.set(
			key,
			this.copies.get(key) ?? {
				writer: randomBytes(6).toString('base64url'),
				view: new Map(),
				byKey: new Map(),
				recent: new Map(),
				newestAt: 0,
				counter: 0,
				joined: new Set(),
				unsaved: false,
				repairedAt: 0,
			},
		);
	}

	private line(id: string, row: T): string {
		return [id, ...this.shape.encode(row, id)].map(escapeField).join(FIELD);
	}

	/** Puts `row` joined with what the view holds; returns the held form when it changed, else undefined. */
	private put(copy: ProcessCopy<T>, id: string, row: T, line?: string): Held<T> | undefined {
		const known = copy.view.get(id);
		const next = known ? this.shape.merge(known.row, row) : row;
		const packed = known || line === undefined ? this.line(id, next) : line;
		if (known && known.line === packed) return undefined;
		const held: Held<T> = { row: next, line: packed, inOwn: 0 };
		copy.view.set(id, held);
		if (known) this.unindex(copy, id, known.row);
		for (const key of this.shape.indexKeys?.(next) ?? []) {
			const ids = copy.byKey.get(key);
			if (ids) ids.add(id);
			else copy.byKey.set(key, new Set([id]));
		}
		return held;
	}

	private unindex(copy: ProcessCopy<T>, id: string, row: T) {
		for (const key of this.shape.indexKeys?.(row) ?? []) {
			const ids = copy.byKey.get(key);
			ids?.delete(id);
			if (ids?.size === 0) copy.byKey.delete(key);
		}
	}

	private remove(copy: ProcessCopy<T>, id: string) {
		const known = copy.view.get(id);
		if (!known) return;
		copy.view.delete(id);
		this.unindex(copy, id, known.row);
	}

	/**
	 * Brings this process's view up to the static data this request loaded. A revision this process
	 * wrote, or one older than the view, is already in it. A newer one another process wrote replaces
	 * it: its rows, joined with this process's recent writes (a save that loaded before ours dropped
	 * them). Nothing else of the old view survives, so nothing another process ended comes back.
	 */
	private sync(
		context: ListenerContext & TableLogger,
		state: IDataObject,
		now: number,
	): ProcessCopy<T> {
		const copy = this.copy(context);
		const rev = state[this.shape.revField];
		const seen = parseRevision(rev, copy.writer);
		// No revision: nothing was ever saved, or another process's save of the whole static data
		// dropped the field: what this process wrote recently goes back (a stale load only costs a write).
		if (!seen) {
			if ([...copy.recent.values()].some((w) => now - w.at <= REPAIR_WINDOW_MS))
				this.lost(context, copy, 'no revision');
			return copy;
		}
		// Older than what this process wrote last: a request that loaded it before that write saves (or saved)
		// the whole static data after it (n8n saves it whole), taking the newer rows back. Written again.
		if (copy.counter > 0 && (seen.own ? seen.counter < copy.counter : seen.at < copy.newestAt))
			this.lost(context, copy, 'an older revision');
		if (seen.own || copy.foreign?.rev === rev || copy.joined.has(rev as string)) return copy;
		const parsed = new Map<string, Held<T>>();
		for (const [id, row, line] of this.unpack(context, state[this.shape.rowsField])) {
			// A later line of an id (an appended update of an earlier version) joins onto the earlier one.
			const known = parsed.get(id);
			const next = known ? this.shape.merge(known.row, row) : row;
			parsed.set(id, { row: next, line: known ? this.line(id, next) : line, inOwn: 0 });
		}
		if (seen.at < copy.newestAt) {
			// Saved before the newest revision this process knows, loaded by a request that started
			// before that save: joined in, not taken over (a few minutes old at most; older is ignored).
			if (copy.newestAt - seen.at <= REPAIR_WINDOW_MS) {
				for (const [id, held] of parsed) if (this.put(copy, id, held.row)) copy.written = undefined;
				if (copy.joined.size >= 16) copy.joined.clear();
				copy.joined.add(rev as string);
			}
			return copy;
		}
		copy.view = new Map();
		copy.byKey = new Map();
		copy.joined.clear();
		copy.written = undefined;
		for (const [id, held] of parsed) this.put(copy, id, held.row, held.line);
		copy.foreign = { rev: rev as string, rows: parsed };
		copy.foundation = undefined;
		copy.newestAt = seen.at;
		let missing = 0;
		for (const [id, write] of copy.recent) {
			if (now - write.at > REPAIR_WINDOW_MS) copy.recent.delete(id);
			else if (this.put(copy, id, write.row)) missing += 1;
		}
		if (missing > 0)
			this.lost(context, copy, `another process's revision without ${missing} row(s)`);
		return copy;
	}

	/**
	 * The loaded static data lacks what this process wrote recently: a save that carried it was lost
	 * (or is not made yet). The view is written again at the next write or repair. Said at debug
	 * level, when first seen: the two-webhook-process suite counts these to show it met lost saves.
	 */
	private lost(context: TableLogger, copy: ProcessCopy<T>, found: string) {
		// Said once per loss: the write that follows in the same request finds it again.
		if (copy.unsaved) return;
		copy.unsaved = true;
		context.logger?.debug?.(
			`Messaging Relay: static data this request loaded lacks ${this.shape.rowsField} this process wrote (${found}); written again`,
		);
	}

	private *unpack(context: TableLogger, packed: unknown): Generator<[string, T, string]> {
		if (typeof packed !== 'string' || packed === '') return;
		for (const line of packed.split(ROW)) {
			let row: T | undefined;
			let id = '';
			try {
				const [first, ...fields] = line.split(FIELD).map(unescapeField);
				id = first ?? '';
				row = id ? this.shape.decode(fields, id) : undefined;
			} catch {
				row = undefined;
			}
			if (row !== undefined) yield [id, row, line];
			else this.reportBadRow(context, line);
		}
	}

	private reportBadRow(context: TableLogger, line: string) {
		const key = `${this.shape.rowsField}\u0000${line}`;
		if (reportedBadRows.has(key) || reportedBadRows.size >= MAX_REPORTED) return;
		reportedBadRows.set(key, true);
		context.logger?.warn(
			`Messaging Relay Trigger: a row of its ${this.shape.rowsField} in the workflow's static data could not be read and is skipped; it is dropped at the next change. If a run waits for a reply that does not arrive, run it again.`,
			{ field: this.shape.rowsField, row: line.slice(0, 80) },
		);
	}

	/**
	 * Whether the static data this request loaded already holds `row` (or a later form of it): Send and
	 * Wait's confirm. Exact for a revision another process wrote; for one of this process's, a row
	 * counts when it has not changed since that revision (otherwise it is written again: harmless).
	 */
	storedHolds(
		context: ListenerContext & TableLogger,
		state: IDataObject,
		id: string,
		row: T,
	): boolean {
		const copy = this.sync(context, state, Date.now());
		const rev = state[this.shape.revField];
		const seen = parseRevision(rev, copy.writer);
		if (!seen) return false;
		if (!seen.own) {
			const foreign = copy.foreign;
			const stored = foreign && foreign.rev === rev ? foreign.rows.get(id) : undefined;
			return (
				stored !== undefined && this.line(id, this.shape.merge(stored.row, row)) === stored.line
			);
		}
		const held = copy.view.get(id);
		if (!held || this.line(id, this.shape.merge(held.row, row)) !== held.line) return false;
		const since = held.inOwn > 0 ? held.inOwn : copy.foundation;
		return since !== undefined && since <= seen.counter;
	}

	/**
	 * Writes the view again when the loaded static data lacks something this process wrote recently (another
	 * process's save dropped it) or when this process's last save failed. Returns whether it wrote. O(1) unless
	 * another process saved since this one last looked.
	 */
	repair(context: ListenerContext & TableLogger, state: IDataObject, now: number): boolean {
		const copy = this.sync(context, state, now);
		copy.repairedAt = now;
		if (!copy.unsaved) return false;
		this.write(context, state, [], now);
		return true;
	}

	/** One row as this process knows it (the loaded static data joined into its view). */
	get(context: ListenerContext & TableLogger, state: IDataObject, id: string): T | undefined {
		return this.sync(context, state, Date.now()).view.get(id)?.row;
	}

	/** The rows whose index key is one of `keys`, by id: a lookup, whatever the table holds. */
	withKey(
		context: ListenerContext & TableLogger,
		state: IDataObject,
		keys: Iterable<string>,
	): Map<string, T> {
		const copy = this.sync(context, state, Date.now());
		const found = new Map<string, T>();
		for (const key of keys)
			for (const id of copy.byKey.get(key) ?? []) found.set(id, copy.view.get(id)!.row);
		return found;
	}

	/** Every row with its id (a count over the table, a capacity check): no copy of the table. */
	*all(context: ListenerContext & TableLogger, state: IDataObject): Generator<[string, T]> {
		const copy = this.sync(context, state, Date.now());
		for (const [id, held] of copy.view) yield [id, held.row];
	}

	/**
	 * Joins `changes` into the view (and into this process's recent writes), drops expired rows (once a
	 * minute), and writes the view as the new string with a new revision; nothing when nothing changed.
	 */
	write(
		context: ListenerContext & TableLogger,
		state: IDataObject,
		changes: Array<[string, T]>,
		now: number,
	): number {
		const copy = this.sync(context, state, now);
		const changed: Array<Held<T>> = [];
		for (const [id, change] of changes) {
			const held = this.put(copy, id, change);
			const current = copy.view.get(id)!;
			copy.recent.set(id, { row: current.row, at: now });
			if (held) changed.push(held);
		}
		let removed = false;
		if (copy.sweptAt === undefined || now - copy.sweptAt >= SWEEP_EVERY_MS || now < copy.sweptAt) {
			copy.sweptAt = now;
			for (const [id, held] of copy.view)
				if (this.shape.expired(held.row, now)) {
					this.remove(copy, id);
					removed = true;
					copy.written = undefined;
				}
			for (const [id, write] of copy.recent)
				if (now - write.at > REPAIR_WINDOW_MS || this.shape.expired(write.row, now))
					copy.recent.delete(id);
		}
		// Nothing new for static data (and the view is in it): no write, no save.
		if (
			changed.length === 0 &&
			!removed &&
			!copy.unsaved &&
			state[this.shape.revField] !== undefined
		)
			return copy.counter;
		copy.counter++;
		copy.foundation ??= copy.counter;
		for (const held of changed) held.inOwn = copy.counter;
		copy.newestAt = Math.max(now, copy.newestAt + 1);
		state[this.shape.rowsField] = this.serialize(copy, changed);
		state[this.shape.revField] = revisionOf(copy.newestAt, copy.writer, copy.counter);
		this.watch(context, copy, copy.counter);
		return copy.counter;
	}

	/** The view as one string: the last one written with the changed rows appended, or all rows anew. */
	private serialize(copy: ProcessCopy<T>, changed: Array<Held<T>>): string {
		const last = copy.written;
		let text: string;
		let lines: number;
		if (last && last.lines + changed.length <= 2 * copy.view.size + 64) {
			const added = changed.map((held) => held.line).join(ROW);
			text = !changed.length ? last.text : last.text ? `${last.text}${ROW}${added}` : added;
			lines = last.lines + changed.length;
		} else {
			text = [...copy.view.values()].map((held) => held.line).join(ROW);
			lines = copy.view.size;
		}
		copy.written = { text, lines };
		return text;
	}

	/**
	 * Unsaved until n8n is seen saving this request after this write (staticDataSave.ts): a save that failed,
	 * a request that started a run, a write after the request was saved (an answer's mark) leave the view
	 * ahead of the database, and the next request writes it again. An n8n whose saves cannot be seen: as before,
	 * taken as saved.
	 */
	private watch(context: ListenerContext, copy: ProcessCopy<T>, counter: number) {
		copy.unsaved = true;
		writers.set(context, true);
		if (!isWebhookRequest(context)) {
			copy.unsaved = false;
			return;
		}
		const watch = watchSave(context);
		if (watch.settled) return;
		void watch.saved.then((saved) => {
			if (saved !== false && copy.counter === counter) copy.unsaved = false;
		});
	}

	/** This process's save failed: the next request writes the view again. */
	saveFailed(context: ListenerContext) {
		this.copy(context).unsaved = true;
	}

	/** Whether this process's view holds something no save of n8n has been seen to carry. */
	isUnsaved(context: ListenerContext): boolean {
		return this.copies.get(processKey(context))?.unsaved === true;
	}

	/** Whether a request of this process ran repair after `at` (the same millisecond may be before it). */
	repairedSince(context: ListenerContext, at: number): boolean {
		return (this.copies.get(processKey(context))?.repairedAt ?? 0) > at;
	}
}

/** The rows exactly as static data holds them, with nothing of any process's memory: for tests and the bench. */
export function readPacked<T>(state: IDataObject, table: AccountTable<T>): Map<string, T> {
	const rows = new Map<string, T>();
	const packed = state[table.shape.rowsField];
	if (typeof packed !== 'string' || packed === '') return rows;
	for (const line of packed.split(ROW)) {
		try {
			const [id, ...fields] = line.split(FIELD).map(unescapeField);
			const row = id ? table.shape.decode(fields, id) : undefined;
			if (!id || row === undefined) continue;
			const known = rows.get(id);
			rows.set(id, known ? table.shape.merge(known, row) : row);
		} catch {
			// A row that does not decode is not there.
		}
	}
	return rows;
}

/**
 * Writes back, in every table, what this process wrote recently that the loaded static data lacks
 * (docs/design/conversations-at-scale.md, "What each process keeps in memory").
 */
export function repairTables(
	context: ListenerContext & TableLogger,
	state: IDataObject,
	now = Date.now(),
) {
	for (const table of tables) table.repair(context, state, now);
}

/** A save of static data this process made was not seen to succeed: every table writes its view again. */
export function tablesSaveFailed(context: ListenerContext) {
	for (const table of tables) table.saveFailed(context);
}

/**
 * This request starts a run: n8n 2.41.1 saves nothing it wrote, whatever its save flag says. When it wrote a
 * table, the save's watch reports it unsaved, and the next request writes the view again.
 */
export function tablesNotSaved(context: ListenerContext) {
	if (writers.has(context)) markRunStarting(context);
}

/**
 * Whether some table of this listener holds something no save has been seen to carry; with `writtenAt`, and
 * no request of this process has run repairTables since then (which writes it again).
 */
export function tablesUnsaved(context: ListenerContext, writtenAt?: number): boolean {
	const repaired = (table: AccountTable<unknown>) =>
		writtenAt !== undefined && table.repairedSince(context, writtenAt);
	return tables.some((table) => table.isUnsaved(context) && !repaired(table));
}
