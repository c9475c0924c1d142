/**
 * The queue-mode suite with two webhook processes behind the balancer (issue 32): its own
 * deployment (globalSetup.ts here: main, two `n8n webhook` processes that HAProxy sends requests
 * to in turn, one worker), stopped by the queue suite's globalTeardown. Run by `npm run test:queue`
 * after the main queue suite.
 * @type {import('jest').Config}
 */
module.exports = {
	rootDir: '../../..',
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e-queue/twoWebhookProcesses'],
	testMatch: ['**/*.e2e.ts'],
	globalSetup: '<rootDir>/test/e2e-queue/twoWebhookProcesses/globalSetup.ts',
	globalTeardown: '<rootDir>/test/e2e-queue/globalTeardown.ts',
	maxWorkers: 1,
	testTimeout: 600000,
};
