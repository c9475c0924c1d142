/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The results as a Markdown table: one row per measurement, and per setting (settings.ts) three
 * columns side by side: ours, the alternative, and ours ÷ alternative.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

import { round } from './measure';
import type { Setting } from './settings';

export type Cell = string | number;

export interface Row {
	/** The section of `npm run bench` (1 inbound, 2 outbound, 3 CPU and size, 4 sharing, 5 queue mode, 6 conversations; 7 retired). */
	section: number;
	label: string;
	/** [ours, alternative, ratio] by setting key; a measurement without n8n has the first setting's only. */
	bySetting: Record<string, [Cell, Cell, Cell]>;
}

/** a ÷ b, two decimals. */
export const ratio = (a: number, b: number): number => round(a / b, 2);

/** "a / b" of two figures, one decimal each. */
export const pair = (a: number, b: number): string => `${round(a)} / ${round(b)}`;

export function header(settings: Setting[]): string[] {
	const groups = settings.map((s) => `${s.label}: ours | alternative | ours ÷ alternative`);
	return [
		`| # | Measurement | ${groups.join(' | ')} |`,
		`|---|---|${settings.map(() => '---|---|---|').join('')}`,
	];
}

export function render(settings: Setting[], rows: Row[]): string[] {
	const sorted = [...rows].sort((a, b) => a.section - b.section);
	return sorted.map((row) => {
		const cells = settings.flatMap((s) => row.bySetting[s.key] ?? ['', '', '']);
		return `| ${row.section} | ${row.label} | ${cells.join(' | ')} |`;
	});
}

export function dateLine(): string {
	return `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0].model.trim()}, ${round(totalmem() / 2 ** 30, 0)} GiB, n8n 2.41.1 on Node 24 (\`npm run bench\`).`;
}

/**
 * With BENCH_ONLY, the rows of the sections not run this time are taken from the previous
 * results file (marked with the date line they came from), so the file always holds every
 * section and says which figures are from when. Rows are kept only when the previous table has
 * the same columns (the same settings).
 */
export function withRowsNotMeasured(
	file: string,
	table: string[],
	ranSections: Set<number>,
	only: string | undefined,
	/** The sections the bench still has: a kept row of a retired one (7) is dropped. */
	existingSections: Set<number>,
): string[] {
	if (!only || !existsSync(file)) return table;
	const previous = readFileSync(file, 'utf8').split('\n');
	const sameColumns = previous[2] === table[2];
	const sectionOf = (line: string) => Number(line.split('|')[1]);
	// Only the previous run's own table (lines 2 on, up to the first line that is not a row): an
	// older table kept further down the file has other columns.
	const end = previous.findIndex((line, i) => i >= 2 && !line.startsWith('|'));
	const previousTable = previous.slice(0, end < 0 ? previous.length : end);
	const kept = sameColumns
		? previousTable.filter(
				(line) =>
					/^\| \d \|/.test(line) &&
					!ranSections.has(sectionOf(line)) &&
					existingSections.has(sectionOf(line)),
			)
		: [];
	const fresh = table.slice(4);
	const rows = [...kept, ...fresh].sort((a, b) => sectionOf(a) - sectionOf(b));
	// Only the previous run's own date line is quoted, so the header does not nest on every partial run.
	const note = sameColumns
		? `the other rows are kept from the previous run: "${previous[0].replace(/ Sections .*$/, '')}"`
		: 'the previous run had other columns, so its rows are not kept';
	const ran = [...ranSections].sort().join(', ');
	return [
		`${table[0]} Sections ${ran} were measured now (BENCH_ONLY=${only}); ${note}`,
		...table.slice(1, 4),
		...rows,
	];
}
