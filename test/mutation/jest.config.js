/**
 * The jest config StrykerJS runs against each mutant (stryker.config.mjs): the repository's, with
 * `testMatch` set per group to the fast unit tests of test/mutation/groups.mjs.
 * @type {import('jest').Config}
 */
const base = require('../../jest.config.js');

// The merge laws' properties run 500 cases each in the suite; a mutant that breaks a law fails within a few.
process.env.PROPERTY_RUNS = '40';

module.exports = {
	...base,
	rootDir: '../..',
	roots: ['<rootDir>/test'],
	testMatch: [],
	// The group's tests take milliseconds: a mutant that leaves a promise pending fails its test here
	// (killed) instead of running into Stryker's time-out, which also restarts the test runner.
	testTimeout: 3000,
	setupFiles: ['<rootDir>/test/support/harness/fastRetries.ts'],
};
