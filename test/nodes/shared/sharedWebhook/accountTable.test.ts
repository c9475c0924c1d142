/* eslint-disable @typescript-eslint/no-require-imports, @n8n/community-nodes/no-restricted-globals -- outside n8n (a test): a module instance per process (processOf), timers to let a save watch settle */
/**
 * AccountTable (accountTable.ts) on its own, with a plain table of rows, so that each rule of the
 * view, the revisions, the write-back and the save watch is seen through the class's own methods:
 * the model test (accountStateModel.test.ts) drives it through the waits and the pauses, and these
 * pin the edges its walks do not reach (found by StrykerJS, issue 42). A process is a module
 * instance of its own (jest.isolateModules); static data is built by hand where a test needs a
 * revision of a given time, writer or form.
 */
import type { IDataObject } from 'n8n-workflow';

import type * as TableModule from '../../../../nodes/shared/sharedWebhook/accountTable';

type Module = typeof TableModule;
interface Row {
	until: number;
	key?: string;
	tag?: string;
}

/** One n8n-workflow for every process: loading it per isolated registry costs a tenth of a second. */
const mockShared: { n8n?: unknown } = {};
jest.mock('n8n-workflow', () => (mockShared.n8n ??= jest.requireActual('n8n-workflow')));

/** A fresh process: the module (and its memory, its bad-row log, its tables) loaded anew. */
function processOf(): Module {
	let module!: Module;
	jest.isolateModules(() => {
		module = require('../../../../nodes/shared/sharedWebhook/accountTable') as Module;
	});
	return module;
}

/** A table like the waits: rows end at `until`, found by `key` when it has one; merge is a join. */
function tableIn(module: Module, indexed = true) {
	const shape: TableModule.TableShape<Row> = {
		rowsField: 'rows',
		revField: 'rowsRev',
		encode: (row) => [module.packNumber(row.until), row.key ?? '-', row.tag ?? '-'],
		decode: (fields) => {
			if (fields.length !== 3) return undefined;
			const until = module.unpackNumber(fields[0]);
			if (Number.isNaN(until)) return undefined;
			return {
				until,
				...(fields[1] === '-' ? {} : { key: fields[1] }),
				...(fields[2] === '-' ? {} : { tag: fields[2] }),
			};
		},
		merge: (a, b) => ({
			until: Math.max(a.until, b.until),
			...((a.key ?? b.key) ? { key: a.key ?? b.key } : {}),
			...((a.tag ?? '') > (b.tag ?? '') ? { tag: a.tag } : b.tag ? { tag: b.tag } : {}),
		}),
		expired: (row, now) => row.until <= now,
		...(indexed ? { indexKeys: (row: Row) => (row.key ? [row.key] : []) } : {}),
	};
	return new module.AccountTable<Row>(shape);
}

const T = 1_800_000_000_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A request context of one listener, with n8n's logger; `saves` adds what watchSave reads. */
function contextOf(saves?: { staticData: IDataObject & { __dataChanged?: boolean } }) {
	const warned: Array<[string, IDataObject | undefined]> = [];
	const debug: string[] = [];
	const context = {
		getWorkflow: () => ({ id: 'wf-1' }),
		getNode: () => ({ name: 'Messaging Relay Trigger' }),
		getMode: () => 'webhook',
		logger: {
			warn: (message: string, meta?: IDataObject) => warned.push([message, meta]),
			debug: (message: string) => debug.push(message),
		},
		...(saves ? { getResponseObject: () => ({}), workflow: saves } : {}),
	};
	return { context, warned, debug };
}

/** A revision as accountTable.ts writes one: time, writer, counter. */
const revision = (at: number, writer: string, counter: number) =>
	`${at.toString(36)}.${writer}.${counter.toString(36)}`;
const line = (m: Module, id: string, row: Row) =>
	[id, m.packNumber(row.until), row.key ?? '-', row.tag ?? '-'].join(' ');
