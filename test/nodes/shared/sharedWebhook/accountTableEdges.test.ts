/* eslint-disable @typescript-eslint/no-require-imports, @n8n/community-nodes/no-restricted-globals -- outside n8n (a test): a module instance per process, timers to let a save watch settle */
/**
 * Rules of accountTable.ts that its measure of 2026-11-29 (issue 42) found without a test, each a mutant
 * of that measure that a test here kills (CONTRIBUTING, "Mutants left alive"): one table unsaved is enough
 * to write again; a write made after its request's save stays unsaved; a request that wrote no table keeps
 * its other save watches; the confirm answers only for the static data the request loaded; a fresh process
 * reads the rows of static data an earlier version wrote.
 */
import type { IDataObject } from 'n8n-workflow';

import type * as SaveModuleType from '../../../../nodes/shared/n8n/staticDataSave';
import type * as TableModule from '../../../../nodes/shared/sharedWebhook/accountTable';

type Module = typeof TableModule;
type SaveModule = typeof SaveModuleType;

const mockShared: { n8n?: unknown } = {};
jest.mock('n8n-workflow', () => (mockShared.n8n ??= jest.requireActual('n8n-workflow')));

function processOf(): Module {
	let module!: Module;
	jest.isolateModules(() => {
		module = require('../../../../nodes/shared/sharedWebhook/accountTable') as Module;
	});
	return module;
}

/** A table of plain rows that end at `until` (the waits and the pauses are two such tables). */
function tableIn(module: Module, name: string) {
	return new module.AccountTable<{ until: number }>({
		rowsField: `${name}Rows`,
		revField: `${name}Rev`,
		encode: (row) => [module.packNumber(row.until)],
		decode: (fields) => {
			const until = module.unpackNumber(fields[0] ?? '');
			return Number.isNaN(until) ? undefined : { until };
		},
		merge: (a, b) => ({ until: Math.max(a.until, b.until) }),
		expired: (row, now) => row.until <= now,
	});
}

const T = 1_800_000_000_000;
const HOUR = 3_600_000;

/** A request n8n will save: `saved()` is n8n clearing the changed flag after its save. */
function request() {
	const staticData: IDataObject & { __dataChanged?: boolean } = { __dataChanged: true };
	const context = {
		getWorkflow: () => ({ id: 'wf-edges' }),
		getNode: () => ({ name: 'Messaging Relay Trigger' }),
		getMode: () => 'webhook',
		logger: { warn: () => undefined, debug: () => undefined },
		getResponseObject: () => ({}),
		workflow: { staticData },
	};
	return { context, saved: () => (staticData.__dataChanged = false) };
}

const settle = async () => {
	for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
	await new Promise((resolve) => setTimeout(resolve, 60));
};

describe("n8n's save of what a request wrote", () => {
	test('one table unsaved is enough: the process has something to write again while the other is saved', async () => {
		const m = processOf();
		const waits = tableIn(m, 'wait');
		const pauses = tableIn(m, 'pause');
		const first = request();
		const state: IDataObject = {};
		waits.write(first.context, state, [['w', { until: T + HOUR }]], T);
		pauses.write(first.context, state, [['p', { until: T + HOUR }]], T);
		first.saved();
		await settle();
		expect(m.tablesUnsaved(first.context)).toBe(false);
		// The next request writes the waits alone: until n8n saves it, the waits are unsaved, the pauses not.
		const second = request();
		waits.write(second.context, state, [['w2', { until: T + HOUR }]], T + 1);
		expect(pauses.isUnsaved(second.context)).toBe(false);
		expect(waits.isUnsaved(second.context)).toBe(true);
		expect(m.tablesUnsaved(second.context)).toBe(true);
	});

	test('a write made after its request was saved stays unsaved once that save has settled', async () => {
		const m = processOf();
		const table = tableIn(m, 'wait');
		const { context, saved } = request();
		const state: IDataObject = {};
		table.write(context, state, [['a', { until: T + HOUR }]], T);
		saved();
		await settle();
		expect(table.isUnsaved(context)).toBe(false);
		// An answer's mark, written once n8n saved its request: no save of this request carries it.
		table.write(context, state, [['a', { until: T + 2 * HOUR }]], T + 5);
		await settle();
		expect(table.isUnsaved(context)).toBe(true);
		expect(m.tablesUnsaved(context)).toBe(true);
	});

	test('a request that wrote no table keeps its own save watch when it starts a run', async () => {
		let m!: Module;
		let saves!: SaveModule;
		jest.isolateModules(() => {
			m = require('../../../../nodes/shared/sharedWebhook/accountTable') as Module;
			saves = require('../../../../nodes/shared/n8n/staticDataSave') as SaveModule;
		});
		const { context, saved } = request();
		const watch = saves.watchSave(context as never);
		m.tablesNotSaved(context);
		saved();
		expect(await watch.saved).toBe(true);
	});
});

describe("Send and Wait's confirm: whether the static data a request loaded holds a row", () => {
	const { context } = request();
	/** Static data another process saved: these rows, this revision (time, writer `q`, counter). */
	const savedBy = (m: Module, at: number, rows: Record<string, number>, counter: number) => ({
		waitRows: Object.entries(rows)
			.map(([id, until]) => `${id} ${m.packNumber(until)}`)
			.join(';'),
		waitRev: `${at.toString(36)}.q.${counter.toString(36)}`,
	});

	test('an older revision of another process, loaded after a newer one: only what it holds', () => {
		const m = processOf();
		const table = tableIn(m, 'wait');
		// The newer revision holds w; this process took it over.
		expect(table.get(context, savedBy(m, T + 1_000, { w: T + HOUR }, 2), 'w')).toEqual({
			until: T + HOUR,
		});
		// A request that loaded before that save: its static data does not hold w.
		const older = savedBy(m, T, { x: T + HOUR }, 1);
		expect(table.storedHolds(context, older, 'w', { until: T + HOUR })).toBe(false);
	});

	test("one of this process's revisions from before it took another's over does not hold the rows taken over", () => {
		const m = processOf();
		const table = tableIn(m, 'wait');
		const own: IDataObject = {};
		table.write(context, own, [['x', { until: T + HOUR }]], T);
		const before = JSON.parse(JSON.stringify(own)) as IDataObject;
		// Another process's newer revision, with w, replaces the view.
		expect(table.get(context, savedBy(m, T + 1_000, { w: T + HOUR }, 1), 'w')).toEqual({
			until: T + HOUR,
		});
		expect(table.storedHolds(context, before, 'w', { until: T + HOUR })).toBe(false);
		// The first own revision after it holds w.
		const after = savedBy(m, T + 1_000, { w: T + HOUR }, 1);
		table.write(context, after, [['y', { until: T + HOUR }]], T + 2_000);
		expect(table.storedHolds(context, after, 'w', { until: T + HOUR })).toBe(true);
		expect(table.storedHolds(context, before, 'w', { until: T + HOUR })).toBe(false);
	});
});

test('a fresh process reads the rows of static data an earlier version wrote (a revision with no time or counter)', () => {
	const m = processOf();
	const table = tableIn(m, 'wait');
	const { context } = request();
	const earlier = {
		waitRows: `w ${m.packNumber(T + HOUR)}`,
		waitRev: '3f2a9c1e-77b0-4c53-9a60-2c1e0f4d5b6a',
	};
	expect(table.get(context, earlier, 'w')).toEqual({ until: T + HOUR });
});
