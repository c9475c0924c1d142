/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, @n8n/community-nodes/require-node-api-error -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * n8n in queue mode on this machine, for the queue-mode end-to-end suite (test/e2e-queue) and
 * the benchmark's section 5:
 *   - Postgres and Redis (services.ts);
 *   - `n8n start` (main: editor, API, activation; production webhooks switched off there),
 *     one `n8n webhook` process and two `n8n worker`s, all with EXECUTIONS_MODE=queue, the same
 *     database, Redis and encryption key, and this package installed as a community package in
 *     each one's own user folder;
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
 * Every long-running process runs in its own process group (processGroups.ts), so a test can
 * restart one from any jest process: the state file (state.ts) holds how to start each one
 * again. stop() ends them all and removes the temporary folder; a detached reaper (reaper.ts)
 * does the same if the process that started the deployment dies first.
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
 *   - N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED: @n8n/config/dist/configs/executions.config.js:91-98,
 *     bull's removeOnComplete in n8n/dist/scaling/scaling.service.js:289
 *   - OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS is read straight from process.env:
 *     n8n/dist/workflow-runner.js:307-309
 *   - community packages: every command that sets needsCommunityPackages (start.js:63,
 *     webhook.js:29, worker.js:52) loads what its own <N8N_USER_FOLDER>/.n8n/nodes/node_modules
 *     holds (modules/community-packages/community-packages.module.js:38-48, through
 *     @n8n/backend-common/dist/modules/module-registry.js:117-119 and
 *     load-nodes-and-credentials.js:156-162); the database's installed_packages table only
 *     drives reinstalling (community-packages.service.js:242-265, off here).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { N8nClient } from '../../n8nClient';
import { waitUntil } from '../../waitUntil';
import { balancerArgs, balancerConfig } from '../balancer';
import { n8nEnvironment } from '../n8nProcess';
import { buildAndPack, installIntoUserFolder } from '../packageInstall';
import { provision } from '../provision';
import { ensureN8n, ensureNode24, say, type N8nInstall, type Node24 } from '../runtime';
import { compiledProgram } from '../tools';
import { signalGroup, startProcess, stopGroup } from './processGroups';
import { defaultPorts, requireFreePorts, type Ports } from './ports';
import {
	DB_NAME,
	DB_USER,
	ensureQueueServices,
	startPostgres,
	startRedis,
	unprivilegedIds,
} from './services';
import {
	balancerSocket,
	loadState,
	saveState,
	serviceSpec,
	type ProcessSpec,
	type QueueState,
} from './state';

export interface QueueOptions {
	ports?: Ports;
	/** Extra environment for every n8n process. */
	env?: Record<string, string>;
	/** Workers (2). */
	workers?: number;
	/** Each worker's --concurrency (10, n8n's default). */
	workerConcurrency?: number;
	/** The auto-reply and the disconnect alert, both on acct_main (true). */
	examples?: boolean;
	/** Parameters set on the examples' triggers (provision.ts), e.g. the soak's `acknowledge`. */
	exampleTriggerParameters?: Record<string, string>;
	/** Keep the temporary folder after stop(). */
	keepFolder?: boolean;
	/** Webhook processes behind the balancer, which sends each request to the next (1; 2: `webhook2`). */
	webhookProcesses?: 1 | 2;
}

