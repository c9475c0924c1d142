/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/** This package as n8n gets it: built and packed as `npm publish` would ship it, installed like a community package. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { PACKAGE_NAME, repoRoot } from '../repo';
import { cleanEnv, run, say } from './runtime';

/**
 * Builds the package and packs it into `outDir`. Returns the tarball's path. RELAY_PACKAGE_TARBALL
 * names a tarball to install instead: a variant built for a test (scripts/variants.mjs), never a
 * switch in the shipped code.
 */
export function buildAndPack(outDir: string): string {
	const variant = process.env.RELAY_PACKAGE_TARBALL;
	if (variant) {
		say(`installing the variant ${variant} instead of this checkout's build`);
		return variant;
	}
	say('building the package (tsc, gulp build:icons)');
	run('npm', ['run', 'build', '--silent'], {
		cwd: repoRoot,
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', outDir], {
		cwd: repoRoot,
		encoding: 'utf8',
	});
	if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
	const name = readdirSync(outDir).find((f) => f.startsWith(PACKAGE_NAME) && f.endsWith('.tgz'));
	if (!name) throw new Error(`npm pack left no ${PACKAGE_NAME} tarball in ${outDir}`);
	return join(outDir, name);
}

/**
 * Installs the tarball under <userFolder>/.n8n/nodes like n8n's community package installer:
 * no devDependencies, no peer dependencies (n8n-workflow and zod then resolve to n8n's own
 * copies), no scripts.
 */
export function installIntoUserFolder(tarball: string, userFolder: string): string {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	writeFileSync(
		join(nodesDir, 'package.json'),
		JSON.stringify({ name: 'installed-nodes', private: true }),
	);
	say(`installing ${tarball.split('/').pop()} into ${nodesDir}`);
	run(
		'npm',
		[
			'install',
			tarball,
			'--omit=dev',
			'--omit=peer',
			'--ignore-scripts',
			'--no-audit',
			'--no-fund',
			'--loglevel=error',
		],
		{
			cwd: nodesDir,
			env: cleanEnv(),
		},
	);
	return nodesDir;
}
