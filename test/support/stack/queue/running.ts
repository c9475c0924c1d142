/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The running queue-mode deployment as the queue suite sees it (its globalSetup started it and
 * left the state file in RELAY_QUEUE_STACK): addresses and keys, restarting a process, its
 * memory, the executions in the database, what each process logged, and Bull's job counts.
 */
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';

import { memoryMb } from '../processes';
import { restartProcess } from './processGroups';
import { psql, psqlSession, redisCli } from './services';
import { balancerSocket, loadState, type QueueState } from './state';
import { waitUntil } from '../../waitUntil';

/** The deployment once started: every field set. */
export type Deployment = Required<Omit<QueueState, 'stopped'>>;

export interface ExecutionRow {
	id: string;
	workflowId: string;
	status: string;
	/** The `deliveryId` field the suite adds to each event body, from the trigger item; null when absent. */
	deliveryId: string | null;
	/** For a run that did not succeed: the first error-like text in its data. */
	problem: string | null;
}

function stateFile(): string {
	const file = process.env.RELAY_QUEUE_STACK;
	if (!file)
		throw new Error(
			'RELAY_QUEUE_STACK is not set: run this suite with test/e2e-queue/jest.config.js',
		);
	return file;
}

export const deployment = (): Deployment => loadState(stateFile()) as Deployment;

/** Runs SQL in the deployment's database; the rows, columns split. */
export const sql = (query: string): string[][] => psql(stateFile(), query);

/** A psql session that stays open (services.ts `psqlSession`). */
export const sqlSession = () => psqlSession(stateFile());

/** One command to HAProxy's runtime API (balancer.ts `adminSocket`); its answer. */
async function balancerCommand(command: string): Promise<string> {
	const socket = balancerSocket(deployment().workDir);
	return await new Promise<string>((resolve, reject) => {
		let answer = '';
		const connection = createConnection(socket);
		connection.setEncoding('utf8');
		connection.on('data', (chunk: string) => (answer += chunk));
		connection.on('end', () => resolve(answer));
		connection.on('error', reject);
		connection.end(`${command}\n`);
	});
}

/** The balancer's server for each webhook process (balancer.ts names them in the order of the ports). */
const BALANCER_SERVERS: Record<string, string> = { webhook: 'n8n1', webhook2: 'n8n2' };

/**
 * Makes the balancer send new requests only to the named webhook processes: the others are put in
 * maintenance (what was already sent to them goes on). Resolves once HAProxy reports it so.
 */
