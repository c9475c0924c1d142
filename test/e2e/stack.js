'use strict';
/**
 * What the end-to-end suites need from the running stack (started by globalSetup.js):
 * addresses, keys, the n8n log, and the n8n CLI. Plain JavaScript for node:fs and
 * node:child_process, which n8n's lint rules keep out of .ts files.
 */
const { spawnSync } = require('node:child_process');
const { readFileSync } = require('node:fs');

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

module.exports = { stackInfo, readN8nLog, runN8nCli };
