/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test of a script): n8n's rules for node code do not apply */
/**
 * A partial bench run (BENCH_ONLY) keeps the rows it did not measure from the previous results,
 * but not the rows of a section the bench no longer has (section 7, retired by issue 43): they
 * would otherwise stay in scripts/bench-results.md as if they were current.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { withRowsNotMeasured } from '../../scripts/bench/table';

const HEAD = [
	'| # | Measurement | as shipped: ours | alternative | ours ÷ alternative |',
	'|---|---|---|---|---|',
];

test("a partial run keeps the other existing sections' rows, and drops a retired section's", () => {
	const dir = mkdtempSync(join(tmpdir(), 'bench-table-'));
	try {
		const file = join(dir, 'results.md');
		writeFileSync(
			file,
			[
				'Measured earlier.',
				'',
				...HEAD,
				'| 1 | inbound | 1 | 1 | 1 |',
				'| 4 | sharing | 4 | 4 | 1 |',
				'| 7 | state | 7 | 7 | 1 |',
				'',
			].join('\n'),
		);
		const table = [
			'Measured now.',
			'',
			...HEAD,
			'| 1 | inbound | 2 | 1 | 2 |',
			'| 3 | cpu | 3 | 1 | 3 |',
		];
		const lines = withRowsNotMeasured(
			file,
			table,
			new Set([1, 3]),
			'inbound',
			new Set([1, 2, 3, 4, 5, 6]),
		);
		expect(lines.filter((line) => /^\| \d \|/.test(line))).toEqual([
			'| 1 | inbound | 2 | 1 | 2 |',
			'| 3 | cpu | 3 | 1 | 3 |',
			'| 4 | sharing | 4 | 4 | 1 |',
		]);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