/** Static data another process saved: these rows, this revision. */
const savedBy = (
	m: Module,
	at: number,
	rows: Record<string, Row>,
	writer = 'other',
	counter = 1,
) => ({
	rows: Object.entries(rows)
		.map(([id, row]) => line(m, id, row))
		.join(';'),
	rowsRev: revision(at, writer, counter),
});
const copyOf = (state: IDataObject): IDataObject =>
	JSON.parse(JSON.stringify(state)) as IDataObject;
const timeOf = (rev: unknown) => parseInt(String(rev).split('.')[0], 36);

describe('the packed form', () => {
	test('escapes with upper-case hex, and reads numbers only in their packed form', () => {
		const m = processOf();
		expect(m.escapeField('a b;c%\n"\\')).toBe('a%20b%3Bc%25%0A%22%5C');
		expect(m.unpackNumber('a')).toBe(10);
		expect(m.unpackNumber(' a')).toBeNaN();
		expect(m.unpackNumber('_1.5')).toBe(1.5);
	});

	test('a time after a base is its distance whenever that distance is exact', () => {
		const m = processOf();
		expect(m.packAfter(2 ** 52, 2 ** 52 + 1)).toBe('1');
		expect(m.unpackAfter(2 ** 52, '1')).toBe(2 ** 52 + 1);
		expect(m.packAfter(0.5, 3)).toBe('=3');
	});
});

describe('revisions of an earlier version are older than any of ours', () => {
	test.each([
		['a UUID, no dots', '3f2a9c1e-77b0-4c53-9a60-2c1e0f4d5b6a'],
		['no counter', `${T.toString(36)}.other`],
		['no time', '.other.1'],
	])('%s: its rows are not taken over the rows this process wrote', (_name, rev) => {
		const m = processOf();
		const table = tableIn(m);
		const { context, debug } = contextOf();
		const state: IDataObject = {};
		table.write(context, state, [['mine', { until: T + HOUR }]], T);
		const older = { rows: line(m, 'old', { until: T + HOUR }), rowsRev: rev };
		expect(table.get(context, older, 'mine')).toEqual({ until: T + HOUR });
		expect(table.get(context, older, 'old')).toBeUndefined();
		expect(debug.join('\n')).toContain('(an older revision)');
	});
});

describe('the view', () => {
	test('is empty only with nothing held and nothing loaded', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		expect(table.isEmpty(context, {})).toBe(true);
		expect(table.isEmpty(context, { rows: '' })).toBe(true);
		expect(table.isEmpty(context, { rows: line(m, 'x', { until: T + HOUR }) })).toBe(false);
		table.write(context, {}, [['x', { until: T + HOUR }]], T);
		expect(table.isEmpty(context, {})).toBe(false);
	});

	test('a key shared by two rows still finds the other when one of them changes', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		const state: IDataObject = {};
		table.write(context, state, [['a', { until: T + HOUR, key: 'chat' }]], T);
		table.write(context, state, [['b', { until: T + HOUR, key: 'chat' }]], T + 1);
		expect([...table.withKey(context, state, ['chat']).keys()].sort()).toEqual(['a', 'b']);
		// 'a' changes (re-indexed under its key): 'b' is still found by it.
		table.write(context, state, [['a', { until: T + HOUR, key: 'chat', tag: 'x' }]], T + 2);
		expect([...table.withKey(context, state, ['chat']).keys()].sort()).toEqual(['a', 'b']);
	});

	test('a table with no index finds nothing by any key', () => {
		const m = processOf();
		const table = tableIn(m, false);
		const { context } = contextOf();
		const state: IDataObject = {};
		table.write(context, state, [['a', { until: T + HOUR, key: 'chat' }]], T);
		expect(table.withKey(context, state, ['chat', 'Stryker was here']).size).toBe(0);
	});

	test('an empty or missing string of rows reads as no rows, with no bad row reported', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context, warned } = contextOf();
		expect([...table.all(context, { rows: '', rowsRev: revision(T, 'other', 1) })]).toEqual([]);
		expect([...table.all(context, { rows: 7, rowsRev: revision(T + 1, 'other', 2) })]).toEqual([]);
		expect(warned).toEqual([]);
		expect(m.readPacked({ rows: '' }, table).size).toBe(0);
	});
});

