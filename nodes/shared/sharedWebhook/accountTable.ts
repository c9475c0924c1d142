import { randomUUID } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { processKey, type ListenerContext } from '../processKey';

/**
 * A record that grows with an account (the waiting runs, the paused chats), kept so that a delivery does not pay
 * for it: ONE string of rows in static data (n8n's ObservableObject.create wraps every object there in a Proxy on
 * every delivery), parsed only when its revision changed; and in this process's memory, merged into every write,
 * since the last save of static data wins. Rows go only when `expired` says their owner is done. Why:
 * docs/design/account-state.md, "What the nodes keep now: the AccountTable".
 */
export interface TableShape<T> {
	/** The static-data fields of the rows and of their revision. */
	rowsField: string;
	revField: string;
	/** Row fields in order; each row is `id` then these, each field escaped (escapeField). */
	encode(row: T, id: string): string[];
	decode(fields: string[], id: string): T | undefined;
	merge(a: T, b: T): T;
	expired(row: T, now: number): boolean;
	/** Rows are also found by this key (a chat), when set: `withKey`. */
	indexKey?(row: T): string;
}

/** Rows by id, each row's packed line (encoded once, when it changes), and ids by index key. */
interface Rows<T> {
	byId: Map<string, T>;
	lines: Map<string, string>;
	byKey: Map<string, Set<string>>;
}

interface ProcessCopy<T> {
	memory: Rows<T>;
	/** Static data's rows at revision `rev`, parsed; `lines`: how many lines its string has (updates are appended). */
	stored?: { rev: string; rows: Rows<T>; lines: number };
	/** When this process last dropped expired rows (a sweep a minute is enough: they are only kept longer). */
	sweptAt?: number;
	/** The revision this process last wrote: while static data still has it, memory is already in it. */
	written?: string;
}

const ROW = ';';
const FIELD = ' ';

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

/** Every table of the account, for the repair that any request not refused makes (repairTables). */
const tables: Array<AccountTable<unknown>> = [];

export class AccountTable<T> {
	private readonly copies = new Map<string, ProcessCopy<T>>();

	constructor(readonly shape: TableShape<T>) {
		tables.push(this as AccountTable<unknown>);
	}

	/** No row in this process's memory nor in the loaded static data: nothing to look up (no parse). */
	isEmpty(context: ListenerContext, state: IDataObject): boolean {
		const packed = state[this.shape.rowsField];
		const held = this.copies.get(processKey(context))?.memory.byId.size ?? 0;
		return held === 0 && (typeof packed !== 'string' || packed === '');
	}

	private copy(context: ListenerContext): ProcessCopy<T> {
		const key = processKey(context);
		let copy = this.copies.get(key);
		if (!copy) this.copies.set(key, (copy = { memory: emptyRows() }));
		return copy;
	}

	/** Merges a row in; returns whether it changed. */
	private set(rows: Rows<T>, id: string, row: T, line?: string): boolean {
		const known = rows.byId.get(id);
		const next = known ? this.shape.merge(known, row) : row;
		const packed = known || line === undefined ? this.line(id, next) : line;
		if (known && rows.lines.get(id) === packed) return false;
		rows.byId.set(id, next);
		rows.lines.set(id, packed);
		if (!known && this.shape.indexKey) {
			const key = this.shape.indexKey(row);
			const ids = rows.byKey.get(key);
			if (ids) ids.add(id);
			else rows.byKey.set(key, new Set([id]));
		}
		return true;
	}

	private delete(rows: Rows<T>, id: string) {
		const known = rows.byId.get(id);
		if (!known) return;
		rows.byId.delete(id);
		rows.lines.delete(id);
		if (!this.shape.indexKey) return;
		const key = this.shape.indexKey(known);
		const ids = rows.byKey.get(key);
		ids?.delete(id);
		if (ids?.size === 0) rows.byKey.delete(key);
	}

	/** The rows of static data as this request loaded them: parsed once per revision and process. */
	private stored(context: ListenerContext, state: IDataObject): Rows<T> {
		const copy = this.copy(context);
		const rev = state[this.shape.revField];
		const packed = state[this.shape.rowsField];
		if (typeof rev === 'string' && copy.stored?.rev === rev) return copy.stored.rows;
		const rows = emptyRows<T>();
		let lines = 0;
		for (const [id, row, line] of unpack(this.shape, packed)) {
			this.set(rows, id, row, line);
			lines++;
		}
		if (typeof rev === 'string') copy.stored = { rev, rows, lines };
		return rows;
	}

	/**
	 * Whether the static data this request loaded already holds `row` (or a later form of it):
	 * writing it would change nothing there. Memory is not consulted.
	 */
	storedHolds(context: ListenerContext, state: IDataObject, id: string, row: T): boolean {
		const stored = this.stored(context, state);
		const known = stored.byId.get(id);
		return (
			known !== undefined && this.line(id, this.shape.merge(known, row)) === stored.lines.get(id)
		);
	}

	/**
	 * Writes back what this process holds that the loaded static data lacks, or holds in an older
	 * form: another process's save dropped it (docs/design/account-state.md, "Two webhook
	 * processes"). Returns whether it wrote. Free while static data is this process's last write.
	 */
	repair(context: ListenerContext, state: IDataObject, now: number): boolean {
		const copy = this.copy(context);
		if (
			copy.memory.byId.size === 0 ||
			(copy.written !== undefined && state[this.shape.revField] === copy.written)
		)
			return false;
		let behind = false;
		for (const [id, row] of copy.memory.byId) {
			if (this.shape.expired(row, now) || this.storedHolds(context, state, id, row)) continue;
			behind = true;
			break;
		}
		if (behind) this.write(context, state, [], now);
		return behind;
	}

