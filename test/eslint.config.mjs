/**
 * Lint for the tests, their support and the scripts (scripts/eslint.config.mjs is this file).
 * n8n's rules for node code (@n8n/community-nodes, n8n-nodes-base: no node:fs, no process, no
 * timers, ...) are for what runs inside n8n: nodes/ and credentials/, linted by the repository's
 * own eslint.config.mjs, which `n8n-node lint` requires unchanged (package.json n8n.strict).
 * Here the same base applies without them: ESLint's and typescript-eslint's recommended rules
 * and import-x, from the same @n8n/node-cli configuration.
 *
 * ESLint 9.29 uses this file for the files below this folder only with the flag
 * unstable_config_lookup_from_file (ESLint 10's default): `npm run lint` sets it.
 */
import { config } from '@n8n/node-cli/eslint';

const nodeRule = (name) => name.startsWith('@n8n/community-nodes/') || name.startsWith('n8n-nodes-base/');
const forNodeCode = (block) =>
	block.plugins?.['@n8n/community-nodes'] !== undefined ||
	(block.files ?? []).some((pattern) => /package\.json|credentials\/|nodes\//.test(pattern));

export default [
	...config
		.filter((block) => !forNodeCode(block))
		.map((block) =>
			block.rules ? { ...block, rules: Object.fromEntries(Object.entries(block.rules).filter(([name]) => !nodeRule(name))) } : block,
		),
	{
		files: ['**/*.ts'],
		rules: {
			// Tests and scripts report to the terminal.
			'no-console': 'off',
			// `const { client, stop, ...info } = stack` leaves out what is not wanted.
			'@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
		},
	},
];
