/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The repository's own files, for tests, scripts and the stack: paths from its root, found by
 * its package.json, so the same code works as TypeScript under jest (test/support/) and compiled
 * into build/ for the scripts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const PACKAGE_NAME = 'n8n-nodes-messaging-relay';

function findRoot(from: string): string {
	for (let dir = from; ; dir = dirname(dir)) {
		const manifest = join(dir, 'package.json');
		if (
			existsSync(manifest) &&
			(JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === PACKAGE_NAME
		)
			return dir;
		if (dirname(dir) === dir) throw new Error(`No package.json of ${PACKAGE_NAME} above ${from}`);
	}
}

export const repoRoot = findRoot(__dirname);

export const repoPath = (...parts: string[]): string => join(repoRoot, ...parts);

export const exists = (...parts: string[]): boolean => existsSync(repoPath(...parts));

export const readText = (...parts: string[]): string => readFileSync(repoPath(...parts), 'utf8');

/** A JSON file of the repository, typed by the caller (untyped by default: tests read known files such as package.json). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const readJson = <T = any>(...parts: string[]): T => JSON.parse(readText(...parts)) as T;
