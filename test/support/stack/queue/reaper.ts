/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Last line of cleanup for the queue-mode deployment (deployment.ts): a small detached process
 * that watches the process that started it. When that process is gone (killed, crashed, or jest
 * interrupted), it kills every process group the state file lists and removes the deployment's
 * temporary folder. A normal stop() does all this itself and marks the state file stopped, which
 * ends the reaper; the reaper only matters when nobody else could clean up.
 *
 *   node build/test/support/stack/queue/reaper.js <state file> <pid to watch>
 */
import { readFileSync, rmSync } from 'node:fs';

import { alive } from '../processes';
import type { QueueState } from './state';

const [stateFile, watchedPid] = process.argv.slice(2);

function readState(): QueueState | undefined {
	try {
		return JSON.parse(readFileSync(stateFile, 'utf8')) as QueueState;
	} catch {
		return undefined;
	}
}

function reap(state: QueueState): never {
	for (const proc of Object.values(state.processes)) {
		if (!proc.pid) continue;
		try {
			process.kill(-proc.pid, 'SIGKILL');
		} catch {
			// Already gone.
		}
	}
	rmSync(state.workDir, { recursive: true, force: true });
	process.exit(0);
}

// The reaper must not die with the terminal or the jest process it watches.
process.on('SIGHUP', () => {});
process.on('SIGINT', () => {});

setInterval(() => {
	// The state file is replaced atomically (rename); gone means stop() has cleaned up.
	const state = readState();
	if (state === undefined || state.stopped) process.exit(0);
	if (!alive(Number(watchedPid))) reap(state);
}, 500);