	private line(id: string, row: T): string {
		return [id, ...this.shape.encode(row, id)].map(escapeField).join(FIELD);
	}

	/** One row as this process and static data know it, merged. */
	get(context: ListenerContext, state: IDataObject, id: string): T | undefined {
		const mine = this.copy(context).memory.byId.get(id);
		const stored = this.stored(context, state).byId.get(id);
		return mine && stored ? this.shape.merge(stored, mine) : (mine ?? stored);
	}

	/** The rows whose index key is one of `keys`, by id, merged: a lookup, whatever the table holds. */
	withKey(context: ListenerContext, state: IDataObject, keys: Iterable<string>): Map<string, T> {
		const copy = this.copy(context);
		const stored = this.stored(context, state);
		const found = new Map<string, T>();
		for (const key of keys) {
			for (const rows of [copy.memory, stored]) {
				for (const id of rows.byKey.get(key) ?? [])
					if (!found.has(id)) found.set(id, this.get(context, state, id)!);
			}
		}
		return found;
	}

	/** Every row, merged: what the next write will save (for a count over the table). */
	all(context: ListenerContext, state: IDataObject): IterableIterator<T> {
		return this.rowsToWrite(context, state).byId.values();
	}

	/**
	 * The rows as the next write will save them (static data with this process's memory merged in),
	 * for a caller that decides on all of them (a capacity check) before it writes.
	 */
	private rowsToWrite(context: ListenerContext, state: IDataObject): Rows<T> {
		const copy = this.copy(context);
		const stored = this.stored(context, state);
		if (copy.written !== undefined && state[this.shape.revField] === copy.written) return stored;
		// A copy: the parse of this revision stays what static data holds (storedHolds, repair).
		const rows = cloneRows(stored);
		for (const [id, row] of copy.memory.byId) this.set(rows, id, row);
		return rows;
	}

	/**
	 * Applies `changes` (a row merged in, or undefined: the row removed) to memory and static data, drops expired
	 * rows (once a minute), and writes the rows back as one string with a new revision. When static data is still
	 * this process's last write and nothing was removed, the changed rows are appended to its string (a later line
	 * of an id merges onto the earlier one when read); the string is rebuilt at twice as many lines as rows.
	 */
	write(
		context: ListenerContext,
		state: IDataObject,
		changes: Array<[string, T | undefined]>,
		now: number,
	) {
		const copy = this.copy(context);
		const previous = state[this.shape.rowsField];
		let append =
			copy.written !== undefined &&
			state[this.shape.revField] === copy.written &&
			typeof previous === 'string';
		const rows = this.rowsToWrite(context, state);
		const appended: string[] = [];
		for (const [id, change] of changes) {
			if (change === undefined) {
				this.delete(copy.memory, id);
				append = append && !rows.byId.has(id);
				this.delete(rows, id);
				continue;
			}
			this.set(copy.memory, id, change);
			if (this.set(rows, id, change)) appended.push(rows.lines.get(id)!);
		}
		if (copy.sweptAt === undefined || now - copy.sweptAt >= 60_000 || now < copy.sweptAt) {
			copy.sweptAt = now;
			for (const [id, row] of copy.memory.byId)
				if (this.shape.expired(row, now)) this.delete(copy.memory, id);
			for (const [id, row] of rows.byId) {
				if (!this.shape.expired(row, now)) continue;
				this.delete(rows, id);
				append = false;
			}
		}
		if (rows.byId.size === 0) {
			delete state[this.shape.rowsField];
			delete state[this.shape.revField];
			copy.stored = undefined;
			copy.written = undefined;
			return;
		}
		if (appended.length === 0 && append) return;
		const lines = (copy.stored?.lines ?? 0) + appended.length;
		const rev = randomUUID();
		if (append && lines <= 2 * rows.byId.size + 64) {
			state[this.shape.rowsField] = `${previous as string}${ROW}${appended.join(ROW)}`;
			copy.stored = { rev, rows, lines };
		} else {
			state[this.shape.rowsField] = [...rows.lines.values()].join(ROW);
			copy.stored = { rev, rows, lines: rows.byId.size };
		}
		state[this.shape.revField] = rev;
		copy.written = rev;
	}
}

function* unpack<T>(shape: TableShape<T>, packed: unknown): Generator<[string, T, string]> {
	if (typeof packed !== 'string' || packed === '') return;
	for (const line of packed.split(ROW)) {
		const [id, ...fields] = line.split(FIELD).map(unescapeField);
		const row = id ? shape.decode(fields, id) : undefined;
		if (row !== undefined) yield [id, row, line];
	}
}

/** The rows exactly as static data holds them, with nothing of any process's memory: for tests and the bench. */
export function readPacked<T>(state: IDataObject, table: AccountTable<T>): Map<string, T> {
	return new Map(
		[...unpack(table.shape, state[table.shape.rowsField])].map(([id, row]) => [id, row]),
	);
}

function cloneRows<T>(rows: Rows<T>): Rows<T> {
	return {
		byId: new Map(rows.byId),
		lines: new Map(rows.lines),
		byKey: new Map([...rows.byKey].map(([key, ids]) => [key, new Set(ids)])),
	};
}

function emptyRows<T>(): Rows<T> {
	return { byId: new Map(), lines: new Map(), byKey: new Map() };
}

/**
 * Writes back, in every table, what this process holds that the loaded static data lacks (another
 * webhook process's save dropped it: docs/design/account-state.md, "Two webhook processes").
 */
export function repairTables(context: ListenerContext, state: IDataObject, now = Date.now()) {
	for (const table of tables) table.repair(context, state, now);
}
