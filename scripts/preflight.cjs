/**
 * What `npm test` (and `.ci/run`, before `npm ci`) needs from the machine, checked in its first
 * seconds (issue 44): a test run that stops 40 minutes in for a missing package wastes the user's
 * time. Plain CommonJS with no dependency, so that it runs before `npm ci`.
 *
 *   node scripts/preflight.cjs   # prints one "ready" line, or one message naming what to install and how
 *
 * The facts are gathered here (`gatherFacts`) and judged by a pure function (`judge`), which
 * test/preflight.test.ts runs on made-up machines and, as a child process, on this one.
 */
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync, statfsSync } = require('node:fs');
const { createServer } = require('node:net');
const { homedir } = require('node:os');
const { dirname, join } = require('node:path');

/** Debian's packages the suites use: the same list as SUITE_PACKAGES in test/support/stack/runtime.ts (a test keeps them equal). */
const DEBIAN_PACKAGES = ['chromium', 'haproxy', 'postgresql', 'redis-server'];

/**
 * What the first run puts in the cache (test/support/stack/runtime.ts), and its size on disk as
 * measured (`du -s`, 2026-11-28): a folder already there needs nothing more.
 */
const CACHE_PARTS = [
	{ folder: 'node-24.21.0', what: 'Node 24.21.0', bytes: 0.19e9 },
	{ folder: 'n8n-2.41.1', what: 'n8n 2.41.1', bytes: 2.9e9 },
	{ folder: 'n8n-1.123.81', what: 'n8n 1.123.81', bytes: 1.8e9 },
];

/** Room for what a run writes besides these: npm's download cache, the suites' n8n folders and databases, `.ci/run`'s scanner. */
const WORKING_BYTES = 2e9;

/** The cache folder: the same rule as `cacheRoot` in test/support/stack/runtime.ts (a test keeps them equal). */
function cacheRootOf(env) {
	return (
		env.RELAY_N8N_CACHE ??
		join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'n8n-nodes-messaging-relay')
	);
}

function versionAtLeast(actual, wanted) {
	const a = actual.replace(/^v/, '').split('.').map(Number);
	const w = wanted.replace(/^>=\s*/, '').split('.').map(Number);
	for (let i = 0; i < w.length; i++) {
		if ((a[i] ?? 0) !== w[i]) return (a[i] ?? 0) > w[i];
	}
	return true;
}

const gb = (bytes) => `${(bytes / 1e9).toFixed(1)} GB`;

/**
 * The verdict on a machine's facts: `problems` (each a line saying what is missing and the command
 * that fixes it) and `notes` (what the run will do itself, such as installing packages as root).
 */
function judge(facts) {
	const problems = [];
	const notes = [];
	if (!versionAtLeast(facts.node, facts.engines.node))
		problems.push(
			`Node ${facts.engines.node.replace('>=', '')} or later (this is ${facts.node}): install a newer Node 20 or 22 (https://nodejs.org).`,
		);
	if (!facts.npm || !versionAtLeast(facts.npm, facts.engines.npm))
		problems.push(
			`npm ${facts.engines.npm.replace('>=', '')} or later (this is ${facts.npm ?? 'missing'}): npm install -g npm@11`,
		);

	const missing = DEBIAN_PACKAGES.filter((name) => !facts.installed.includes(name));
	if (missing.length > 0) {
		const list = missing.join(' ');
		if (facts.root && facts.aptGet) notes.push(`installs Debian's ${list} with apt-get (as root)`);
		else if (!facts.aptGet)
			problems.push(
				`Debian's ${list}, and this machine has no apt-get: the suites need Debian or Ubuntu (or those programs at Debian's paths).`,
			);
		else
			problems.push(
				`Debian's ${list} (the suites install them only as root): sudo apt-get install -y --no-install-recommends ${list}`,
			);
	}

	const toInstall = CACHE_PARTS.filter((part) => !facts.cached.includes(part.folder));
	const needed = toInstall.reduce((sum, part) => sum + part.bytes, 0) + WORKING_BYTES;
	if (toInstall.length > 0)
		notes.push(
			`installs ${toInstall.map((part) => part.what).join(', ')} into ${facts.cacheRoot} (${gb(needed - WORKING_BYTES)})`,
		);
	if (facts.freeBytes !== undefined && facts.freeBytes < needed)
		problems.push(
			`${gb(needed)} free where ${facts.cacheRoot} is (${gb(facts.freeBytes)} free): free space there, or set RELAY_N8N_CACHE to a folder on a larger disk.`,
		);

	if (!facts.loopback)
		problems.push(
			'a port on 127.0.0.1 (the suites start n8n, the simulator and a balancer on free loopback ports): allow loopback connections.',
		);
	return { problems, notes };
}

function commandOutput(command, args) {
	const result = spawnSync(command, args, { encoding: 'utf8' });
	return result.status === 0 ? result.stdout.trim() : undefined;
}

function installedPackages() {
	const listed = spawnSync(
		'dpkg-query',
		['--show', '--showformat=${Package} ${Status}\\n', ...DEBIAN_PACKAGES],
		{ encoding: 'utf8' },
	);
	return (listed.stdout ?? '')
		.split('\n')
		.filter((line) => line.endsWith(' install ok installed'))
		.map((line) => line.split(' ')[0]);
}

/** Free bytes on the file system of `path`, or of its nearest existing parent. */
function freeBytesAt(path) {
	let dir = path;
	while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
	try {
		const stats = statfsSync(dir);
		return stats.bavail * stats.bsize;
	} catch {
		return undefined;
	}
}

function loopbackWorks() {
	return new Promise((resolve) => {
		const server = createServer();
		server.once('error', () => resolve(false));
		server.listen(0, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

async function gatherFacts(env = process.env) {
	const manifest = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));
	const cacheRoot = cacheRootOf(env);
	return {
		node: process.version,
		npm: commandOutput('npm', ['--version']),
		engines: manifest.engines,
		root: typeof process.getuid === 'function' && process.getuid() === 0,
		aptGet: spawnSync('sh', ['-c', 'command -v apt-get']).status === 0,
		installed: installedPackages(),
		cacheRoot,
		cached: CACHE_PARTS.map((part) => part.folder).filter((folder) =>
			existsSync(join(cacheRoot, folder)),
		),
		freeBytes: freeBytesAt(cacheRoot),
		loopback: await loopbackWorks(),
	};
}

async function main() {
	const { problems, notes } = judge(await gatherFacts());
	if (problems.length > 0) {
		process.stderr.write(
			[
				'The tests cannot run on this machine yet. They need:',
				...problems.map((problem) => `  - ${problem}`),
				'Then run the command again. (Checked by scripts/preflight.cjs; CONTRIBUTING.md, "Commands".)',
				'',
			].join('\n'),
		);
		process.exitCode = 1;
		return;
	}
	process.stdout.write(
		`[preflight] ready${notes.length ? `; the first run ${notes.join('; ')}` : ''}\n`,
	);
}

module.exports = { judge, gatherFacts, cacheRootOf, DEBIAN_PACKAGES, CACHE_PARTS, WORKING_BYTES };

if (require.main === module) void main();
