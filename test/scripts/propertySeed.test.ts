/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test): PROPERTY_SEED */
/**
 * The mutation gate judges every mutant on the same property cases (issue 42): its jest config loads
 * test/support/harness/propertySeed.ts with PROPERTY_SEED set, and that setup fixes fast-check's seed
 * for every property of the test file, so two runs draw the same cases; without it they do not.
 */
import type fcModule from 'fast-check';

/** What one test file's properties draw, in a module registry of its own (as jest gives each file). */
function drawn(seed: string | undefined): number[] {
	const before = process.env.PROPERTY_SEED;
	if (seed === undefined) delete process.env.PROPERTY_SEED;
	else process.env.PROPERTY_SEED = seed;
	try {
		let values: number[] = [];
		jest.isolateModules(() => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- the setup runs before the file, in its registry
			require('../support/harness/propertySeed');
			// eslint-disable-next-line @typescript-eslint/no-require-imports -- the same registry's fast-check
			const fc = require('fast-check') as typeof fcModule;
			values = fc.sample(fc.integer(), 20);
		});
		return values;
	} finally {
		if (before === undefined) delete process.env.PROPERTY_SEED;
		else process.env.PROPERTY_SEED = before;
	}
}

test('with PROPERTY_SEED every run draws the same cases; another seed, or none, draws others', () => {
	expect(drawn('20261129')).toEqual(drawn('20261129'));
	expect(drawn('20261129')).not.toEqual(drawn('7'));
	expect(drawn(undefined)).not.toEqual(drawn(undefined));
});

test("the mutation gate's jest config sets the seed and loads the setup", () => {
	// The config sets its variables in this process: they are put back, for the files run after this one.
	const before = { ...process.env };
	delete process.env.PROPERTY_SEED;
	try {
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- the config as StrykerJS loads it
		const config = require('../mutation/jest.config.js') as { setupFiles: string[] };
		expect(process.env.PROPERTY_SEED).toMatch(/^\d+$/);
		expect(config.setupFiles).toContain('<rootDir>/test/support/harness/propertySeed.ts');
	} finally {
		for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
		Object.assign(process.env, before);
	}
});
