/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
import { copyFileSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';

import { loadState } from '../support/stack/queue/state';
import { running } from './globalSetup';

export default async function globalTeardown(): Promise<void> {
	// Keep the logs with the figures: the deployment's own folder is removed by stop().
	try {
		const state = loadState(process.env.RELAY_QUEUE_STACK as string);
		const artifacts = process.env.RELAY_ARTIFACTS as string;
		for (const proc of Object.values(state.processes)) {
			if (existsSync(proc.logFile))
				copyFileSync(proc.logFile, join(artifacts, basename(proc.logFile)));
		}
		console.log(`queue-mode logs and figures: ${artifacts}`);
	} catch {
		// No state file: setup failed and cleaned up itself.
	}
	await running.relayQueueStop?.();
}
