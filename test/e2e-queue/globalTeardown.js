'use strict';
const { copyFileSync, existsSync, readFileSync } = require('node:fs');
const { basename, join } = require('node:path');

module.exports = async function globalTeardown() {
	// Keep the logs with the figures: the stack's own folder is removed by stop().
	try {
		const state = JSON.parse(readFileSync(process.env.RELAY_QUEUE_STACK, 'utf8'));
		for (const proc of Object.values(state.processes)) {
			if (existsSync(proc.logFile)) copyFileSync(proc.logFile, join(process.env.RELAY_QUEUE_ARTIFACTS, basename(proc.logFile)));
		}
		console.log(`queue-mode logs and figures: ${process.env.RELAY_QUEUE_ARTIFACTS}`);
	} catch {
		// No state file: setup failed and cleaned up itself.
	}
	await globalThis.__relayQueueStop?.();
};
