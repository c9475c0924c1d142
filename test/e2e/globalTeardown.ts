/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
import { alive } from '../support/stack/processes';
import { readStackFile } from '../support/stack/stackFile';
import { running } from './globalSetup';

export default async function globalTeardown(): Promise<void> {
	// The restart suite may have replaced n8n: stop the process the stack file names now.
	try {
		const { n8nPid } = readStackFile();
		if (n8nPid !== running.relayStack?.n8nPid && alive(n8nPid)) process.kill(n8nPid, 'SIGTERM');
	} catch {
		// No stack file: setup failed and cleaned up itself.
	}
	await running.relayStack?.stop();
}
