'use strict';
/**
 * n8n in queue mode on this machine, for the queue-mode end-to-end suite (test/e2e-queue):
 *   - Postgres and Redis from Debian's packages (installed with apt-get when missing), started
 *     as an unprivileged user in a temporary folder on free loopback ports;
 *   - `n8n start` (main: editor, API, activation; production webhooks switched off there),
 *     one `n8n webhook` process and two `n8n worker`s, all with
 *     EXECUTIONS_MODE=queue, the same database, Redis and encryption key, and this package
 *     installed as a community package in each one's own user folder;
 *   - HAProxy from Debian in front of the webhook process, where the service delivers (the
 *     registered URLs point at it): it sends a request to a webhook process only while that
 *     process's /healthz/readiness answers 200, as a production load balancer must. n8n
 *     listens before its webhooks exist and answers every request with 200 "n8n is starting up.
 *     Please wait" until its database migrations are done (n8n/dist/abstract-server.js:108-113,
 *     listen at :152; webhook routes in start() :158-166; readiness 200 only after
 *     markAsReady(), commands/webhook.js:78-79): a delivery sent straight to a starting
 *     process is acknowledged and never runs. Without the balancer the soak lost 7 of 5,000
 *     deliveries that way, and a delivery with a wrong secret got that 200 as well;
 *   - the relay simulator, an owner, an API key, credentials and the example workflows.
 *
 * Every long-running process gets its own process group (detached) and its log file as
 * stdout/stderr, so a test can restart one from any jest process: the state file holds how
 * to start each one again. stop() ends them all and removes the temporary folder; a detached
 * reaper (queueReaper.js) does the same if the process that started the stack dies first.
 *
 * Where n8n reads what (n8n 2.41.1, node_modules/...):
 *   - EXECUTIONS_MODE: @n8n/config/dist/configs/executions.config.js:128
 *   - QUEUE_BULL_REDIS_HOST / _PORT: @n8n/config/dist/configs/scaling-mode.config.js:101, :109;
 *     QUEUE_BULL_PREFIX (default "bull"): :196
 *   - QUEUE_HEALTH_CHECK_ACTIVE / _PORT, N8N_WORKER_SERVER_ADDRESS (worker's /healthz and
 *     /healthz/readiness): scaling-mode.config.js:45-53, n8n/dist/scaling/worker-server.js:107-116
 *   - DB_TYPE, DB_POSTGRESDB_*: @n8n/config/dist/configs/database.config.js:205, :90-114
 *   - N8N_RUNNERS_BROKER_PORT (the task-runner broker of `start` and `worker`, one port each):
 *     @n8n/config/dist/configs/runners.config.js:50; n8n/dist/commands/start.js:65, worker.js:54
 *   - N8N_DISABLE_PRODUCTION_MAIN_PROCESS: @n8n/config/dist/configs/endpoints.config.js:286,
 *     n8n/dist/server.js:133
 *   - OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS is read straight from process.env:
 *     n8n/dist/workflow-runner.js:307-309
 *   - community packages: every command that sets needsCommunityPackages (start.js:63,
 *     webhook.js:29, worker.js:52) loads what its own <N8N_USER_FOLDER>/.n8n/nodes/node_modules
 *     holds (modules/community-packages/community-packages.module.js:38-48, through
 *     @n8n/backend-common/dist/modules/module-registry.js:117-119 and
 *     load-nodes-and-credentials.js:156-162); the database's installed_packages table only
 *     drives reinstalling (community-packages.service.js:242-265, off here).
 */
