'use strict';
const { readFileSync } = require('node:fs');

module.exports = async function globalTeardown() {
	// The restart suite may have replaced n8n: stop the process the stack file names now.
	try {
		const { n8nPid } = JSON.parse(readFileSync(process.env.RELAY_E2E_STACK, 'utf8'));
		if (n8nPid && n8nPid !== globalThis.__relayStack?.n8nPid) process.kill(n8nPid, 'SIGTERM');
	} catch {
		// No stack file or the process is gone: nothing to stop here.
	}
	await globalThis.__relayStack?.stop();
};
