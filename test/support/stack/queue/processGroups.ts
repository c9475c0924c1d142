/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The deployment's long-running processes: each in a process group of its own (detached), its
 * log file as stdout and stderr, started from its spec in the state file, so that any jest
 * process can stop or restart one by name.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

import { waitUntil } from '../../waitUntil';
import { alive } from '../processes';
import { loadState, saveState, type ProcessSpec } from './state';

/** Starts one process in its own process group, its output appended to its log. Returns its pid. */
export function launch(spec: ProcessSpec): number {
	const out = openSync(spec.logFile, 'a');
	const child = spawn(spec.command, spec.args, {
		env: spec.env,
		cwd: spec.cwd,
		detached: true,
		stdio: ['ignore', out, out],
		...(spec.uid !== undefined ? { uid: spec.uid, gid: spec.gid } : {}),
	});
	closeSync(out);
	child.unref();
	return child.pid as number;
}

/** Signals a whole process group (n8n and its task runner, Postgres and its backends). */
export function signalGroup(pid: number, signal: NodeJS.Signals): void {
	try {
		process.kill(-pid, signal);
	} catch {
		// Already gone.
	}
}

export interface StopOptions {
	/** SIGTERM unless told (Postgres: SIGINT, its fast shutdown). */
	signal?: NodeJS.Signals;
	/** How long it may take before SIGKILL (45 s). */
	graceMs?: number;
	/** Called once the signal is sent. */
	onSignalled?: () => void;
}

export async function stopGroup(
	pid: number | undefined,
	{ signal = 'SIGTERM', graceMs = 45_000, onSignalled }: StopOptions = {},
): Promise<void> {
	if (!pid) return;
	signalGroup(pid, signal);
	onSignalled?.();
	await waitUntil('the process to stop', () => !alive(pid), {
		timeoutMs: graceMs,
		intervalMs: 100,
	}).catch(() => undefined);
	signalGroup(pid, 'SIGKILL');
	await waitUntil('the process to be killed', () => !alive(pid), {
		timeoutMs: 60_000,
		intervalMs: 50,
	});
}

/** Waits until the process answers its health URL; fails at once when it exits meanwhile. */
async function healthy(spec: ProcessSpec, pid: number, timeoutMs = 600_000): Promise<void> {
	const url = spec.healthUrl as string;
	const exited = () => new Error(`${spec.name} exited during start; see ${spec.logFile}`);
	await waitUntil(
		`${spec.name} to answer ${url}`,
		async () => {
			if (!alive(pid)) throw exited();
			return await fetch(url).then(
				(r) => r.ok,
				() => false,
			);
		},
		{ timeoutMs, intervalMs: 300 },
	);
	if (!alive(pid)) throw exited();
}

/**
 * Starts (again) the named process from its spec in the state file and waits until it is
 * healthy. Returns its new pid; the state file is updated.
 */
export async function startProcess(stateFile: string, name: string): Promise<number> {
	const state = loadState(stateFile);
	const spec = state.processes[name];
	spec.pid = launch(spec);
	spec.starts = (spec.starts ?? 0) + 1;
	saveState(state);
	if (spec.healthUrl) await healthy(spec, spec.pid);
	return spec.pid;
}

/** Stops the named process as a host would (SIGTERM to its group, SIGKILL after the grace time). */
export async function stopProcess(
	stateFile: string,
	name: string,
	options?: StopOptions,
): Promise<void> {
	await stopGroup(loadState(stateFile).processes[name].pid, options);
}

/**
 * Stops the named process and starts it again on the same folders, ports and database.
 * onStopped is called once it has exited (before the new start).
 */
export async function restartProcess(
	stateFile: string,
	name: string,
	options: StopOptions & { onStopped?: () => void } = {},
): Promise<number> {
	await stopProcess(stateFile, name, options);
	options.onStopped?.();
	return await startProcess(stateFile, name);
}