describe('a bad row', () => {
	test('is skipped and reported once per row, naming its table, with the row cut to 80 characters', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context, warned } = contextOf();
		const bad = `x ${'%'.repeat(90)}`;
		const good = line(m, 'ok', { until: T + HOUR });
		expect(
			table.get(context, { rows: `${bad};${good}`, rowsRev: revision(T, 'o', 1) }, 'ok'),
		).toEqual({ until: T + HOUR });
		table.get(context, { rows: `${good};${bad}`, rowsRev: revision(T + 1, 'o', 2) }, 'ok');
		table.get(context, { rows: `${good};y 1 2`, rowsRev: revision(T + 2, 'o', 3) }, 'ok');
		expect(warned.map(([, meta]) => meta)).toEqual([
			{ field: 'rows', row: bad.slice(0, 80) },
			{ field: 'rows', row: 'y 1 2' },
		]);
		expect(warned[0][0]).toBe(
			"Messaging Relay Trigger: a row of its rows in the workflow's static data could not be read and is skipped; it is dropped at the next change. If a run waits for a reply that does not arrive, run it again.",
		);
	});

	test('a flood is reported for its first 100 rows, then no more', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context, warned } = contextOf();
		const bads = (from: number, n: number) =>
			Array.from({ length: n }, (_, i) => `bad${from + i} x`).join(';');
		table.all(context, { rows: bads(0, 99), rowsRev: revision(T, 'o', 1) }).next();
		expect(warned).toHaveLength(99);
		table.all(context, { rows: bads(99, 1), rowsRev: revision(T + 1, 'o', 2) }).next();
		expect(warned).toHaveLength(100);
		table.all(context, { rows: bads(100, 5), rowsRev: revision(T + 2, 'o', 3) }).next();
		expect(warned).toHaveLength(100);
	});
});

describe("another process's revisions", () => {
	test('a revision saved before the newest one this process knows is joined in, within ten minutes', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		const newest = savedBy(m, T + 5 * MINUTE, { n: { until: T + HOUR } }, 'q', 2);
		expect(table.get(context, newest, 'n')).toEqual({ until: T + HOUR });
		// A request of another process that loaded before that save, saving now: joined, not taken.
		const before = savedBy(m, T, { o: { until: T + HOUR } }, 'r', 1);
		expect(table.get(context, before, 'o')).toEqual({ until: T + HOUR });
		expect(table.get(context, before, 'n')).toEqual({ until: T + HOUR });
		// Written next, the joined row is in the string (the view was not only appended to).
		const state = copyOf(newest);
		table.write(context, state, [['w', { until: T + HOUR }]], T + 6 * MINUTE);
		expect([...m.readPacked(state, table).keys()].sort()).toEqual(['n', 'o', 'w']);
		// Older than ten minutes before the newest: ignored.
		const stale = savedBy(m, T + 6 * MINUTE - 10 * MINUTE - 1, { s: { until: T + HOUR } }, 's');
		expect(table.get(context, stale, 's')).toBeUndefined();
		const edge = savedBy(m, T + 6 * MINUTE - 10 * MINUTE, { e: { until: T + HOUR } }, 'e');
		expect(table.get(context, edge, 'e')).toEqual({ until: T + HOUR });
	});

	test('a revision of the same time as this process newest is taken over, not joined', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context, debug } = contextOf();
		const state: IDataObject = {};
		table.write(context, state, [['mine', { until: T + HOUR }]], T);
		// Another process saved at the same millisecond, without this process's row.
		const same = savedBy(m, T, { theirs: { until: T + HOUR } }, 'q', 1);
		expect(table.get(context, same, 'theirs')).toEqual({ until: T + HOUR });
		expect(table.get(context, same, 'mine')).toEqual({ until: T + HOUR });
		expect(debug).toEqual([
			"Messaging Relay: static data this request loaded lacks rows this process wrote (another process's revision without 1 row(s)); written again",
		]);
	});

	test('a newer revision that holds every row this process wrote is nothing to write back', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context, debug } = contextOf();
		const state: IDataObject = {};
		table.write(context, state, [['mine', { until: T + HOUR }]], T);
		const newer = savedBy(m, T + 1, { mine: { until: T + HOUR } }, 'q', 1);
		expect(table.repair(context, copyOf(newer), T + 2)).toBe(false);
		expect(debug).toEqual([]);
	});

	test('a process that only read is never behind: an older revision it reads is no lost write', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context, debug } = contextOf();
		table.get(context, savedBy(m, T + MINUTE, { a: { until: T + HOUR } }, 'q', 2), 'a');
		expect(table.repair(context, savedBy(m, T, { a: { until: T + HOUR } }, 'q', 1), T)).toBe(false);
		expect(debug).toEqual([]);
	});
});