const { spawn, spawnSync } = require('node:child_process');
const { chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const { HAPROXY, balancerArgs, balancerConfig } = require('./balancer');
const { aptInstall, ensureN8n, ensureNode24, run, say } = require('./runtime');
const { buildAndPack, installIntoUserFolder, n8nEnvironment, readExample, N8nClient, waitFor, OWNER, repoRoot } = require('./stack');

const UNPRIVILEGED_USER = 'relaytest';
const DB_NAME = 'n8n';
const DB_USER = 'n8n';

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Ports: E2E_QUEUE_PORT_BASE (5810) + offsets; Postgres and Redis take any free loopback port.
 * `webhook` is the address deliveries go to (the balancer), `webhookProcess` the n8n webhook
 * process behind it.
 */
function defaultPorts(base = Number(process.env.E2E_QUEUE_PORT_BASE ?? 5810)) {
	return {
		main: base,
		webhook: base + 10,
		webhookProcess: base + 12,
		workerHealth: [base + 20, base + 25],
		simulator: base + 30,
	};
}

async function portIsFree(port) {
	return await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

async function freePort() {
	return await new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

async function requireFreePorts(ports) {
	for (const [what, port] of ports) {
		if (!(await portIsFree(port))) {
			throw new Error(`Port ${port} (${what}) is in use on 127.0.0.1: stop what holds it or set E2E_QUEUE_PORT_BASE`);
		}
	}
}

/** The newest Postgres server binaries Debian installed (/usr/lib/postgresql/<version>/bin). */
function findPostgresBin() {
	const root = '/usr/lib/postgresql';
	if (!existsSync(root)) return undefined;
	const versions = readdirSync(root)
		.filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? join(root, versions[0], 'bin') : undefined;
}

const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';

function isRoot() {
	return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** Debian's postgresql, redis-server and haproxy, installed when missing (without starting their system services). */
function ensureQueueServices() {
	const missing = [];
	if (!findPostgresBin()) missing.push('postgresql');
	if (!existsSync(REDIS_SERVER) || !existsSync(REDIS_CLI)) missing.push('redis-server');
	if (!existsSync(HAPROXY)) missing.push('haproxy');
	if (missing.length) aptInstall(missing);
	return { pgBin: findPostgresBin(), redisServer: REDIS_SERVER, redisCli: REDIS_CLI, haproxy: HAPROXY };
}

/** Postgres refuses to run as root: as root, the servers run as `relaytest` (created if missing). */
function unprivilegedIds() {
	if (!isRoot()) return {};
	const lookup = () => spawnSync('id', ['-u', UNPRIVILEGED_USER], { encoding: 'utf8' });
	if (lookup().status !== 0) {
		say(`creating the unprivileged user ${UNPRIVILEGED_USER} for Postgres and Redis`);
		run('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', UNPRIVILEGED_USER]);
	}
	const uid = Number(lookup().stdout.trim());
	const gid = Number(spawnSync('id', ['-g', UNPRIVILEGED_USER], { encoding: 'utf8' }).stdout.trim());
	return { uid, gid };
}

/** Writes the state file atomically, so the reaper and other jest processes never read half of it. */
function saveState(state) {
	const temp = `${state.stateFile}.tmp`;
	writeFileSync(temp, JSON.stringify(state, null, 2));
	renameSync(temp, state.stateFile);
}

function loadState(stateFile) {
	return JSON.parse(readFileSync(stateFile, 'utf8'));
}

/** Starts one process of the stack in its own process group, its output appended to its log. */
function launch(spec) {
	const out = openSync(spec.logFile, 'a');
	const child = spawn(spec.command, spec.args, {
		env: spec.env,
		cwd: spec.cwd,
		detached: true,
		stdio: ['ignore', out, out],
		...(spec.uid !== undefined ? { uid: spec.uid, gid: spec.gid } : {}),
	});
	closeSync(out);
	child.unref();
	return child.pid;
}

function alive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

/** Signals a whole process group (n8n and its task runner, Postgres and its backends). */
function signalGroup(pid, signal) {
	try {
		process.kill(-pid, signal);
	} catch {
		// Already gone.
	}
}

async function stopGroup(pid, { signal = 'SIGTERM', graceMs = 45_000, onSignalled } = {}) {
	if (!pid) return;
	signalGroup(pid, signal);
	onSignalled?.();
	const started = Date.now();
	while (alive(pid) && Date.now() - started < graceMs) await wait(100);
	signalGroup(pid, 'SIGKILL');
	while (alive(pid)) await wait(50);
}

async function waitForHealth(name, url, pid, logFile, timeoutMs = 600_000) {
	await waitFor(
		`${name} to answer ${url}`,
		async () => {
			if (!alive(pid)) throw new Error(`${name} exited during start; see ${logFile}`);
			return (await fetch(url)).ok;
		},
		{ timeoutMs, intervalMs: 300 },
	);
	if (!alive(pid)) throw new Error(`${name} exited during start; see ${logFile}`);
}

/**
 * Starts (again) the named process from its spec in the state file and waits until it is
 * healthy. Returns its new pid; the state file is updated.
 */
async function startProcess(stateFile, name) {
	const state = loadState(stateFile);
	const spec = state.processes[name];
	spec.pid = launch(spec);
	spec.starts = (spec.starts ?? 0) + 1;
	saveState(state);
	if (spec.healthUrl) await waitForHealth(name, spec.healthUrl, spec.pid, spec.logFile);
	return spec.pid;
}

/** Stops the named process as a host would (SIGTERM to its group, SIGKILL after the grace time). */
async function stopProcess(stateFile, name, options) {
	const state = loadState(stateFile);
	await stopGroup(state.processes[name].pid, options);
}

/**
 * Stops the named process and starts it again on the same folders, ports and database.
 * Options: those of stopGroup, and onStopped, called once it has exited (before the new start).
 */
async function restartProcess(stateFile, name, options = {}) {
	await stopProcess(stateFile, name, options);
	options.onStopped?.();
	return await startProcess(stateFile, name);
}

/** Resident memory in MiB of a process and of its whole process group (n8n plus its task runner). */
function memoryMb(pid) {
	const rssKb = (p) => {
		try {
			return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
		} catch {
			return 0;
		}
	};
	let group = 0;
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			// Fields after the parenthesised command name: state, ppid, pgrp, ...
			const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
			if (pgrp === pid) group += rssKb(entry);
		} catch {
			// The process ended while we looked.
		}
	}
	return { rssMb: Math.round(rssKb(pid) / 1024), groupRssMb: Math.round(group / 1024) };
}

/** Runs SQL in the stack's database; returns the rows, columns split by `|`. */
function psql(stateFile, sql) {
	const { postgres } = loadState(stateFile);
	const result = spawnSync(
		join(postgres.bin, 'psql'),
		['-h', '127.0.0.1', '-p', String(postgres.port), '-U', DB_USER, '-d', DB_NAME, '-At', '-F', '|', '-v', 'ON_ERROR_STOP=1', '-c', sql],
		{ encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
	);
	if (result.status !== 0) throw new Error(`psql failed: ${result.stderr}`);
	return result.stdout
		.split('\n')
		.filter((line) => line !== '')
		.map((line) => line.split('|'));
}

/** Runs a redis-cli command against the stack's Redis; returns its output. */
function redisCli(stateFile, args) {
	const { redis } = loadState(stateFile);
	const result = spawnSync(redis.cli, ['-h', '127.0.0.1', '-p', String(redis.port), ...args], { encoding: 'utf8' });
	if (result.status !== 0) throw new Error(`redis-cli failed: ${result.stderr}`);
	return result.stdout.trim();
}

async function startPostgres(state, services, ids) {
	const dir = join(state.workDir, 'postgres');
	const data = join(dir, 'data');
	mkdirSync(dir, { recursive: true });
	if (ids.uid !== undefined) chownSync(dir, ids.uid, ids.gid);
	const port = await freePort();
	const asUser = ids.uid !== undefined ? { uid: ids.uid, gid: ids.gid } : {};
	say(`initialising Postgres in ${data}`);
	const init = spawnSync(join(services.pgBin, 'initdb'), ['-D', data, '-U', DB_USER, '-A', 'trust', '-E', 'UTF8', '--no-locale'], {
		encoding: 'utf8',
		cwd: dir,
		...asUser,
	});
	if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
	const spec = {
		name: 'postgres',
		command: join(services.pgBin, 'postgres'),
		// A throwaway database for tests: durability settings off, loopback only.
		args: ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`,
			'-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
		env: { PATH: process.env.PATH, LANG: 'C' },
		cwd: dir,
		logFile: join(state.workDir, 'postgres.log'),
		...asUser,
	};
	state.processes.postgres = spec;
	state.postgres = { port, bin: services.pgBin };
	spec.pid = launch(spec);
	saveState(state);
	say(`starting Postgres on 127.0.0.1:${port}`);
	await waitFor(
		'Postgres to accept connections',
		async () => spawnSync(join(services.pgBin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q']).status === 0,
		{ timeoutMs: 60_000 },
	);
	const created = spawnSync(join(services.pgBin, 'createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', DB_USER, DB_NAME], {
		encoding: 'utf8',
	});
	if (created.status !== 0) throw new Error(`createdb failed: ${created.stderr}`);
}

async function startRedis(state, services, ids) {
	const dir = join(state.workDir, 'redis');
	mkdirSync(dir, { recursive: true });
	if (ids.uid !== undefined) chownSync(dir, ids.uid, ids.gid);
	const port = await freePort();
	const spec = {
		name: 'redis',
		command: services.redisServer,
		args: ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
		env: { PATH: process.env.PATH },
		cwd: dir,
		logFile: join(state.workDir, 'redis.log'),
		...(ids.uid !== undefined ? { uid: ids.uid, gid: ids.gid } : {}),
	};
	state.processes.redis = spec;
	state.redis = { port, cli: services.redisCli };
	spec.pid = launch(spec);
	saveState(state);
	say(`starting Redis on 127.0.0.1:${port}`);
	await waitFor('Redis to answer PING', async () => redisCli(state.stateFile, ['ping']) === 'PONG', { timeoutMs: 30_000 });
}

/** HAProxy in front of the webhook process (balancer.js says what it does and why). */
function startBalancer(state, services) {
	const config = join(state.workDir, 'haproxy.cfg');
	writeFileSync(config, balancerConfig({ listenPort: state.ports.webhook, backendPort: state.ports.webhookProcess }));
	state.processes.balancer = {
		name: 'balancer',
		command: services.haproxy,
		args: balancerArgs(config),
		env: { PATH: process.env.PATH },
		cwd: state.workDir,
		logFile: join(state.workDir, 'balancer.log'),
		healthUrl: `http://127.0.0.1:${state.ports.webhook}/__balancer/alive`,
	};
	saveState(state);
}

/** The environment every n8n process of the deployment shares, plus what is its own. */
function queueEnvironment(node24, state, own) {
	const webhookUrl = `http://127.0.0.1:${state.ports.webhook}/`;
	const base = n8nEnvironment(node24, { userFolder: own.userFolder, port: own.port ?? state.ports.main });
	return {
		...base,
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(state.postgres.port),
		DB_POSTGRESDB_DATABASE: DB_NAME,
		DB_POSTGRESDB_USER: DB_USER,
		DB_POSTGRESDB_PASSWORD: '',
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(state.redis.port),
		// The service delivers to the webhook process, and only there: main answers no production webhook.
		N8N_WEBHOOK_URL: webhookUrl,
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${state.ports.main}/`,
		N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		N8N_RUNNERS_BROKER_PORT: String(own.brokerPort),
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
		...state.env,
		...own.extra,
	};
}

function n8nSpec(node24, n8n, state, { name, args, userFolder, port, brokerPort, healthUrl, extra }) {
	return {
		name,
		command: node24.nodeBin,
		args: [n8n.bin, ...args],
		env: queueEnvironment(node24, state, { userFolder, port, brokerPort, extra }),
		cwd: userFolder,
		logFile: join(state.workDir, `${name}.log`),
		healthUrl,
	};
}

/**
 * Starts the whole deployment. Options: ports (defaultPorts()), env (extra environment for every
 * n8n process), workers (2), workerConcurrency (10, n8n's default), examples (true: the auto-reply and the disconnect alert, both on acct_main).
 * Returns the state (also saved in state.stateFile) and stop().
 */
async function startQueueStack(options = {}) {
	const ports = options.ports ?? defaultPorts();
	const workerCount = options.workers ?? 2;
	await requireFreePorts([
		['n8n main', ports.main],
		['n8n main task broker', ports.main + 1],
		['webhook balancer', ports.webhook],
		['n8n webhook process', ports.webhookProcess],
		['n8n webhook process task broker', ports.webhookProcess + 1],
		...ports.workerHealth.slice(0, workerCount).flatMap((p, i) => [
			[`worker ${i + 1} health`, p],
			[`worker ${i + 1} task broker`, p + 1],
		]),
		['relay simulator', ports.simulator],
	]);

	const services = ensureQueueServices();
	const node24 = ensureNode24();
	const n8n = ensureN8n(node24);
	const ids = unprivilegedIds();

	const workDir = mkdtempSync(join(tmpdir(), 'relay-queue-'));
	// Postgres (as relaytest) must be able to reach its folder inside.
	if (ids.uid !== undefined) spawnSync('chmod', ['755', workDir]);
	const state = { stateFile: join(workDir, 'state.json'), workDir, ports, env: options.env ?? {}, processes: {}, startedAt: new Date().toISOString() };
	saveState(state);
	const reaper = spawn(process.execPath, [join(__dirname, 'queueReaper.js'), state.stateFile, String(process.pid)], {
		detached: true,
		stdio: 'ignore',
	});
	reaper.unref();

	let stopped = false;
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		const current = existsSync(state.stateFile) ? loadState(state.stateFile) : state;
		// n8n first (it drains and writes to the database), then what it uses.
		const order = ['balancer', 'webhook', ...Object.keys(current.processes).filter((n) => n.startsWith('worker')), 'main', 'simulator', 'redis', 'postgres'];
		for (const name of order) {
			const proc = current.processes[name];
			if (!proc?.pid) continue;
			// Postgres: SIGINT is its fast shutdown (SIGTERM waits for every client to leave).
			await stopGroup(proc.pid, { signal: name === 'postgres' ? 'SIGINT' : 'SIGTERM', graceMs: 40_000 });
		}
		saveState({ ...current, stopped: true });
		if (!options.keepFolder) rmSync(workDir, { recursive: true, force: true });
	};
	// Whatever ends this process, nothing of the stack outlives it (the reaper covers SIGKILL).
	process.once('exit', () => {
		if (stopped) return;
		const current = existsSync(state.stateFile) ? loadState(state.stateFile) : state;
		for (const proc of Object.values(current.processes)) if (proc.pid) signalGroup(proc.pid, 'SIGKILL');
		if (!options.keepFolder) rmSync(workDir, { recursive: true, force: true });
	});

	try {
		await startPostgres(state, services, ids);
		await startRedis(state, services, ids);

		const tarball = buildAndPack(mkdtempSync(join(workDir, 'pack-')));
		// One install, copied into each process's own user folder: each n8n keeps its own
		// crash journal, event log and settings there, as separate hosts would.
		const template = join(workDir, 'package-install');
		installIntoUserFolder(tarball, template);
		const userFolder = (name) => {
			const folder = join(workDir, name);
			cpSync(join(template, '.n8n'), join(folder, '.n8n'), { recursive: true });
			return folder;
		};

		state.simUrl = `http://127.0.0.1:${ports.simulator}`;
		say(`starting the relay simulator on ${state.simUrl}`);
		state.processes.simulator = {
			name: 'simulator',
			command: process.execPath,
			args: [join(repoRoot, 'test', 'fixtures', 'relay-simulator.js'), String(ports.simulator)],
			env: { PATH: process.env.PATH },
			cwd: workDir,
			logFile: join(workDir, 'simulator.log'),
			healthUrl: `${state.simUrl}/__sim/state`,
		};
		saveState(state);
		await startProcess(state.stateFile, 'simulator');
		Object.assign(state, loadState(state.stateFile));

		state.mainUrl = `http://127.0.0.1:${ports.main}`;
		// Where the service delivers: the balancer (N8N_WEBHOOK_URL points there too).
		state.webhookUrl = `http://127.0.0.1:${ports.webhook}`;
		state.webhookProcessUrl = `http://127.0.0.1:${ports.webhookProcess}`;
		state.processes.main = n8nSpec(node24, n8n, state, {
			name: 'main',
			args: ['start'],
			userFolder: userFolder('main'),
			port: ports.main,
			brokerPort: ports.main + 1,
			healthUrl: `${state.mainUrl}/healthz/readiness`,
		});
		state.processes.webhook = n8nSpec(node24, n8n, state, {
			name: 'webhook',
			args: ['webhook'],
			userFolder: userFolder('webhook'),
			port: ports.webhookProcess,
			brokerPort: ports.webhookProcess + 1,
			healthUrl: `${state.webhookProcessUrl}/healthz/readiness`,
		});
		for (let i = 0; i < workerCount; i++) {
			const health = ports.workerHealth[i];
			state.processes[`worker${i + 1}`] = n8nSpec(node24, n8n, state, {
				name: `worker${i + 1}`,
				args: ['worker', `--concurrency=${options.workerConcurrency ?? 10}`],
				userFolder: userFolder(`worker${i + 1}`),
				brokerPort: health + 1,
				healthUrl: `http://127.0.0.1:${health}/healthz/readiness`,
				extra: {
					QUEUE_HEALTH_CHECK_ACTIVE: 'true',
					QUEUE_HEALTH_CHECK_PORT: String(health),
					N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
				},
			});
		}
		saveState(state);

		// Main first: it runs the database migrations the others wait for.
		say(`starting n8n main on ${state.mainUrl} (logs in ${workDir})`);
		await startProcess(state.stateFile, 'main');
		say(`starting the n8n webhook process on ${state.webhookProcessUrl} and ${workerCount} workers`);
		await Promise.all(['webhook', ...Array.from({ length: workerCount }, (_, i) => `worker${i + 1}`)].map((name) => startProcess(state.stateFile, name)));
		Object.assign(state, loadState(state.stateFile));
		say(`starting HAProxy on ${state.webhookUrl} in front of the webhook process (deliveries go there)`);
		startBalancer(state, services);
		await startProcess(state.stateFile, 'balancer');
		Object.assign(state, loadState(state.stateFile));
		// The balancer's first readiness check must have passed before anything is published.
		await waitFor('the balancer to route to the webhook process', async () => (await fetch(`${state.webhookUrl}/healthz/readiness`)).ok, {
			timeoutMs: 30_000,
		});

		say('creating the owner account, an API key and the credentials');
		const client = new N8nClient(state.mainUrl);
		await client.setupOwner();
		state.apiKey = await client.createApiKey();
		state.owner = OWNER;
		state.credentials = {
			main: await client.createCredential('Messaging Relay account', { baseUrl: state.simUrl, apiKey: 'sim-key-full', authHeader: 'xApiKey' }),
		};
		state.workflows = {};
		if (options.examples !== false) {
			say('importing and publishing the example workflows');
			state.workflows.autoReply = await client.importWorkflow(readExample('auto-reply.json'), state.credentials.main);
			await client.publish(state.workflows.autoReply.id);
			// Same account and credential: the two triggers share its one webhook (docs/shared-webhook.md).
			state.workflows.disconnectAlert = await client.importWorkflow(readExample('disconnect-alert.json'), state.credentials.main);
			await client.publish(state.workflows.disconnectAlert.id);
		}
		saveState(state);
	} catch (error) {
		await stop();
		throw error;
	}
	return { state, stop };
}

module.exports = {
	startQueueStack,
	startProcess,
	stopProcess,
	restartProcess,
	loadState,
	memoryMb,
	psql,
	redisCli,
	defaultPorts,
};
