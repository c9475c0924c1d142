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
	const { state, stop } = await startQueueStack({ keepFolder: process.env.QUEUE_KEEP_FOLDER === 'true' });
	process.env.RELAY_QUEUE_STACK = state.stateFile;
	process.env.RELAY_QUEUE_ARTIFACTS = artifacts;
	globalThis.__relayQueueStop = stop;
};
