/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
import { startQueueSuite } from '../globalSetup';

/** Two webhook processes, one worker, no examples: the suite publishes its own workflows. */
export default async function globalSetup(): Promise<void> {
	// The package says at debug level when a save of static data was lost and what it wrote again:
	// the suite counts those lines (a run that meets no lost save proves nothing).
	process.env.N8N_LOG_LEVEL ??= 'debug';
	await startQueueSuite({ webhookProcesses: 2, workers: 1, examples: false });
}
