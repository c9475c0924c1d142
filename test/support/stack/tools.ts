/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The programs the stack starts as processes of their own (the relay simulator, the queue
 * stack's reaper) are TypeScript, compiled with the scripts into build/ by tsconfig.tools.json.
 * The scripts run compiled already (`npm start`, `npm run bench`: their npm scripts compile
 * first); under jest this support runs as TypeScript, so the first call compiles (tsc,
 * incremental: a few seconds when nothing changed).
 */
import { repoPath } from '../repo';
import { run, say } from './runtime';

let compiled = __filename.endsWith('.js');

/** The compiled JavaScript of a source file of the repository (path from its root, e.g. test/simulator/main.ts). */
export function compiledProgram(sourcePath: string): string {
	if (!compiled) {
		say('compiling the test support and scripts into build/ (tsconfig.tools.json)');
		run(process.execPath, [
			require.resolve('typescript/bin/tsc'),
			'-p',
			repoPath('tsconfig.tools.json'),
		]);
		compiled = true;
	}
	return repoPath('build', sourcePath.replace(/\.ts$/, '.js'));
}
