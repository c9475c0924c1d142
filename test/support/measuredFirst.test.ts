/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Every test file that measures the code a delivery reaches (it imports codeReached.ts) runs first in a
 * worker no other test file has used (measuredFirst.js says why): the sequencer puts each of them ahead
 * of every other file, and there are no more of them than workers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import { repoRoot } from './repo';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest's configuration is CommonJS
const config = require('../../jest.config.js') as { maxWorkers: number; testSequencer: string };
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the sequencer jest loads, as jest loads it
const MeasuredFirst = require('./measuredFirst.js') as new () => {
	sort(tests: object[]): Array<{ path: string }>;
};

function testFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return testFiles(path);
		return entry.name.endsWith('.test.ts') ? [path] : [];
	});
}

test('the files that measure code reached sort first, at most one per worker', () => {
	expect(config.testSequencer).toBe('<rootDir>/test/support/measuredFirst.js');
	const files = testFiles(join(repoRoot, 'test'));
	const measuring = files.filter((file) =>
		/from '[./]*support\/codeReached'/.test(readFileSync(file, 'utf8')),
	);
	expect(measuring.map((file) => relative(repoRoot, file))).toContain(
		'test/nodes/MessagingRelayTrigger/loneDelivery.test.ts',
	);
	expect(measuring.length).toBeLessThanOrEqual(config.maxWorkers);

	// Without a cache of earlier runs jest's own order is by file size, largest first.
	const context = { config: { cache: false }, hasteFS: { getSize: () => 1 } };
	const sorted = new MeasuredFirst().sort(files.map((path) => ({ path, context })));
	expect(
		sorted
			.slice(0, measuring.length)
			.map((t) => t.path)
			.sort(),
	).toEqual([...measuring].sort());
	expect(sorted).toHaveLength(files.length);
});
