/**
 * The jest config StrykerJS runs against each mutant (stryker.config.mjs): the repository's, with
 * `testMatch` set per group to the fast unit tests of test/mutation/groups.mjs.
 * @type {import('jest').Config}
 */
const base = require('../../jest.config.js');

// The merge laws' properties run 500 cases each in the suite; a mutant that breaks a law fails within a few.
process.env.PROPERTY_RUNS = '40';
// Every property on one seed (test/support/harness/propertySeed.ts): a measure made again kills what the
// last one killed. From 2026-11-29; records measured before ran on random seeds.
process.env.PROPERTY_SEED ??= '20261129';
// The account state's model runs 40 walks of up to 300 steps per process count in the suite; here
// 3, on one seed, so that every mutant of accountTable.ts meets the same walks (a second or two each).
process.env.MODEL_RUNS ??= '3';
process.env.MODEL_SEED ??= '20261128';

module.exports = {
	...base,
	rootDir: '../..',
	// nodes/ too, so that findRelatedTests follows imports through it: a test reaches accountTable.ts
	// through waitingRuns.ts and chatPause.ts (StrykerJS adds only the mutated file's own folder).
	roots: ['<rootDir>/test', '<rootDir>/nodes'],
	testMatch: [],
	// The group's tests take milliseconds: a mutant that leaves a promise pending fails its test here
	// (killed) instead of running into Stryker's time-out, which also restarts the test runner.
	testTimeout: 3000,
	setupFiles: [
		'<rootDir>/test/support/harness/fastRetries.ts',
		'<rootDir>/test/support/harness/propertySeed.ts',
	],
};
