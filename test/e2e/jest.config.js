/**
 * End-to-end tests in the real n8n: globalSetup installs (cached) and starts n8n with the
 * packed package and the relay simulator, once for all suites; the suites talk to them over HTTP.
 * @type {import('jest').Config}
 */
module.exports = {
	rootDir: '../..',
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	globalSetup: '<rootDir>/test/e2e/globalSetup.ts',
	globalTeardown: '<rootDir>/test/e2e/globalTeardown.ts',
	maxWorkers: 1,
	testTimeout: 120000,
};
