// StrykerJS on the code that guards events and secrets (issue 33; CONTRIBUTING.md, "Mutation score").
// `npm run test:mutation` (scripts/mutation.mjs) runs it once per group of test/mutation/groups.mjs,
// naming the group in MUTATION_GROUP and, for `--changed`, the files in MUTATION_FILES (comma-separated).
// `npx stryker run` alone mutates every file with every group's tests.
import { allFiles, groups } from './test/mutation/groups.mjs';

const group = process.env.MUTATION_GROUP;
if (group !== undefined && !(group in groups)) throw new Error(`unknown mutation group ${group}`);
const chosen = group ? [groups[group]] : Object.values(groups);
const files = process.env.MUTATION_FILES
	? process.env.MUTATION_FILES.split(',')
	: chosen.flatMap((g) => g.mutate);
const unknown = files.filter((f) => !allFiles.includes(f));
if (unknown.length) throw new Error(`not a guarded file: ${unknown.join(', ')}`);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	$schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
	packageManager: 'npm',
	testRunner: 'jest',
	jest: {
		configFile: 'test/mutation/jest.config.js',
		config: { testMatch: chosen.flatMap((g) => g.tests).map((t) => `<rootDir>/${t}`) },
		enableFindRelatedTests: true,
	},
	checkers: ['typescript'],
	tsconfigFile: 'test/mutation/tsconfig.json',
	typescriptChecker: { prioritizePerformanceOverAccuracy: true },
	coverageAnalysis: 'perTest',
	mutate: files,
	ignorePatterns: ['dist', 'build', '.cache', 'coverage', 'reports'],
	// One test runner by default; MUTATION_CONCURRENCY=2 on an otherwise idle 2-core machine.
	concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
	timeoutMS: 5000,
	reporters: ['clear-text', 'progress', 'json'],
	jsonReporter: { fileName: `reports/mutation/${group ?? 'all'}.json` },
	thresholds: { high: 90, low: 85, break: null },
};