export async function balancerRoutesTo(names: string[]) {
	const wanted = Object.entries(BALANCER_SERVERS).map(([name, server]) => ({
		server,
		up: names.includes(name),
	}));
	for (const { server, up } of wanted) {
		const answer = await balancerCommand(
			`set server n8n/${server} state ${up ? 'ready' : 'maint'}`,
		);
		if (answer.trim() !== '') throw new Error(`HAProxy refused to set ${server}: ${answer}`);
	}
	await waitUntil(
		`the balancer to route to ${names.join(' and ')} only`,
		async () => {
			const [header, ...rows] = (await balancerCommand('show stat')).split('\n');
			const columns = header.replace(/^# /, '').split(',');
			const status = (server: string) =>
				rows.map((r) => r.split(',')).find((r) => r[0] === 'n8n' && r[1] === server)?.[
					columns.indexOf('status')
				];
			return wanted.every(({ server, up }) =>
				(status(server) ?? '').startsWith(up ? 'UP' : 'MAINT'),
			);
		},
		{ timeoutMs: 10_000, intervalMs: 100 },
	);
}

/**
 * Stops the named n8n process with SIGTERM (as a host would; `hooks.signal: 'SIGKILL'` as the
 * out-of-memory killer would) and starts it again; waits until healthy. `hooks.onSignalled` runs
 * when the signal is sent, `hooks.onStopped` once it has exited.
 */
export async function restart(
	name: string,
	hooks: { onSignalled?: () => void; onStopped?: () => void; signal?: NodeJS.Signals } = {},
) {
	const before = deployment().processes[name].pid as number;
	const started = Date.now();
	let stoppedAt = started;
	const after = await restartProcess(stateFile(), name, {
		signal: hooks.signal,
		onSignalled: hooks.onSignalled,
		onStopped: () => {
			stoppedAt = Date.now();
			hooks.onStopped?.();
		},
	});
	return {
		before,
		after,
		stoppedAt,
		shutdownMs: stoppedAt - started,
		downMs: Date.now() - stoppedAt,
	};
}

/** Resident memory of each n8n process (MiB): the n8n process and its process group (with its task runner). */
export function memory(): Record<string, { rssMb: number; groupRssMb: number }> {
	const { processes } = deployment();
	return Object.fromEntries(
		['main', 'webhook', 'worker1', 'worker2'].map((name) => [
			name,
			memoryMb(processes[name].pid as number),
		]),
	);
}

/**
 * Every execution of the given workflows in the database, with the delivery id its trigger item
 * carries and, for a run that did not succeed, the first text in its data that reads like an
 * error (so a failed CI run says why without its database).
 */
export function executions(workflowIds: string[]): ExecutionRow[] {
	const ids = workflowIds.map((id) => `'${id.replace(/'/g, "''")}'`).join(',');
	return sql(
		`select e.id, e."workflowId", e.status, substring(d.data from '"(qd-[0-9]+)"'),
		        case when e.status <> 'success' then substring(d.data from '"([^"]{0,160}(?:timed out|rror)[^"]{0,160})"') end
		   from execution_entity e left join execution_data d on d."executionId" = e.id
		  where e."workflowId" in (${ids}) order by e.id`,
	).map(([id, workflowId, status, deliveryId, problem]) => ({
		id,
		workflowId,
		status,
		deliveryId: deliveryId || null,
		problem: problem || null,
	}));
}

export function readLog(name: string): string {
	return readFileSync(deployment().processes[name].logFile, 'utf8');
}

/** Execution ids a process logged with `pattern` (one capture group), in order, repeats kept. */
function loggedExecutionIds(name: string, pattern: RegExp): string[] {
	return [...readLog(name).matchAll(pattern)].map((m) => m[1]);
}

/** n8n's own log lines: the webhook process "Enqueued execution N", a worker "Worker started execution N". */
export const enqueuedBy = (name: string) =>
	loggedExecutionIds(name, /Enqueued execution (\d+) \(job/g);
export const startedBy = (name: string) =>
	loggedExecutionIds(name, /Worker started execution (\d+) \(job/g);

/** Jobs waiting, running, delayed or failed in Bull's `jobs` queue (prefix `bull`, n8n's default). */
export function bullCounts(): { wait: number; active: number; delayed: number; failed: number } {
	const file = stateFile();
	const llen = (list: string) => Number(redisCli(file, ['llen', `bull:jobs:${list}`]));
	const zcard = (set: string) => Number(redisCli(file, ['zcard', `bull:jobs:${set}`]));
	return {
		wait: llen('wait'),
		active: llen('active'),
		delayed: zcard('delayed'),
		failed: zcard('failed'),
	};
}

/**
 * Waits until Bull holds no job (waiting, active or delayed) and two reads of the executions after
 * `afterId`, a second apart, list the same ones, none new or running: the queue-mode counterpart of
 * executionsSettled (test/support/e2e.ts), a positive signal for "nothing else ran" (issue 42).
 * `leftRunning`: a row a killed process left "running" does not hold it up (the soak judges those).
 */
export async function queueSettled(
	afterId: number,
	timeoutMs = 60_000,
	{ leftRunning = false } = {},
): Promise<void> {
	let previous: string | undefined;
	await waitUntil(
		'the queue and its executions to settle',
		() => {
			const { wait, active, delayed } = bullCounts();
			const rows = sql(
				`select id, status from execution_entity where id > ${Number(afterId)} order by id`,
			);
			const now = rows.map(([id, status]) => `${id}:${status}`).join(',');
			const settled =
				wait + active + delayed === 0 &&
				(leftRunning || rows.every(([, status]) => status !== 'new' && status !== 'running')) &&
				now === previous;
			previous = now;
			return settled;
		},
		{ timeoutMs, intervalMs: 1_000 },
	);
}

/** Finished executions (any status but new/running/waiting) with an id above `afterId`. */
export function finishedSince(afterId: number): number {
	const [[count]] = sql(
		`select count(*) from execution_entity where id > ${Number(afterId)} and status not in ('new', 'running', 'waiting')`,
	);
	return Number(count);
}

/** The highest execution id so far (0 when none). */
export function lastExecutionId(): number {
	const [[max]] = sql('select coalesce(max(id), 0) from execution_entity');
	return Number(max);
}

/**
 * The soak's size, from the environment: QUEUE_SOAK_DELIVERIES (5000; fewer for a quick local
 * run), QUEUE_SOAK_CONCURRENCY (16 deliveries in flight), QUEUE_SOAK_TIMEOUT_S (1800: its upper
 * bound in time, sending, restarts and the workers catching up).
 */
export function soakSettings(): { deliveries: number; concurrency: number; timeoutMs: number } {
	return {
		deliveries: Number(process.env.QUEUE_SOAK_DELIVERIES ?? 5000),
		concurrency: Number(process.env.QUEUE_SOAK_CONCURRENCY ?? 16),
		timeoutMs: Number(process.env.QUEUE_SOAK_TIMEOUT_S ?? 1800) * 1000,
	};
}
