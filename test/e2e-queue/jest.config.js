/**
 * The queue-mode end-to-end suite: globalSetup starts Postgres, Redis, n8n main, one webhook
 * process and two workers (test/support/stack/queue/) once; globalTeardown stops them all and
 * removes their folders, also when a test failed. Run with `npm run test:queue`.
 * @type {import('jest').Config}
 */
module.exports = {
	rootDir: '../..',
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e-queue'],
	testMatch: ['**/*.e2e.ts'],
	// Its own deployment (two webhook processes): twoWebhookProcesses/jest.config.js.
	testPathIgnorePatterns: ['/node_modules/', '/twoWebhookProcesses/'],
	globalSetup: '<rootDir>/test/e2e-queue/globalSetup.ts',
	globalTeardown: '<rootDir>/test/e2e-queue/globalTeardown.ts',
	maxWorkers: 1,
	testTimeout: 120000,
};