describe('what this process wrote comes back', () => {
	test('when static data lost its revision, for ten minutes after the write', () => {
		for (const [after, writesBack] of [
			[10 * MINUTE, true],
			[10 * MINUTE + 1, false],
		] as const) {
			const m = processOf();
			const table = tableIn(m);
			const { context } = contextOf();
			table.write(context, {}, [['mine', { until: T + HOUR }]], T);
			const dropped: IDataObject = {};
			expect(table.repair(context, dropped, T + after)).toBe(writesBack);
			expect(m.readPacked(dropped, table).has('mine')).toBe(writesBack);
		}
	});

	test('from a newer revision without it, up to ten minutes after the write, not after', () => {
		for (const [after, writesBack] of [
			[10 * MINUTE, true],
			[10 * MINUTE + 1, false],
		] as const) {
			const m = processOf();
			const table = tableIn(m);
			const { context } = contextOf();
			table.write(context, {}, [['mine', { until: T + 2 * HOUR }]], T);
			const newer = savedBy(m, T + after, { theirs: { until: T + 2 * HOUR } }, 'q', 1);
			expect(table.repair(context, newer, T + after)).toBe(writesBack);
			expect(m.readPacked(newer, table).has('mine')).toBe(writesBack);
		}
	});

	test('through repairTables, for every table of the process', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		table.write(context, {}, [['mine', { until: T + HOUR }]], T);
		const lost = savedBy(m, T + 1, {}, 'q', 1);
		m.repairTables(context, lost, T + 2);
		expect(m.readPacked(lost, table).has('mine')).toBe(true);
	});

	test('but not a row that expired since, once swept', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		const state: IDataObject = {};
		table.write(context, state, [['short', { until: T + MINUTE }]], T);
		// Two minutes later a write sweeps: the row is gone from the view and from what comes back.
		table.write(context, state, [['other', { until: T + HOUR }]], T + 2 * MINUTE);
		expect(m.readPacked(state, table).has('short')).toBe(false);
		const newer = savedBy(m, T + 3 * MINUTE, { other: { until: T + HOUR } }, 'q', 1);
		expect(table.repair(context, newer, T + 3 * MINUTE)).toBe(false);
		expect(m.readPacked(newer, table).has('short')).toBe(false);
	});
});

