'use strict';
/**
 * Starts one n8n (+ relay simulator) for all end-to-end suites, on ports that do not collide
 * with a running `npm start`, and leaves what the suites need in a JSON file (stack.js reads it).
 */
const { mkdtempSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const { ensureChromium } = require('../../scripts/lib/runtime');
const { startStack } = require('../../scripts/lib/stack');

module.exports = async function globalSetup() {
	const n8nPort = Number(process.env.E2E_N8N_PORT ?? 5778);
	const simPort = Number(process.env.E2E_SIM_PORT ?? 5780);
	const artifacts = mkdtempSync(join(tmpdir(), 'relay-e2e-artifacts-'));
	ensureChromium();
	// The mixed soak (shared.e2e.ts) restarts n8n while it delivers: it sends through a
	// readiness-gated balancer, as README's Scaling tells hosts (scripts/lib/balancer.js).
	const balancerPort = Number(process.env.E2E_BALANCER_PORT ?? 5786);
	const stack = await startStack({ n8nPort, simPort, balancerPort });
	const info = {
		n8nUrl: stack.n8nUrl,
		simUrl: stack.simUrl,
		balancerUrl: stack.balancerUrl,
		userFolder: stack.userFolder,
		logFile: stack.logFile,
		apiKey: stack.apiKey,
		owner: stack.owner,
		credentials: stack.credentials,
		workflows: stack.workflows,
		artifacts,
		n8nBin: stack.n8nBin,
		nodeBin: stack.nodeBin,
		env: stack.env,
		n8nPid: stack.n8nPid,
	};
	const file = join(artifacts, 'stack.json');
	writeFileSync(file, JSON.stringify(info, null, 2));
	process.env.RELAY_E2E_STACK = file;
	globalThis.__relayStack = stack;
};
