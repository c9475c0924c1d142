/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Starts one n8n (+ relay simulator) for all end-to-end suites, on ports that do not collide
 * with a running `npm start`, and leaves what the suites need in a stack file
 * (RELAY_STACK_FILE, read by test/support/e2e.ts) and an artifacts folder (RELAY_ARTIFACTS).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ensureChromium } from '../support/stack/runtime';
import { stackInfoOf, startStack, type Stack } from '../support/stack/single';
import { writeStackFile } from '../support/stack/stackFile';

/** Where globalTeardown (run in this same process) finds the stack to stop. */
export const running = globalThis as { relayStack?: Stack };

export default async function globalSetup(): Promise<void> {
	const n8nPort = Number(process.env.E2E_N8N_PORT ?? 5778);
	const simPort = Number(process.env.E2E_SIM_PORT ?? 5780);
	const artifacts = mkdtempSync(join(tmpdir(), 'relay-e2e-artifacts-'));
	ensureChromium();
	// The mixed soak (shared.e2e.ts) restarts n8n while it delivers: it sends through a
	// readiness-gated balancer, as hosts are told to run one (test/support/stack/balancer.ts).
	const balancerPort = Number(process.env.E2E_BALANCER_PORT ?? 5786);
	const stack = await startStack({ n8nPort, simPort, balancerPort });
	const info = stackInfoOf(stack);
	const file = join(artifacts, 'stack.json');
	writeStackFile(file, { ...info, artifacts });
	process.env.RELAY_STACK_FILE = file;
	process.env.RELAY_ARTIFACTS = artifacts;
	running.relayStack = stack;
}
