'use strict';
/**
 * What the queue-mode suite needs from the running deployment (started by globalSetup.js):
 * addresses and keys, restarting a process, its memory, the executions in the database, the
 * executions each process logged, and Bull's job counts in Redis. Plain JavaScript for node:fs
 * and node:child_process, which n8n's lint rules keep out of .ts files.
 */
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const { loadState, memoryMb, psql, redisCli, restartProcess } = require('../../scripts/lib/queueStack');

function stateFile() {
	const file = process.env.RELAY_QUEUE_STACK;
	if (!file) throw new Error('RELAY_QUEUE_STACK is not set: run this suite with test/e2e-queue/jest.config.js');
	return file;
}

const deployment = () => loadState(stateFile());

/**
 * Stops the named n8n process with SIGTERM (as a host would) and starts it again; waits until
 * healthy. `hooks.onSignalled` runs when SIGTERM is sent, `hooks.onStopped` once it has exited.
 */
async function restart(name, hooks = {}) {
	const before = deployment().processes[name].pid;
	const started = Date.now();
	let stoppedAt;
	const after = await restartProcess(stateFile(), name, {
		onSignalled: hooks.onSignalled,
		onStopped: () => {
			stoppedAt = Date.now();
			hooks.onStopped?.();
		},
	});
	return { before, after, shutdownMs: stoppedAt - started, downMs: Date.now() - stoppedAt };
}

/** Resident memory of each n8n process (MiB): the n8n process and its process group (with its task runner). */
function memory() {
	const { processes } = deployment();
	return Object.fromEntries(['main', 'webhook', 'worker1', 'worker2'].map((name) => [name, memoryMb(processes[name].pid)]));
}

/**
 * Every execution of the given workflows in the database, with the delivery id its trigger item
 * carries (the `deliveryId` field the suite adds to each event body; null when absent) and, for
 * a run that did not succeed, the first text in its data that reads like an error (so a failed CI
 * run says why without its database).
 */
function executions(workflowIds) {
	const ids = workflowIds.map((id) => `'${id.replace(/'/g, "''")}'`).join(',');
	return psql(
		stateFile(),
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

function readLog(name) {
	return readFileSync(deployment().processes[name].logFile, 'utf8');
}

/** Execution ids a process logged with `pattern` (one capture group), in order, repeats kept. */
function loggedExecutionIds(name, pattern) {
	return [...readLog(name).matchAll(pattern)].map((m) => m[1]);
}

/** n8n's own log lines: the webhook process "Enqueued execution N", a worker "Worker started execution N". */
const enqueuedBy = (name) => loggedExecutionIds(name, /Enqueued execution (\d+) \(job/g);
const startedBy = (name) => loggedExecutionIds(name, /Worker started execution (\d+) \(job/g);

/** Jobs waiting, running, delayed or failed in Bull's `jobs` queue (prefix `bull`, n8n's default). */
function bullCounts() {
	const file = stateFile();
	const llen = (list) => Number(redisCli(file, ['llen', `bull:jobs:${list}`]));
	const zcard = (set) => Number(redisCli(file, ['zcard', `bull:jobs:${set}`]));
	return { wait: llen('wait'), active: llen('active'), delayed: zcard('delayed'), failed: zcard('failed') };
}

/** Prints a measurement and keeps it in the artifacts folder. */
function report(name, data) {
	const file = join(process.env.RELAY_QUEUE_ARTIFACTS, `${name}.json`);
	writeFileSync(file, JSON.stringify(data, null, 2));
	console.log(`${name}: ${JSON.stringify(data, null, 2)}\n(saved to ${file})`);
}

module.exports = { deployment, restart, memory, executions, readLog, enqueuedBy, startedBy, bullCounts, report };

/** Finished executions (any status but new/running/waiting) with an id above `afterId`. */
function finishedSince(afterId) {
	const [[count]] = psql(
		stateFile(),
		`select count(*) from execution_entity where id > ${Number(afterId)} and status not in ('new', 'running', 'waiting')`,
	);
	return Number(count);
}

/** The highest execution id so far (0 when none). */
function lastExecutionId() {
	const [[max]] = psql(stateFile(), 'select coalesce(max(id), 0) from execution_entity');
	return Number(max);
}

module.exports.finishedSince = finishedSince;
module.exports.lastExecutionId = lastExecutionId;

/**
 * The soak's size, from the environment: QUEUE_SOAK_DELIVERIES (5000; fewer for a quick local
 * run), QUEUE_SOAK_CONCURRENCY (16 deliveries in flight), QUEUE_SOAK_TIMEOUT_S (1800: its upper
 * bound in time, sending, restarts and the workers catching up).
 */
function soakSettings() {
	return {
		deliveries: Number(process.env.QUEUE_SOAK_DELIVERIES ?? 5000),
		concurrency: Number(process.env.QUEUE_SOAK_CONCURRENCY ?? 16),
		timeoutMs: Number(process.env.QUEUE_SOAK_TIMEOUT_S ?? 1800) * 1000,
	};
}

module.exports.soakSettings = soakSettings;
