/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Which of the package's source files run while `act` runs: V8's precise coverage (the inspector's
 * Profiler domain, in this process), counted per file under nodes/ and credentials/. A file counts
 * when one of its functions is called at least once during `act` (not when it is only loaded).
 */
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { repoRoot } from './repo';

interface FunctionCoverage {
	functionName: string;
	ranges: Array<{ startOffset: number; endOffset: number; count: number }>;
}

export async function sourceFilesReached(act: () => Promise<unknown>): Promise<string[]> {
	return Object.keys(await functionsReached(act)).sort();
}

/** As sourceFilesReached, with the names of the functions that ran in each file ('' for an anonymous one). */
export async function functionsReached(
	act: () => Promise<unknown>,
): Promise<Record<string, string[]>> {
	const session = new Session();
	session.connect();
	try {
		await session.post('Profiler.enable');
		await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
		// Taking coverage resets the counts: what follows counts only `act`.
		await session.post('Profiler.takePreciseCoverage');
		await act();
		const { result } = (await session.post('Profiler.takePreciseCoverage')) as {
			result: Array<{ url: string; functions: FunctionCoverage[] }>;
		};
		await session.post('Profiler.stopPreciseCoverage');
		const reached: Record<string, string[]> = {};
		for (const script of result) {
			const file = script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url;
			const relative = path.relative(repoRoot, file);
			if (!/^(nodes|credentials)\//.test(relative) || !relative.endsWith('.ts')) continue;
			// Counts were reset before `act`: a module loaded earlier counts only for what it runs now.
			const ran = script.functions.filter((f) => f.ranges[0].count > 0);
			if (ran.length > 0) reached[relative] = ran.map((f) => f.functionName);
		}
		return reached;
	} finally {
		session.disconnect();
	}
}
