/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Brings up the real thing in one n8n process: the relay simulator (or a real account), a pinned
 * n8n on loopback with this package installed the way n8n installs a community package, an
 * owner account, an API key, the Messaging Relay credential, and the example workflows imported
 * and published (provision.ts). Optionally a readiness-gated HAProxy in front (balancer.ts).
 * Used by `npm start` (scripts/n8n-up.ts), the end-to-end suites and the benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { N8nClient } from '../n8nClient';
import { sleep, waitUntil } from '../waitUntil';
import { balancerArgs, balancerConfig, ensureHaproxy } from './balancer';
import { n8nEnvironment, n8nReady, startN8n } from './n8nProcess';
import { buildAndPack, installIntoUserFolder } from './packageInstall';
import { requirePortsFree } from './ports';
import { provision, type Provisioned } from './provision';
import { ensureN8n, ensureNode24, say } from './runtime';
import type { StackInfo } from './stackFile';
import { compiledProgram } from './tools';

export interface StackOptions {
	/** n8n's port (5678); its task broker takes the next one. */
	n8nPort?: number;
	/** The simulator's port (5680). */
	simPort?: number;
	/** A fresh temporary folder unless given (then kept). */
	userFolder?: string;
	/** Keep the temporary user folder after stop() (`npm start` leaves its data for a look). */
	keepUserFolder?: boolean;
	/** A real account instead of the simulator. */
	account?: { baseUrl: string; apiKey: string };
	/** Publish the example workflows (true). */
	examples?: boolean;
	/**
	 * A readiness-gated HAProxy in front of n8n listens here (none by default). n8n still
	 * registers its own URL; a caller sends through the balancer itself.
	 */
	balancerPort?: number;
	/** Extra environment for n8n (e.g. an expression-engine setting). */
	env?: Record<string, string>;
}

export interface Stack extends Omit<StackInfo, 'artifacts'> {
	client: N8nClient;
	stop(): Promise<void>;
}

/** What a stack file keeps of a running stack: everything but its client and its stop function. */
export function stackInfoOf(stack: Stack): Omit<StackInfo, 'artifacts'> {
	return Object.fromEntries(
		Object.entries(stack).filter(([key]) => key !== 'client' && key !== 'stop'),
	) as Omit<StackInfo, 'artifacts'>;
}

/** Starts a process with its output appended to a log file. */
function startLogged(command: string, args: string[], logFile: string): ChildProcess {
	const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
	const log = createWriteStream(logFile);
	child.stdout?.pipe(log);
	child.stderr?.pipe(log);
	return child;
}

async function startBalancer(
	workDir: string,
	listenPort: number,
	backendPort: number,
): Promise<{ url: string; child: ChildProcess }> {
	const config = join(workDir, 'haproxy.cfg');
	writeFileSync(config, balancerConfig({ listenPort, backendPort }));
	const url = `http://127.0.0.1:${listenPort}`;
	say(`starting HAProxy on ${url} in front of n8n (routes only while n8n is ready)`);
	const child = startLogged(ensureHaproxy(), balancerArgs(config), join(workDir, 'balancer.log'));
	await waitUntil(
		'HAProxy to route to n8n',
		async () => (await fetch(`${url}/healthz/readiness`)).ok,
		{ timeoutMs: 30_000, ignoreErrors: true },
	);
	return { url, child };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
	const n8nPort = options.n8nPort ?? 5678;
	const simPort = options.simPort ?? 5680;
	const workDir = options.userFolder ?? mkdtempSync(join(tmpdir(), 'relay-n8n-'));
	const children: ChildProcess[] = [];
	// Whatever happens to this process, n8n and the simulator do not outlive it.
	process.once('exit', () => {
		for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
	});

	await requirePortsFree(
		[
			...(options.account ? [] : [['relay simulator', simPort] as [string, number]]),
			['n8n', n8nPort],
			['n8n task broker', n8nPort + 1],
			...(options.balancerPort ? [['balancer', options.balancerPort] as [string, number]] : []),
		],
		'pass other ports (E2E_N8N_PORT, E2E_SIM_PORT, E2E_BALANCER_PORT for the e2e suites)',
	);
	const node24 = ensureNode24();
	const n8n = ensureN8n(node24);
	installIntoUserFolder(buildAndPack(mkdtempSync(join(tmpdir(), 'relay-pack-'))), workDir);

	let simUrl: string | undefined;
	if (!options.account) {
		simUrl = `http://127.0.0.1:${simPort}`;
		say(`starting the relay simulator on ${simUrl}`);
		const program = compiledProgram('test/simulator/main.ts');
		children.push(
			startLogged(process.execPath, [program, String(simPort)], join(workDir, 'simulator.log')),
		);
		await waitUntil('the relay simulator', async () => (await fetch(`${simUrl}/__sim/state`)).ok, {
			timeoutMs: 15_000,
			ignoreErrors: true,
		});
	}

	const n8nUrl = `http://127.0.0.1:${n8nPort}`;
	const env = {
		...n8nEnvironment(node24, { userFolder: workDir, port: n8nPort, version: n8n.version }),
		...options.env,
	};
	const logFile = join(workDir, 'n8n.log');
	say(`starting n8n ${n8n.version} on ${n8nUrl} (log: ${logFile})`);
	const n8nProcess = startN8n(node24, n8n, env, logFile);
	children.push(n8nProcess);
	await n8nReady(n8nUrl, n8nProcess, logFile);

	let balancerUrl: string | undefined;
	if (options.balancerPort) {
		const balancer = await startBalancer(workDir, options.balancerPort, n8nPort);
		children.push(balancer.child);
		balancerUrl = balancer.url;
	}

	const client = new N8nClient(n8nUrl);
	const account = options.account ?? { baseUrl: simUrl as string, apiKey: 'sim-key-full' };
	const provisioned: Provisioned = await provision(client, account, {
		examples: options.examples,
		simulator: !options.account,
	});

	let stopped = false;
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		for (const child of children.reverse()) {
			if (child.exitCode !== null) continue;
			child.kill('SIGTERM');
			await Promise.race([new Promise((resolve) => child.once('exit', resolve)), sleep(10_000)]);
			if (child.exitCode === null) child.kill('SIGKILL');
		}
		if (!options.userFolder && !options.keepUserFolder)
			rmSync(workDir, { recursive: true, force: true });
	};

	return {
		n8nUrl,
		simUrl,
		balancerUrl,
		userFolder: workDir,
		logFile,
		env,
		n8nVersion: n8n.version,
		n8nBin: n8n.bin,
		nodeBin: node24.nodeBin,
		n8nPid: n8nProcess.pid as number,
		...provisioned,
		client,
		stop,
	};
}
