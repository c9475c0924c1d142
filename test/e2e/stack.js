'use strict';
/**
 * What the end-to-end suites need from the running stack (started by globalSetup.js):
 * addresses, keys, the n8n log, and the n8n CLI. Plain JavaScript for node:fs and
 * node:child_process, which n8n's lint rules keep out of .ts files.
 */
const { spawn, spawnSync } = require('node:child_process');
const { createWriteStream, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

function stackInfo() {
	const file = process.env.RELAY_E2E_STACK;
	if (!file) throw new Error('RELAY_E2E_STACK is not set: run the e2e suites with test/e2e/jest.config.js');
	return JSON.parse(readFileSync(file, 'utf8'));
}

function readN8nLog() {
	return readFileSync(stackInfo().logFile, 'utf8');
}

/** Runs the n8n CLI (for example `execute --id 12`) against the same user folder and database. */
function runN8nCli(args, extraEnv = {}) {
	const info = stackInfo();
	// Its own task-runner port: the running n8n holds the stack's.
	const brokerPort = String(Number(info.env.N8N_PORT) + 3);
	const result = spawnSync(info.nodeBin, [info.n8nBin, ...args], {
		env: { ...info.env, N8N_RUNNERS_BROKER_PORT: brokerPort, ...extraEnv },
		encoding: 'utf8',
		timeout: 120000,
	});
	return { status: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

/** Resident memory of the running n8n, in MiB (from /proc). */
function n8nMemoryMb() {
	const status = readFileSync(`/proc/${stackInfo().n8nPid}/status`, 'utf8');
	const kb = Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
	return Math.round(kb / 1024);
}

function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/**
 * Stops n8n (SIGTERM, as a host would) and starts it again on the same user folder and
 * database, then waits until it answers. The stack file is updated with the new process.
 */
async function restartN8n() {
	const info = stackInfo();
	process.kill(info.n8nPid, 'SIGTERM');
	for (let i = 0; i < 300 && alive(info.n8nPid); i++) await new Promise((r) => setTimeout(r, 100));
	if (alive(info.n8nPid)) process.kill(info.n8nPid, 'SIGKILL');
	const log = createWriteStream(info.logFile, { flags: 'a' });
	const child = spawn(info.nodeBin, [info.n8nBin, 'start'], { env: info.env, stdio: ['ignore', 'pipe', 'pipe'] });
	child.stdout.pipe(log);
	child.stderr.pipe(log);
	child.unref();
	info.n8nPid = child.pid;
	writeFileSync(process.env.RELAY_E2E_STACK, JSON.stringify(info, null, 2));
	for (let i = 0; i < 3000; i++) {
		try {
			if ((await fetch(`${info.n8nUrl}/healthz/readiness`)).ok) return;
		} catch {
			// not listening yet
		}
		await new Promise((r) => setTimeout(r, 100));
	}
	throw new Error('n8n did not come back within 300 s after the restart');
}

/** Prints a measurement and keeps it in the artifacts folder (the soak's figures). */
function report(name, data) {
	const file = join(stackInfo().artifacts, `${name}.json`);
	writeFileSync(file, JSON.stringify(data, null, 2));
	console.log(`${name}: ${JSON.stringify(data)} (saved to ${file})`);
}

module.exports = { stackInfo, readN8nLog, runN8nCli, n8nMemoryMb, restartN8n, report };
