'use strict';
/**
 * Brings up the real thing: the relay simulator (or a real account), a pinned n8n on loopback
 * with this package installed the way n8n installs a community package, an owner account, an
 * API key, Messaging Relay credentials, and the example workflows imported and published.
 * Used by the main-job command (scripts/n8n-up.js) and by the end-to-end tests.
 */
const { spawn, spawnSync } = require('node:child_process');
const { createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, resolve } = require('node:path');

const { balancerArgs, balancerConfig, ensureHaproxy } = require('./balancer');
const { cleanEnv, ensureN8n, ensureNode24, node24Env, run, say } = require('./runtime');

const repoRoot = resolve(__dirname, '..', '..');
const OWNER = { email: 'owner@example.com', firstName: 'Demo', lastName: 'Owner', password: 'Relay-demo-2026' };
const PACKAGE = 'n8n-nodes-messaging-relay';

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, check, { timeoutMs = 120_000, intervalMs = 250 } = {}) {
	const started = Date.now();
	let lastError;
	while (Date.now() - started < timeoutMs) {
		try {
			if (await check()) return;
		} catch (error) {
			lastError = error;
		}
		await wait(intervalMs);
	}
	throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${lastError.message}` : ''}`);
}

/** Builds the package and packs it, as `npm publish` would ship it. Returns the tarball path. */
function buildAndPack(outDir) {
	say('building the package (tsc, gulp build:icons)');
	run('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
	const packed = spawnSync('npm', ['pack', '--silent', '--pack-destination', outDir], { cwd: repoRoot, encoding: 'utf8' });
	if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
	const name = readdirSync(outDir).find((f) => f.startsWith(PACKAGE) && f.endsWith('.tgz'));
	return join(outDir, name);
}

/**
 * Installs the tarball under <userFolder>/.n8n/nodes like n8n's community package installer:
 * no devDependencies, no peer dependencies (n8n-workflow and zod then resolve to n8n's own
 * copies), no scripts.
 */
function installIntoUserFolder(tarball, userFolder) {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	mkdirSync(nodesDir, { recursive: true });
	writeFileSync(join(nodesDir, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true }));
	say(`installing ${tarball.split('/').pop()} into ${nodesDir}`);
	run('npm', ['install', tarball, '--omit=dev', '--omit=peer', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
		cwd: nodesDir,
		env: cleanEnv(),
	});
	return nodesDir;
}

