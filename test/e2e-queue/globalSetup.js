'use strict';
/**
 * Starts the queue-mode deployment once for the suite and leaves the path of its state file in
 * RELAY_QUEUE_STACK (queueStack.js in this folder reads it). Figures go to an artifacts folder
 * that outlives the stack.
 */
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const { startQueueStack } = require('../../scripts/lib/queueStack');

module.exports = async function globalSetup() {
	const artifacts = mkdtempSync(join(tmpdir(), 'relay-queue-artifacts-'));
	// n8n runs with the setting README's Performance section recommends for volume, lazy isolate
	// acquisition: the same deployment takes the soak's 5,000 deliveries about three times as fast
	// as n8n ships it, which keeps CI well inside its time limit. QUEUE_ENGINE=shipped runs the
	// suite on n8n as shipped (bench section 5 measures both).
	const env = process.env.QUEUE_ENGINE === 'shipped' ? {} : { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' };
	const { state, stop } = await startQueueStack({ keepFolder: process.env.QUEUE_KEEP_FOLDER === 'true', env });
	process.env.RELAY_QUEUE_STACK = state.stateFile;
	process.env.RELAY_QUEUE_ARTIFACTS = artifacts;
	globalThis.__relayQueueStop = stop;
};
