import { startQueueSuite } from '../globalSetup';

/** Two webhook processes, one worker, no examples: the suite publishes its own workflows. */
export default async function globalSetup(): Promise<void> {
	await startQueueSuite({ webhookProcesses: 2, workers: 1, examples: false });
}
