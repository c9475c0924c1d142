/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Figures a suite measured (soak, load, queue mode): printed, and kept as JSON in the artifacts
 * folder that the suite's globalSetup made and named in RELAY_ARTIFACTS, which outlives the stack.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `quiet`: kept, not printed (a whole timeline, for a fixture). */
export function report(name: string, data: object, { quiet = false } = {}): void {
	const folder = process.env.RELAY_ARTIFACTS;
	if (!folder)
		throw new Error(
			'RELAY_ARTIFACTS is not set: run the suite with its jest config (test/e2e or test/e2e-queue)',
		);
	const file = join(folder, `${name}.json`);
	writeFileSync(file, JSON.stringify(data, null, 2));
	console.log(
		quiet
			? `${name}: saved to ${file}`
			: `${name}: ${JSON.stringify(data, null, 2)}\n(saved to ${file})`,
	);
}