describe('a write', () => {
	test('writes nothing when nothing changed and static data holds the view', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		const state: IDataObject = {};
		expect(table.write(context, state, [['a', { until: T + HOUR }]], T)).toBe(1);
		const rev = state.rowsRev;
		expect(table.write(context, state, [], T + 1)).toBe(1);
		expect(table.write(context, state, [['a', { until: T + HOUR }]], T + 2)).toBe(1);
		expect(state.rowsRev).toBe(rev);
	});

	test('writes a revision into static data that has none, even with nothing new', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		table.get(context, savedBy(m, T, { a: { until: T + HOUR } }, 'q', 1), 'a');
		const bare: IDataObject = { rows: line(m, 'a', { until: T + HOUR }) };
		table.write(context, bare, [], T + 1);
		expect(bare.rowsRev).toBeDefined();
	});

	test('drops expired rows once a minute, and writes their removal', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		const state: IDataObject = {};
		table.write(context, state, [['a', { until: T + 30_000 }]], T);
		table.write(context, state, [['b', { until: T + HOUR }]], T + 40_000);
		// Swept at T only: 'a' expired at T + 30 s and is still written until the next sweep.
		expect(m.readPacked(state, table).has('a')).toBe(true);
		table.write(context, state, [], T + MINUTE);
		expect(m.readPacked(state, table).has('a')).toBe(false);
		const rev = state.rowsRev;
		table.write(context, state, [['c', { until: T + 90_000 }]], T + MINUTE + 1);
		table.write(context, state, [], T + 2 * MINUTE + 1);
		expect(m.readPacked(state, table).has('c')).toBe(false);
		expect(state.rowsRev).not.toBe(rev);
	});

	test("each revision's time is later than the last, whatever the clock says", () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		const state: IDataObject = {};
		table.write(context, state, [['a', { until: T + HOUR }]], T);
		const first = timeOf(state.rowsRev);
		table.write(context, state, [['b', { until: T + HOUR }]], T);
		expect(timeOf(state.rowsRev)).toBe(first + 1);
		table.write(context, state, [['c', { until: T + HOUR }]], T - MINUTE);
		expect(timeOf(state.rowsRev)).toBe(first + 2);
	});
});

describe("Send and Wait's confirm (storedHolds)", () => {
	test("in another process's revision: held exactly when that revision holds the row's form", () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		const row = { until: T + HOUR, tag: 'asked' };
		const holds = savedBy(m, T, { w: row }, 'q', 1);
		expect(table.storedHolds(context, holds, 'w', row)).toBe(true);
		expect(table.storedHolds(context, holds, 'w', { until: T + HOUR })).toBe(true);
		const older = savedBy(m, T + 1, { w: { until: T + HOUR } }, 'q', 2);
		expect(table.storedHolds(context, older, 'w', row)).toBe(false);
		const without = savedBy(m, T + 2, {}, 'q', 3);
		expect(table.storedHolds(context, without, 'w', row)).toBe(false);
		expect(table.storedHolds(context, {}, 'w', row)).toBe(false);
	});

	test('in one of its own revisions: held from the revision that first carried that form', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		const first: IDataObject = {};
		table.write(context, first, [['w', { until: T + HOUR }]], T);
		const second = copyOf(first);
		table.write(context, second, [['w', { until: T + HOUR, tag: 'asked' }]], T + 1);
		const asked = { until: T + HOUR, tag: 'asked' };
		expect(table.storedHolds(context, copyOf(second), 'w', asked)).toBe(true);
		expect(table.storedHolds(context, copyOf(first), 'w', asked)).toBe(false);
		expect(table.storedHolds(context, copyOf(second), 'x', asked)).toBe(false);
	});

	test("a row taken from another process's revision is held by every own revision after it", () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		const row = { until: T + HOUR };
		const theirs = savedBy(m, T, { w: row }, 'q', 1);
		expect(table.get(context, theirs, 'w')).toEqual(row);
		const mine = copyOf(theirs);
		table.write(context, mine, [['other', { until: T + HOUR }]], T + 1);
		expect(table.storedHolds(context, copyOf(mine), 'w', row)).toBe(true);
	});
});

