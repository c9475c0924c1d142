/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * A running single-process stack (single.ts) as a JSON file, for whoever did not start it: the
 * end-to-end suites (jest's globalSetup writes it, each suite reads it), `npm run deliver`
 * (`npm start` writes it). With it: n8n's log, its memory, its CLI, and a restart.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
	createWriteStream,
	existsSync,
	mkdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

import type { Owner, Session } from '../n8nClient';
import type { CredentialRef } from '../workflows';
import { waitUntil } from '../waitUntil';
import { n8nServes } from './n8nProcess';
import { alive, memoryMb } from './processes';
import { cacheRoot } from './runtime';

export interface StackInfo {
	n8nUrl: string;
	/** The simulator, unless `npm start` uses a real account. */
	simUrl?: string;
	/** The readiness-gated balancer in front of n8n, when there is one (balancer.ts). */
	balancerUrl?: string;
	userFolder: string;
	logFile: string;
	apiKey: string;
	owner: Owner;
	/** The owner's session opened at setup, continued by each suite instead of logging in again (n8n limits logins). */
	session?: Session;
	credentials: Record<string, CredentialRef>;
	workflows: Record<string, { id: string; name: string }>;
	/** Example workflows imported but not published (a real account: provision.ts). */
	unpublished?: Record<string, { id: string; name: string }>;
	/** Where a suite keeps its figures and screenshots. */
	artifacts?: string;
	env: Record<string, string>;
	/** The n8n version running (n8nVersion.ts): a suite that asserts something version-specific branches on it. */
	n8nVersion: string;
	n8nBin: string;
	nodeBin: string;
	n8nPid: number;
}

/** Where `npm start` leaves the file of the stack it runs (removed when it stops). */
export const NPM_START_STACK_FILE = join(cacheRoot, 'npm-start-stack.json');

/** The file named by RELAY_STACK_FILE (the end-to-end suites set it), else `npm start`'s. */
export const stackFilePath = (): string => process.env.RELAY_STACK_FILE ?? NPM_START_STACK_FILE;

export function writeStackFile(file: string, info: StackInfo): void {
	mkdirSync(dirname(file), { recursive: true });
	// It holds the API key, the owner's password and session of a local n8n: this user's eyes only.
	writeFileSync(file, JSON.stringify(info, null, 2), { mode: 0o600 });
}

export function readStackFile(file = stackFilePath()): StackInfo {
	if (!existsSync(file))
		throw new Error(`No running stack: ${file} does not exist (is \`npm start\` running?)`);
	return JSON.parse(readFileSync(file, 'utf8')) as StackInfo;
}

export function removeStackFile(file: string): void {
	rmSync(file, { force: true });
}

export function readN8nLog(info: StackInfo): string {
	return readFileSync(info.logFile, 'utf8');
}

/** Runs the n8n CLI (for example `execute --id 12`) against the same user folder and database. */
export function runN8nCli(info: StackInfo, args: string[], extraEnv: Record<string, string> = {}) {
	// Its own task-runner port: the running n8n holds the stack's.
	const brokerPort = String(Number(info.env.N8N_PORT) + 3);
	const result = spawnSync(info.nodeBin, [info.n8nBin, ...args], {
		env: { ...info.env, N8N_RUNNERS_BROKER_PORT: brokerPort, ...extraEnv },
		encoding: 'utf8',
		timeout: 300_000,
		maxBuffer: 256 * 2 ** 20,
	});
	return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

/** Resident memory of the stack's n8n, in MiB. */
export const n8nMemoryMb = (info: StackInfo): number => memoryMb(info.n8nPid).rssMb;

/**
 * Stops n8n (SIGTERM, as a host would; or `signal: 'SIGKILL'`, as the out-of-memory killer or
 * `docker kill` would) and starts it again on the same user folder and database, then waits until
 * it answers. The stack file is updated with the new process. `onStopped` runs once the old
 * process is gone, before the new one starts. `env` changes n8n's environment from this start on
 * (an undefined value removes the variable); the stack file keeps it for later restarts.
 */
export async function restartN8n(
	file = stackFilePath(),
	{
		signal = 'SIGTERM',
		onStopped,
		env: changes = {},
	}: {
		signal?: NodeJS.Signals;
		onStopped?: () => void;
		env?: Record<string, string | undefined>;
	} = {},
): Promise<void> {
	const stopping = readStackFile(file);
	const env = { ...stopping.env };
	for (const [name, value] of Object.entries(changes)) {
		if (value === undefined) delete env[name];
		else env[name] = value;
	}
	const info = { ...stopping, env };
	process.kill(info.n8nPid, signal);
	const stopped = await waitUntil('n8n to stop', () => !alive(info.n8nPid), {
		timeoutMs: 30_000,
		intervalMs: 20,
	}).catch(() => false);
	if (!stopped) process.kill(info.n8nPid, 'SIGKILL');
	onStopped?.();
	const log = createWriteStream(info.logFile, { flags: 'a' });
	const child = spawn(info.nodeBin, [info.n8nBin, 'start'], {
		env: info.env,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	child.stdout.pipe(log);
	child.stderr.pipe(log);
	child.unref();
	writeStackFile(file, { ...info, n8nPid: child.pid as number });
	await waitUntil('n8n to come back after the restart', async () => await n8nServes(info.n8nUrl), {
		timeoutMs: 300_000,
		intervalMs: 100,
		ignoreErrors: true,
	});
}