/** The environment every n8n process of the deployment shares, plus what is its own. */
function queueEnvironment(
	node24: Node24,
	state: QueueState,
	own: { userFolder: string; port?: number; brokerPort: number; extra?: Record<string, string> },
) {
	const { postgres, redis, ports } = state as Required<QueueState>;
	return {
		...n8nEnvironment(node24, { userFolder: own.userFolder, port: own.port ?? ports.main }),
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: DB_NAME,
		DB_POSTGRESDB_USER: DB_USER,
		DB_POSTGRESDB_PASSWORD: '',
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		// The service delivers to the webhook process, and only there: main answers no production webhook.
		N8N_WEBHOOK_URL: `http://127.0.0.1:${ports.webhook}/`,
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${ports.main}/`,
		N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		N8N_RUNNERS_BROKER_PORT: String(own.brokerPort),
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL ?? 'info',
		// Finished jobs stay in Redis: with n8n's default (0) a job a worker finishes before the
		// webhook process waits for it leaves that request unanswered for good, and "When the
		// Workflow Finishes" then times out (docs/scaling.md, "n8n's races"). QUEUE_KEEP_LAST_COMPLETED=0
		// runs the suite as n8n ships.
		N8N_EXECUTIONS_QUEUE_KEEP_LAST_COMPLETED: process.env.QUEUE_KEEP_LAST_COMPLETED ?? '1000',
		...state.env,
		...own.extra,
	};
}

function n8nSpec(
	node24: Node24,
	n8n: N8nInstall,
	state: QueueState,
	own: {
		name: string;
		args: string[];
		userFolder: string;
		port?: number;
		brokerPort: number;
		healthUrl: string;
		extra?: Record<string, string>;
	},
): ProcessSpec {
	return {
		name: own.name,
		command: node24.nodeBin,
		args: [n8n.bin, ...own.args],
		env: queueEnvironment(node24, state, own),
		cwd: own.userFolder,
		logFile: join(state.workDir, `${own.name}.log`),
		healthUrl: own.healthUrl,
	};
}

/** The specs of main, the webhook process and the workers. */
function n8nSpecs(
	node24: Node24,
	n8n: N8nInstall,
	state: QueueState,
	userFolder: (name: string) => string,
	options: QueueOptions,
) {
	const { ports } = state;
	const specs: Record<string, ProcessSpec> = {
		main: n8nSpec(node24, n8n, state, {
			name: 'main',
			args: ['start'],
			userFolder: userFolder('main'),
			port: ports.main,
			brokerPort: ports.main + 1,
			healthUrl: `${state.mainUrl}/healthz/readiness`,
		}),
		webhook: n8nSpec(node24, n8n, state, {
			name: 'webhook',
			args: ['webhook'],
			userFolder: userFolder('webhook'),
			port: ports.webhookProcess,
			brokerPort: ports.webhookProcess + 1,
			healthUrl: `${state.webhookProcessUrl}/healthz/readiness`,
		}),
	};
	if (options.webhookProcesses === 2) {
		specs.webhook2 = n8nSpec(node24, n8n, state, {
			name: 'webhook2',
			args: ['webhook'],
			userFolder: userFolder('webhook2'),
			port: ports.webhookProcess2,
			brokerPort: ports.webhookProcess2 + 1,
			healthUrl: `http://127.0.0.1:${ports.webhookProcess2}/healthz/readiness`,
		});
	}
	for (let i = 0; i < (options.workers ?? 2); i++) {
		const health = ports.workerHealth[i];
		specs[`worker${i + 1}`] = n8nSpec(node24, n8n, state, {
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
	return specs;
}

/** Starts the named processes from the state file and takes their pids back into `state`. */
async function startAll(state: QueueState, names: string[]): Promise<void> {
	await Promise.all(names.map((name) => startProcess(state.stateFile, name)));
	Object.assign(state, loadState(state.stateFile));
}

/** Stops everything (n8n first: it drains and writes to the database) and removes the folder unless kept. */
function stopper(state: QueueState, keepFolder: boolean) {
	let stopped = false;
	const current = () => (existsSync(state.stateFile) ? loadState(state.stateFile) : state);
	const stop = async () => {
		if (stopped) return;
		stopped = true;
		const now = current();
		const workers = Object.keys(now.processes).filter((n) => n.startsWith('worker'));
		for (const name of [
			'balancer',
			'webhook',
			'webhook2',
			...workers,
			'main',
			'simulator',
			'redis',
			'postgres',
		]) {
			// Postgres: SIGINT is its fast shutdown (SIGTERM waits for every client to leave).
			await stopGroup(now.processes[name]?.pid, {
				signal: name === 'postgres' ? 'SIGINT' : 'SIGTERM',
				graceMs: 40_000,
			});
		}
		saveState({ ...now, stopped: true });
		if (!keepFolder) rmSync(state.workDir, { recursive: true, force: true });
	};
	// Whatever ends this process, nothing of the deployment outlives it (the reaper covers SIGKILL).
	process.once('exit', () => {
		if (stopped) return;
		for (const proc of Object.values(current().processes))
			if (proc.pid) signalGroup(proc.pid, 'SIGKILL');
		if (!keepFolder) rmSync(state.workDir, { recursive: true, force: true });
	});
	return stop;
}

/** Starts the whole deployment. Returns its state (also in state.stateFile) and stop(). */
export async function startQueueStack(
	options: QueueOptions = {},
): Promise<{ state: QueueState; stop: () => Promise<void> }> {
	const ports = options.ports ?? defaultPorts();
	const workerCount = options.workers ?? 2;
	const webhookProcesses = options.webhookProcesses ?? 1;
	await requireFreePorts(ports, workerCount, webhookProcesses);
	const services = ensureQueueServices();
	const node24 = ensureNode24();
	const n8n = ensureN8n(node24);
	const ids = unprivilegedIds();

	const workDir = mkdtempSync(join(tmpdir(), 'relay-queue-'));
	// Postgres (as relaytest) must be able to reach its folder inside.
	if (ids.uid !== undefined) spawnSync('chmod', ['755', workDir]);
	const state: QueueState = {
		stateFile: join(workDir, 'state.json'),
		workDir,
		ports,
		env: options.env ?? {},
		processes: {},
		startedAt: new Date().toISOString(),
	};
	saveState(state);
	const reaper = spawn(
		process.execPath,
		[compiledProgram('test/support/stack/queue/reaper.ts'), state.stateFile, String(process.pid)],
		{
			detached: true,
			stdio: 'ignore',
		},
	);
	reaper.unref();
	const stop = stopper(state, options.keepFolder ?? false);

	try {
		await startPostgres(state, services, ids);
		await startRedis(state, services, ids);

		// One install, copied into each process's own user folder: each n8n keeps its own
		// crash journal, event log and settings there, as separate hosts would.
		const template = join(workDir, 'package-install');
		installIntoUserFolder(buildAndPack(mkdtempSync(join(workDir, 'pack-'))), template);
		const userFolder = (name: string) => {
			const folder = join(workDir, name);
			cpSync(join(template, '.n8n'), join(folder, '.n8n'), { recursive: true });
			return folder;
		};

		state.simUrl = `http://127.0.0.1:${ports.simulator}`;
		say(`starting the relay simulator on ${state.simUrl}`);
		state.processes.simulator = serviceSpec(
			state,
			'simulator',
			process.execPath,
			[compiledProgram('test/simulator/main.ts'), String(ports.simulator)],
			{
				healthUrl: `${state.simUrl}/__sim/state`,
			},
		);
		saveState(state);
		await startAll(state, ['simulator']);

		state.mainUrl = `http://127.0.0.1:${ports.main}`;
		// Where the service delivers: the balancer (N8N_WEBHOOK_URL points there too).
		state.webhookUrl = `http://127.0.0.1:${ports.webhook}`;
		state.webhookProcessUrl = `http://127.0.0.1:${ports.webhookProcess}`;
		Object.assign(state.processes, n8nSpecs(node24, n8n, state, userFolder, options));
		saveState(state);

		// Main first: it runs the database migrations the others wait for.
		say(`starting n8n main on ${state.mainUrl} (logs in ${workDir})`);
		await startAll(state, ['main']);
		const webhookNames = webhookProcesses === 2 ? ['webhook', 'webhook2'] : ['webhook'];
		say(
			`starting ${webhookNames.length} n8n webhook process(es) from ${state.webhookProcessUrl} and ${workerCount} workers`,
		);
		await startAll(state, [
			...webhookNames,
			...Array.from({ length: workerCount }, (_, i) => `worker${i + 1}`),
		]);

		say(
			`starting HAProxy on ${state.webhookUrl} in front of the webhook process(es) (deliveries go there)`,
		);
		const config = join(workDir, 'haproxy.cfg');
		const backendPorts =
			webhookProcesses === 2 ? [ports.webhookProcess, ports.webhookProcess2] : undefined;
		writeFileSync(
			config,
			balancerConfig({
				listenPort: ports.webhook,
				backendPort: ports.webhookProcess,
				backendPorts,
				adminSocket: balancerSocket(workDir),
			}),
		);
		state.processes.balancer = serviceSpec(
			state,
			'balancer',
			services.haproxy,
			balancerArgs(config),
			{ healthUrl: `${state.webhookUrl}/__balancer/alive` },
		);
		saveState(state);
		await startAll(state, ['balancer']);
		// The balancer's first readiness check must have passed before anything is published.
		await waitUntil(
			'the balancer to route to the webhook process',
			async () => (await fetch(`${state.webhookUrl}/healthz/readiness`)).ok,
			{
				timeoutMs: 30_000,
				ignoreErrors: true,
			},
		);

		Object.assign(
			state,
			await provision(
				new N8nClient(state.mainUrl),
				{ baseUrl: state.simUrl, apiKey: 'sim-key-full' },
				{ examples: options.examples, triggerParameters: options.exampleTriggerParameters },
			),
		);
		saveState(state);
	} catch (error) {
		await stop();
		throw error;
	}
	return { state, stop };
}
