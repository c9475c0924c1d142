/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Starts the queue-mode deployment once for the suite and leaves the path of its state file in
 * RELAY_QUEUE_STACK (test/support/stack/queue/running.ts reads it). Figures go to an artifacts
 * folder that outlives the deployment (RELAY_ARTIFACTS).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { startQueueStack, type QueueOptions } from '../support/stack/queue/deployment';

/** Where globalTeardown (run in this same process) finds how to stop the deployment. */
export const running = globalThis as { relayQueueStop?: () => Promise<void> };

export default async function globalSetup(): Promise<void> {
	// The soak's published examples keep the default a user gets, "When the Workflow Finishes"
	// (trigger version 3): a run n8n fails while it stops a worker is then answered as failed and
	// delivered again (workerShutdownRace.ts, rule 3). The deployment keeps finished jobs in Redis
	// (deployment.ts, N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED), as docs/scaling.md tells users to.
	await startQueueSuite({});
}

/** Starts the deployment with `options` for a suite and leaves RELAY_QUEUE_STACK / RELAY_ARTIFACTS set. */
export async function startQueueSuite(options: QueueOptions): Promise<void> {
	const artifacts = mkdtempSync(join(tmpdir(), 'relay-queue-artifacts-'));
	// n8n as shipped by default. QUEUE_ENGINE=lazy runs every process with lazy isolate
	// acquisition (README Performance): the soak then takes 2-3 min instead of 10, but in one run
	// of 2026-11-23 a worker, starved of CPU, failed an execution on n8n's own 250 ms regex
	// time-out (n8n-workflow safe-regex.js:41, validating a resource locator), which the soak
	// counts as lost.
	const env: Record<string, string> =
		process.env.QUEUE_ENGINE === 'lazy' ? { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' } : {};
	const { state, stop } = await startQueueStack({
		keepFolder: process.env.QUEUE_KEEP_FOLDER === 'true',
		env,
		...options,
	});
	process.env.RELAY_QUEUE_STACK = state.stateFile;
	process.env.RELAY_ARTIFACTS = artifacts;
	running.relayQueueStop = stop;
}
