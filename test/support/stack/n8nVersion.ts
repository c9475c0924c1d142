/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Which n8n the stacks run. The suites run in n8n 2.41.1 (the default) and in n8n 1.123.81, the
 * maintained 1.x line (issue 25); RELAY_N8N_VERSION picks one, and this is the only place that
 * reads it. Each version is installed into a folder of its own in the cache (runtime.ts), so both
 * can be kept side by side.
 */

export interface N8nVersionFacts {
	/**
	 * npm `overrides` for the private install folder, never for the published package:
	 *   - linkedom 0.18.14: the newest pulls a package this registry lacks;
	 *   - xlsx 0.18.5 (1.x): n8n 1.123's own dependency is a tarball on a CDN outside the registry.
	 */
	overrides: Record<string, string>;
}

export const N8N_VERSIONS = {
	'2.41.1': { overrides: { linkedom: '0.18.14' } },
	'1.123.81': { overrides: { xlsx: '0.18.5', linkedom: '0.18.14' } },
} satisfies Record<string, N8nVersionFacts>;

export type N8nVersion = keyof typeof N8N_VERSIONS;

export const DEFAULT_N8N_VERSION: N8nVersion = '2.41.1';

function selected(value: string | undefined): N8nVersion {
	if (!value) return DEFAULT_N8N_VERSION;
	if (value in N8N_VERSIONS) return value as N8nVersion;
	throw new Error(
		`RELAY_N8N_VERSION=${value} is not a version the suites know: use one of ${Object.keys(N8N_VERSIONS).join(', ')}`,
	);
}

/** The n8n version this process's stacks install and start. */
export const N8N_VERSION: N8nVersion = selected(process.env.RELAY_N8N_VERSION);

/** Its major version: 1.x differs from 2.x in how workflows are published and which modules exist. */
export const majorOf = (version: string): number => Number(version.split('.')[0]);
