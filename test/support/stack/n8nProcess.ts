/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/** n8n as a process of the stack: its environment, its start with its log, and waiting until it is ready. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

import { waitUntil } from '../waitUntil';
import { majorOf, N8N_VERSION } from './n8nVersion';
import { node24Env, type N8nInstall, type Node24 } from './runtime';

/**
 * The environment of an n8n on loopback with this user folder and port (SQLite; nothing reaches
 * the internet), for the n8n version it is (N8N_VERSION unless told).
 */
export function n8nEnvironment(
	node24: Node24,
	{
		userFolder,
		port,
		version = N8N_VERSION,
	}: { userFolder: string; port: number; version?: string },
): Record<string, string> {
	const base = `http://127.0.0.1:${port}`;
	// n8n 2.x's MCP registry module is not needed here. n8n 1.123 has no module of that name and
	// refuses to start when told to disable it ("Unknown module"): name it only for 2.x.
	const disabledModules: Record<string, string> =
		majorOf(version) >= 2 ? { N8N_DISABLED_MODULES: 'mcp-registry' } : {};
	return node24Env(node24, {
		N8N_USER_FOLDER: userFolder,
		DB_TYPE: 'sqlite',
		// WAL and a small pool: the soak writes thousands of executions.
		DB_SQLITE_POOL_SIZE: '4',
		N8N_HOST: '127.0.0.1',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_PORT: String(port),
		N8N_PROTOCOL: 'http',
		N8N_WEBHOOK_URL: `${base}/`,
		N8N_EDITOR_BASE_URL: `${base}/`,
		N8N_ENCRYPTION_KEY: 'messaging-relay-demo-key',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		...disabledModules,
		N8N_RUNNERS_BROKER_PORT: String(port + 1),
		N8N_SECURE_COOKIE: 'false',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_USE_WORKFLOW_PUBLICATION_SERVICE: 'false',
		N8N_PUBLIC_API_SWAGGERUI_DISABLED: 'true',
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
		N8N_LOG_OUTPUT: 'console',
		NODE_ENV: 'production',
		// Sessions in this workplace must not reach the internet.
		N8N_HIRING_BANNER_ENABLED: 'false',
		EXTERNAL_FRONTEND_HOOKS_URLS: '',
		N8N_DIAGNOSTICS_CONFIG_FRONTEND: '',
		N8N_DIAGNOSTICS_CONFIG_BACKEND: '',
	});
}

/** `n8n start` with Node 24, its output appended to `logFile`. */
export function startN8n(
	node24: Node24,
	n8n: N8nInstall,
	env: Record<string, string>,
	logFile: string,
): ChildProcess {
	const child = spawn(node24.nodeBin, [n8n.bin, 'start'], {
		env,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const log = createWriteStream(logFile, { flags: 'a' });
	child.stdout?.pipe(log);
	child.stderr?.pipe(log);
	return child;
}

/**
 * Whether n8n at `n8nUrl` serves what the stack uses: /healthz/readiness, and the REST API. n8n
 * 1.123 answers /healthz/readiness 200 before it has mounted its REST routes (they answer 404 for
 * a moment after), so GET /rest/settings (no login needed) must answer too.
 */
export async function n8nServes(n8nUrl: string): Promise<boolean> {
	if (!(await fetch(`${n8nUrl}/healthz/readiness`)).ok) return false;
	return (await fetch(`${n8nUrl}/rest/settings`)).ok;
}

/** Waits until n8n at `n8nUrl` serves (n8nServes); fails at once if the process exits first. */
export async function n8nReady(
	n8nUrl: string,
	child: ChildProcess,
	logFile: string,
	timeoutMs = 600_000,
): Promise<void> {
	const exited = new Promise<never>((_, reject) =>
		child.once('exit', (code) =>
			reject(new Error(`n8n exited with code ${code} during start; see ${logFile}`)),
		),
	);
	await Promise.race([
		waitUntil(
			'n8n to answer /healthz/readiness and /rest/settings',
			async () => await n8nServes(n8nUrl),
			{
				timeoutMs,
				ignoreErrors: true,
			},
		),
		exited,
	]);
}
