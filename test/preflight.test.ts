/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- a test of a script that runs outside n8n */
/**
 * scripts/preflight.cjs, the check `npm test` and `.ci/run` start with (issue 44): on made-up
 * machines, its verdict names what is missing and the command that installs it; on this one, run
 * as `npm test` runs it, it says "ready"; and its lists are the stack's own.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { N8N_VERSIONS } from './support/stack/n8nVersion';
import { cacheRoot, NODE24_VERSION, SUITE_PACKAGES } from './support/stack/runtime';

interface Facts {
	node: string;
	npm?: string;
	engines: { node: string; npm: string };
	root: boolean;
	aptGet: boolean;
	installed: string[];
	cacheRoot: string;
	cached: string[];
	freeBytes?: number;
	loopback: boolean;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain CommonJS, run before `npm ci`
const preflight = require('../scripts/preflight.cjs') as {
	judge(facts: Facts): { problems: string[]; notes: string[] };
	cacheRootOf(env: NodeJS.ProcessEnv): string;
	DEBIAN_PACKAGES: string[];
	CACHE_PARTS: Array<{ folder: string; bytes: number }>;
	WORKING_BYTES: number;
};

const ALL_CACHED = preflight.CACHE_PARTS.map((part) => part.folder);

/** A machine with everything: each test takes something away. */
const ready: Facts = {
	node: 'v20.20.2',
	npm: '11.19.1',
	engines: { node: '>=20.19', npm: '>=11' },
	root: false,
	aptGet: true,
	installed: [...preflight.DEBIAN_PACKAGES],
	cacheRoot: '/home/user/.cache/n8n-nodes-messaging-relay',
	cached: ALL_CACHED,
	freeBytes: 50e9,
	loopback: true,
};

describe('the verdict on a machine', () => {
	test('everything there: no problem, nothing to do', () => {
		expect(preflight.judge(ready)).toEqual({ problems: [], notes: [] });
	});

	test('a user who is not root and lacks Postgres and Redis is told the one command that installs them', () => {
		const { problems } = preflight.judge({ ...ready, installed: ['chromium', 'haproxy'] });
		expect(problems).toEqual([
			"Debian's postgresql redis-server (the suites install them only as root): sudo apt-get install -y --no-install-recommends postgresql redis-server",
		]);
	});

	test('as root the same packages are no problem: the run installs them, and says so', () => {
		const verdict = preflight.judge({ ...ready, root: true, installed: [] });
		expect(verdict.problems).toEqual([]);
		expect(verdict.notes).toEqual([
			"installs Debian's chromium haproxy postgresql redis-server with apt-get (as root)",
		]);
	});

	test('without apt-get, missing packages are a problem even for root', () => {
		const { problems } = preflight.judge({ ...ready, root: true, aptGet: false, installed: [] });
		expect(problems[0]).toMatch(/no apt-get: the suites need Debian or Ubuntu/);
	});

	test('an empty cache needs the measured sizes plus working room, and a smaller disk is told how to fix it', () => {
		const needed =
			preflight.CACHE_PARTS.reduce((sum, part) => sum + part.bytes, 0) + preflight.WORKING_BYTES;
		const enough = preflight.judge({ ...ready, cached: [], freeBytes: needed });
		expect(enough.problems).toEqual([]);
		expect(enough.notes).toEqual([
			'installs Node 24.21.0, n8n 2.41.1, n8n 1.123.81 into /home/user/.cache/n8n-nodes-messaging-relay (4.9 GB)',
		]);
		const short = preflight.judge({ ...ready, cached: [], freeBytes: needed - 1e8 });
		expect(short.problems).toEqual([
			'6.9 GB free where /home/user/.cache/n8n-nodes-messaging-relay is (6.8 GB free): free space there, or set RELAY_N8N_CACHE to a folder on a larger disk.',
		]);
		// Once installed, only the working room is needed.
		expect(preflight.judge({ ...ready, freeBytes: preflight.WORKING_BYTES }).problems).toEqual([]);
	});

	test('an old Node or npm is named with the version it needs', () => {
		const { problems } = preflight.judge({ ...ready, node: 'v20.11.1', npm: '10.2.4' });
		expect(problems).toEqual([
			'Node 20.19 or later (this is v20.11.1): install a newer Node 20 or 22 (https://nodejs.org).',
			'npm 11 or later (this is 10.2.4): npm install -g npm@11',
		]);
	});

	test('every problem is listed at once, not the first only', () => {
		const { problems } = preflight.judge({
			...ready,
			npm: undefined,
			installed: [],
			freeBytes: 1e9,
			cached: [],
			loopback: false,
		});
		expect(problems).toHaveLength(4);
	});
});

describe("the preflight's lists are the stack's", () => {
	test("Debian's packages: the ones the suites install", () => {
		expect(preflight.DEBIAN_PACKAGES).toEqual(SUITE_PACKAGES);
	});

	test('the cache: Node 24 and every n8n version the suites run, in the same folder', () => {
		expect(ALL_CACHED.sort()).toEqual(
			[`node-${NODE24_VERSION}`, ...Object.keys(N8N_VERSIONS).map((v) => `n8n-${v}`)].sort(),
		);
		expect(preflight.cacheRootOf(process.env)).toBe(cacheRoot);
		expect(preflight.cacheRootOf({ RELAY_N8N_CACHE: '/big/disk' })).toBe('/big/disk');
	});
});

describe('run as npm test runs it, on this machine', () => {
	test('it says ready, and with an empty cache says what it will install', () => {
		const emptyCache = mkdtempSync(join(tmpdir(), 'preflight-cache-'));
		try {
			const run = spawnSync(process.execPath, ['scripts/preflight.cjs'], {
				encoding: 'utf8',
				env: { ...process.env, RELAY_N8N_CACHE: emptyCache },
			});
			expect(run.stderr).toBe('');
			expect(run.status).toBe(0);
			expect(run.stdout).toMatch(
				/^\[preflight\] ready; the first run .*installs Node 24\.21\.0, n8n 2\.41\.1, n8n 1\.123\.81 into /,
			);
		} finally {
			rmSync(emptyCache, { recursive: true, force: true });
		}
	});
});
