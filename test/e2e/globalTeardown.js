'use strict';
module.exports = async function globalTeardown() {
	await globalThis.__relayStack?.stop();
};
