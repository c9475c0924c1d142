/** @type {import('jest').Config} */
module.exports = {
	// Each file transpiled on its own, without a type check per test file; `npm run typecheck`
	// (tsconfig.test.json) checks the types of all of them at once (13 s) before jest runs, in
	// `npm test` and `npm run test:unit`.
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }] },
	// The suite waits on real HTTP and timers far more than it computes (60 s of CPU in 225 s with
	// one worker, 2026-11-26): two workers on this 2-core machine took 116 s (issue 25's CI budget).
	maxWorkers: 2,
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testTimeout: 30000,
	// The files that measure which code a delivery runs start first, in fresh workers (see the file).
	testSequencer: '<rootDir>/test/support/measuredFirst.js',
	setupFiles: ['<rootDir>/test/support/harness/fastRetries.ts'],
};
