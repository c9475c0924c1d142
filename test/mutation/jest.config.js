/**
 * The unit suites StrykerJS runs against each mutant (stryker.config.json, `npm run test:mutation`):
 * those that exercise the files it mutates (the secret checks, the ledgers and routing, the soak
 * judges), in-process over loopback, as `jest.config.js` runs them.
 * @type {import('jest').Config}
 */
const base = require('../../jest.config.js');

module.exports = {
	...base,
	rootDir: '../..',
	roots: ['<rootDir>/test'],
	testMatch: ['<rootDir>/test/nodes/**/*.test.ts', '<rootDir>/test/judges/**/*.test.ts'],
	// Runs a script of its own against n8n 1.123.81's packages, which Stryker's sandbox does not hold;
	// the secret check it also touches is tested in test/nodes/MessagingRelay/waitingHolder.test.ts.
	testPathIgnorePatterns: ['/node_modules/', '/test/nodes/shared/n8nCapabilities.test.ts'],
	setupFiles: ['<rootDir>/test/support/harness/fastRetries.ts'],
};
