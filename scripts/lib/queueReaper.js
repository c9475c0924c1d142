'use strict';
/**
 * Last line of cleanup for the queue-mode stack (queueStack.js): a small detached process that
 * watches the process that started the stack. When that process is gone (killed, crashed, or
 * jest interrupted) or the state file says `stopping`, it kills every process group the state
 * file lists and removes the stack's temporary folder. A normal stop() does all this itself and
 * then ends the reaper; the reaper only matters when nobody else could clean up.
 *
 *   node queueReaper.js <state file> <pid to watch>
 */
const { readFileSync, rmSync } = require('node:fs');

const [stateFile, watchedPid] = process.argv.slice(2);

function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

function readState() {
	try {
		return JSON.parse(readFileSync(stateFile, 'utf8'));
	} catch {
		return undefined;
	}
}

function reap(state) {
	for (const proc of Object.values(state?.processes ?? {})) {
		if (!proc.pid) continue;
		try {
			process.kill(-proc.pid, 'SIGKILL');
		} catch {
			// Already gone.
		}
	}
	if (state?.workDir) rmSync(state.workDir, { recursive: true, force: true });
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