describe("n8n's save of what a request wrote", () => {
	/** A request n8n will save: `saved()` is n8n clearing the changed flag after its save. */
	function request() {
		const staticData: IDataObject & { __dataChanged?: boolean } = { __dataChanged: true };
		const { context } = contextOf({ staticData });
		return { context, saved: () => (staticData.__dataChanged = false) };
	}
	const settle = async () => {
		for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
		await new Promise((resolve) => setTimeout(resolve, 60));
	};

	test('is unsaved until n8n saves it, then saved', async () => {
		const m = processOf();
		const table = tableIn(m);
		const { context, saved } = request();
		table.write(context, {}, [['a', { until: T + HOUR }]], T);
		expect(m.tablesUnsaved(context)).toBe(true);
		saved();
		await settle();
		expect(m.tablesUnsaved(context)).toBe(false);
		expect(table.isUnsaved(context)).toBe(false);
	});

	test('a request that starts a run is not saved: the next request writes the view again', async () => {
		const m = processOf();
		const table = tableIn(m);
		const { context, saved } = request();
		const state: IDataObject = {};
		table.write(context, state, [['a', { until: T + HOUR }]], T);
		m.tablesNotSaved(context);
		saved();
		await settle();
		expect(m.tablesUnsaved(context)).toBe(true);
		const rev = state.rowsRev;
		expect(table.repair(context, state, T + 1)).toBe(true);
		expect(state.rowsRev).not.toBe(rev);
	});

	test('a request that wrote no table is not marked by a run it starts', async () => {
		const m = processOf();
		const table = tableIn(m);
		const writer = request();
		table.write(writer.context, {}, [['a', { until: T + HOUR }]], T);
		writer.saved();
		await settle();
		const other = request();
		m.tablesNotSaved(other.context);
		other.saved();
		await settle();
		expect(m.tablesUnsaved(other.context)).toBe(false);
	});

	test('a later write makes an earlier save not the view', async () => {
		const m = processOf();
		const table = tableIn(m);
		const first = request();
		table.write(first.context, {}, [['a', { until: T + HOUR }]], T);
		const second = request();
		table.write(second.context, {}, [['b', { until: T + HOUR }]], T + 1);
		first.saved();
		await settle();
		expect(table.isUnsaved(first.context)).toBe(true);
		second.saved();
		await settle();
		expect(table.isUnsaved(first.context)).toBe(false);
	});

	test('a save n8n failed, or one that was reported failed, leaves the view to write again', async () => {
		const m = processOf();
		const table = tableIn(m);
		const { context, saved } = request();
		table.write(context, {}, [['a', { until: T + HOUR }]], T);
		saved();
		await settle();
		expect(m.tablesUnsaved(context)).toBe(false);
		m.tablesSaveFailed(context);
		expect(m.tablesUnsaved(context)).toBe(true);
		expect(table.isUnsaved(contextOf().context)).toBe(true);
	});

	test('a write after its request was saved is carried by the next request of the process that runs repair after it', async () => {
		const m = processOf();
		const table = tableIn(m);
		const first = request();
		const state: IDataObject = {};
		table.write(first.context, state, [['a', { until: T + HOUR }]], T);
		first.saved();
		await settle();
		// An answer's mark, written once n8n saved its request: no save carries it.
		table.write(first.context, state, [['a', { until: T + 2 * HOUR }]], T + 5);
		expect(m.tablesUnsaved(first.context, T + 5)).toBe(true);
		// A repair in the same millisecond may have run before the mark; one later writes it again.
		const next = request();
		m.repairTables(next.context, copyOf(state), T + 5);
		expect(m.tablesUnsaved(first.context, T + 5)).toBe(true);
		const rev = state.rowsRev;
		const loaded = copyOf(state);
		m.repairTables(next.context, loaded, T + 6);
		expect(m.tablesUnsaved(first.context, T + 5)).toBe(false);
		expect(loaded.rowsRev).not.toBe(rev);
		expect(table.storedHolds(next.context, loaded, 'a', { until: T + 2 * HOUR })).toBe(true);
		// Without a time of writing: whether the table itself is unsaved, as before.
		expect(m.tablesUnsaved(first.context)).toBe(true);
	});

	test('a listener whose saves cannot be seen takes each write as saved', () => {
		const m = processOf();
		const table = tableIn(m);
		const { context } = contextOf();
		table.write(context, {}, [['a', { until: T + HOUR }]], T);
		expect(m.tablesUnsaved(context)).toBe(false);
	});
});
