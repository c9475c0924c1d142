/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The n8n settings every n8n measurement is taken under, side by side in one run: n8n as shipped
 * and with lazy isolate acquisition (N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true: an isolate only
 * when an expression is evaluated; n8n marks it experimental). BENCH_SETTINGS adds n8n's other
 * expression-engine settings (n8n 2.41.1, @n8n/config expression-engine.config.js):
 * compileCache (keeps compiled expressions), legacy (no isolates at all).
 *   BENCH_SETTINGS=shipped,lazy,compileCache,legacy npm run bench
 */
export interface Setting {
	key: string;
	/** How the results table names it. */
	label: string;
	/** The environment of every n8n process under this setting. */
	env: Record<string, string>;
}

const ALL: Setting[] = [
	{ key: 'shipped', label: 'n8n as shipped', env: {} },
	{
		key: 'lazy',
		label: '`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true`',
		env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
	},
	{
		key: 'compileCache',
		label: '`N8N_EXPRESSION_ENGINE_COMPILE_CACHE=true`',
		env: { N8N_EXPRESSION_ENGINE_COMPILE_CACHE: 'true' },
	},
	{
		key: 'legacy',
		label: '`N8N_EXPRESSION_ENGINE=legacy`',
		env: { N8N_EXPRESSION_ENGINE: 'legacy' },
	},
];

export function chosenSettings(names = process.env.BENCH_SETTINGS ?? 'shipped,lazy'): Setting[] {
	return names.split(',').map((name) => {
		const setting = ALL.find((s) => s.key === name.trim());
		if (!setting)
			throw new Error(
				`BENCH_SETTINGS: no setting ${name}; one of ${ALL.map((s) => s.key).join(', ')}`,
			);
		return setting;
	});
}

/** A whole number from the environment, or the default. */
export const fromEnv = (name: string, fallback: number): number =>
	Number(process.env[name] ?? fallback);