function startSimulator(port, logFile) {
	const child = spawn(process.execPath, [join(repoRoot, 'test', 'fixtures', 'relay-simulator.js'), String(port)], {
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const log = createWriteStream(logFile);
	child.stdout.pipe(log);
	child.stderr.pipe(log);
	return child;
}

function n8nEnvironment(node24, { userFolder, port }) {
	const base = `http://127.0.0.1:${port}`;
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
		N8N_DISABLED_MODULES: 'mcp-registry',
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

function startN8n(node24, n8n, env, logFile) {
	const child = spawn(node24.nodeBin, [n8n.bin, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
	const log = createWriteStream(logFile);
	child.stdout.pipe(log);
	child.stderr.pipe(log);
	return child;
}

/** A small REST client for n8n's internal API (cookie) and public API (API key). */
class N8nClient {
	constructor(baseUrl) {
		this.baseUrl = baseUrl;
		this.cookie = '';
		this.apiKey = '';
	}

	async rest(method, path, body) {
		const response = await fetch(`${this.baseUrl}/rest${path}`, {
			method,
			headers: { 'content-type': 'application/json', cookie: this.cookie, 'browser-id': 'relay-stack' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const setCookie = response.headers.get('set-cookie');
		if (setCookie) this.cookie = setCookie.split(';')[0];
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} /rest${path} → ${response.status}: ${text.slice(0, 300)}`);
		const json = text ? JSON.parse(text) : {};
		return json.data ?? json;
	}

	async api(method, path, body) {
		const response = await fetch(`${this.baseUrl}/api/v1${path}`, {
			method,
			headers: { 'content-type': 'application/json', 'X-N8N-API-KEY': this.apiKey },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} /api/v1${path} → ${response.status}: ${text.slice(0, 300)}`);
		return text ? JSON.parse(text) : {};
	}

	async setupOwner() {
		await this.rest('POST', '/owner/setup', OWNER);
		await this.rest('POST', '/login', { emailOrLdapLoginId: OWNER.email, password: OWNER.password });
	}

	async createApiKey() {
		const scopes = await this.rest('GET', '/api-keys/scopes');
		const created = await this.rest('POST', '/api-keys', { label: 'relay-stack', scopes, expiresAt: null });
		this.apiKey = created.rawApiKey;
		return this.apiKey;
	}

	async createCredential(name, data) {
		return await this.api('POST', '/credentials', { name, type: 'messagingRelayApi', data });
	}

	/** Imports a workflow JSON with every Messaging Relay credential pointed at `credential`. */
	async importWorkflow(workflow, credential) {
		const nodes = workflow.nodes.map((node) =>
			node.credentials?.messagingRelayApi
				? { ...node, credentials: { messagingRelayApi: { id: credential.id, name: credential.name } } }
				: node,
		);
		return await this.api('POST', '/workflows', {
			name: workflow.name,
			nodes,
			connections: workflow.connections,
			settings: workflow.settings ?? {},
		});
	}

	async publish(id) {
		return await this.api('POST', `/workflows/${id}/activate`);
	}

	async unpublish(id) {
		return await this.api('POST', `/workflows/${id}/deactivate`);
	}
}

function readExample(name) {
	return JSON.parse(readFileSync(join(repoRoot, 'examples', name), 'utf8'));
}

/**
 * Starts everything. Options: n8nPort (5678), simPort (5680), userFolder (fresh temp dir),
 * account ({ baseUrl, apiKey } of a real account; the simulator otherwise), examples (true),
 * balancerPort (none: when set, a readiness-gated HAProxy in front of n8n listens there, see
 * balancer.js; n8n still registers its own URL, a caller sends through the balancer itself).
 */
async function startStack(options = {}) {
	const n8nPort = options.n8nPort ?? 5678;
	const simPort = options.simPort ?? 5680;
	const workDir = options.userFolder ?? mkdtempSync(join(tmpdir(), 'relay-n8n-'));
	const children = [];
	// Whatever happens to this process, n8n and the simulator do not outlive it.
	process.once('exit', () => {
		for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
	});

	const node24 = ensureNode24();
	const n8n = ensureN8n(node24);
	const tarball = buildAndPack(mkdtempSync(join(tmpdir(), 'relay-pack-')));
	installIntoUserFolder(tarball, workDir);

	let simUrl;
	if (!options.account) {
		simUrl = `http://127.0.0.1:${simPort}`;
		say(`starting the relay simulator on ${simUrl}`);
		children.push(startSimulator(simPort, join(workDir, 'simulator.log')));
		await waitFor('the relay simulator', async () => (await fetch(`${simUrl}/__sim/state`)).ok, { timeoutMs: 15_000 });
	}

	const n8nUrl = `http://127.0.0.1:${n8nPort}`;
	const env = n8nEnvironment(node24, { userFolder: workDir, port: n8nPort });
	const logFile = join(workDir, 'n8n.log');
	say(`starting n8n on ${n8nUrl} (log: ${logFile})`);
	const n8nProcess = startN8n(node24, n8n, env, logFile);
	children.push(n8nProcess);
	const exited = new Promise((resolveExit) => n8nProcess.once('exit', (code) => resolveExit(code)));
	await Promise.race([
		waitFor('n8n to answer /healthz/readiness', async () => (await fetch(`${n8nUrl}/healthz/readiness`)).ok, {
			timeoutMs: 600_000,
		}),
		exited.then((code) => {
			throw new Error(`n8n exited with code ${code} during start; see ${logFile}`);
		}),
	]);

	let balancerUrl;
	if (options.balancerPort) {
		const config = join(workDir, 'haproxy.cfg');
		writeFileSync(config, balancerConfig({ listenPort: options.balancerPort, backendPort: n8nPort }));
		balancerUrl = `http://127.0.0.1:${options.balancerPort}`;
		say(`starting HAProxy on ${balancerUrl} in front of n8n (routes only while n8n is ready)`);
		const balancer = spawn(ensureHaproxy(), balancerArgs(config), { stdio: ['ignore', 'pipe', 'pipe'] });
		const balancerLog = createWriteStream(join(workDir, 'balancer.log'));
		balancer.stdout.pipe(balancerLog);
		balancer.stderr.pipe(balancerLog);
		children.push(balancer);
		await waitFor('HAProxy to route to n8n', async () => (await fetch(`${balancerUrl}/healthz/readiness`)).ok, { timeoutMs: 30_000 });
	}

	say('creating the owner account and an API key');
	const client = new N8nClient(n8nUrl);
	await client.setupOwner();
	await client.createApiKey();

	const account = options.account ?? { baseUrl: simUrl, apiKey: 'sim-key-full' };
	const credentials = {
		main: await client.createCredential('Messaging Relay account', {
			baseUrl: account.baseUrl,
			apiKey: account.apiKey,
			authHeader: 'xApiKey',
		}),
	};
	const workflows = {};
	if (options.examples !== false) {
		say('importing and publishing the example workflows');
		workflows.autoReply = await client.importWorkflow(readExample('auto-reply.json'), credentials.main);
		await client.publish(workflows.autoReply.id);
		// Both triggers on the same account and credential: they share its one webhook
		// (docs/shared-webhook.md), each receives the events it selects.
		workflows.disconnectAlert = await client.importWorkflow(readExample('disconnect-alert.json'), credentials.main);
		await client.publish(workflows.disconnectAlert.id);
	}

	let stopped = false;
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		for (const child of children.reverse()) {
			if (child.exitCode !== null) continue;
			child.kill('SIGTERM');
			await Promise.race([new Promise((r) => child.once('exit', r)), wait(10_000)]);
			if (child.exitCode === null) child.kill('SIGKILL');
		}
		if (!options.userFolder && !options.keepUserFolder) rmSync(workDir, { recursive: true, force: true });
	};

	return {
		n8nUrl,
		simUrl,
		balancerUrl,
		userFolder: workDir,
		logFile,
		env,
		n8nBin: n8n.bin,
		nodeBin: node24.nodeBin,
		n8nPid: n8nProcess.pid,
		owner: OWNER,
		apiKey: client.apiKey,
		cookie: client.cookie,
		credentials,
		workflows,
		client,
		stop,
	};
}

module.exports = {
	startStack,
	startN8n,
	startSimulator,
	buildAndPack,
	installIntoUserFolder,
	n8nEnvironment,
	readExample,
	N8nClient,
	waitFor,
	OWNER,
	repoRoot,
};
