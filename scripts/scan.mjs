/**
 * n8n's verification scan, offline: the two lint legs `@n8n/scan-community-package` runs on a
 * published package after its provenance check (scanner/scanner.mjs, analyzePackageByName), run here
 * on this checkout and on its `npm pack` tarball, with the scanner's own `analyzePackage` and its
 * own ESLint config (allowInlineConfig: false, so eslint-disable comments do not count).
 *   - source:  analyzePackage(<checkout>, SOURCE_FILE_PATTERNS)
 *   - tarball: analyzePackage(<unpacked tarball>/package, ['**\/*.js', 'package.json'])
 * Fails on any error, printing each finding. Needs a build (`npm run scan` builds first).
 *
 * The scanner is installed once, pinned, into a cache outside the repo (beside the n8n that
 * test/support/stack/runtime.ts installs), never into the project's node_modules: with
 * --ignore-scripts, since a dependency's preinstall runs `npx only-allow pnpm`. Its CLI cannot be
 * used: it downloads the package from the public registry and checks provenance first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SCANNER_VERSION = '0.32.0';
const TARBALL_PATTERNS = ['**/*.js', 'package.json'];

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const cacheRoot =
	process.env.RELAY_N8N_CACHE ??
	join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'n8n-nodes-messaging-relay');

/** This process's environment without npm's npm_config_* (the project's ignore-scripts and the like). */
function cleanEnv() {
	return Object.fromEntries(
		Object.entries(process.env).filter(([name]) => !/^npm_(config|lifecycle|package)_/i.test(name)),
	);
}

function run(command, args, cwd) {
	const result = spawnSync(command, args, {
		cwd,
		env: cleanEnv(),
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	if (result.status !== 0)
		throw new Error(`${command} ${args.join(' ')} failed with exit code ${result.status}`);
	return result.stdout;
}

/** The scanner's scanner.mjs, installed into the cache the first time. */
function ensureScanner() {
	const dir = join(cacheRoot, `scan-community-package-${SCANNER_VERSION}`);
	const entry = join(
		dir,
		'node_modules',
		'@n8n',
		'scan-community-package',
		'scanner',
		'scanner.mjs',
	);
	const done = join(dir, '.installed');
	if (existsSync(done) && existsSync(entry)) return entry;
	console.log(
		`[scan] installing @n8n/scan-community-package@${SCANNER_VERSION} into ${dir} (first time only, about a minute)`,
	);
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true }));
	run(
		'npm',
		[
			'install',
			'--no-audit',
			'--no-fund',
			'--ignore-scripts',
			'--loglevel=error',
			`@n8n/scan-community-package@${SCANNER_VERSION}`,
		],
		dir,
	);
	writeFileSync(done, new Date().toISOString());
	return entry;
}

/** `npm pack`s the checkout and unpacks it; returns the unpacked `package/` folder. */
function packAndUnpack(into) {
	const [{ filename }] = JSON.parse(
		run('npm', ['pack', '--json', '--pack-destination', into], repo),
	);
	run('tar', ['-xzf', join(into, filename), '-C', into], into);
	return join(into, 'package');
}

async function main() {
	if (!existsSync(join(repo, 'dist', 'nodes')))
		throw new Error('No build in dist/: run `npm run scan` (it builds first) or `npm run build`.');
	const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(
		pathToFileURL(ensureScanner()).href
	);
	const work = mkdtempSync(join(tmpdir(), 'relay-scan-'));
	try {
		const legs = [
			{ name: 'source', dir: repo, patterns: SOURCE_FILE_PATTERNS },
			{ name: 'tarball', dir: packAndUnpack(work), patterns: TARBALL_PATTERNS },
		];
		let failed = 0;
		for (const leg of legs) {
			const result = await analyzePackage(leg.dir, leg.patterns);
			console.log(
				`[scan] ${leg.name} (${leg.patterns.join(', ')}): ${result.passed ? 'passed, 0 errors' : `FAILED: ${result.message}`}`,
			);
			if (result.details) console.log(result.details);
			if (!result.passed) failed++;
		}
		if (failed > 0) {
			console.log(
				`[scan] n8n's verification scan (@n8n/scan-community-package ${SCANNER_VERSION}) fails: ${failed} of 2 legs have errors.`,
			);
			process.exitCode = 1;
		}
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

main().catch((error) => {
	console.error(`[scan] ${error.message}`);
	process.exitCode = 1;
});
