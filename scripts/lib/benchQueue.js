'use strict';
/**
 * `npm run bench`, section 5: the auto-reply workflow (trigger v2 → Reply) in one n8n process
 * vs n8n's queue mode on this machine (`n8n webhook` + 2 `n8n worker`s + main, Postgres, Redis:
 * scripts/lib/queueStack.js). Both deployments are up at once and loaded in alternating rounds;
 * the idle one costs next to nothing meanwhile.
 *
 * Besides deliveries/s (counted until the last reply reached the service, not just until n8n
 * answered), it reads the CPU time each process kind spent (utime + stime of the process and
 * its children: n8n's task runner, Postgres's backends) per delivery, which is what sizing a
 * deployment on paper needs: a process can use one core at most.
 */
const { readdirSync, readFileSync } = require('node:fs');
const { execFileSync } = require('node:child_process');

const { defaultPorts, startQueueStack } = require('./queueStack');
const { N8nClient } = require('./stack');

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU seconds used so far by `pid` and every process below it. */
function treeCpuSeconds(pid) {
	const stats = new Map();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			// After the parenthesised command: state ppid pgrp session tty tpgid flags minflt
			// cminflt majflt cmajflt utime stime ...
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			stats.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
		} catch {
			// The process ended while we looked.
		}
	}
	const inTree = (p) => {
		for (let q = p; q > 1; q = stats.get(q)?.ppid ?? 0) if (q === pid) return true;
		return false;
	};
	let ticks = 0;
	for (const [p, { ticks: t }] of stats) if (inTree(p)) ticks += t;
	return ticks / TICKS_PER_SECOND;
}

/**
 * @param {object} single  the one-process stack from bench.js (withStack): { client, simUrl, n8nUrl, n8nPid }
 * @param {object} kit     bench.js's helpers: accountCredential, ourInboundWorkflow, runReplies, json, say, percentile, webhookId
 * @param {object} options { deliveries per round, rounds, portBase, env: extra environment for
 *   every n8n process of the queue deployment (the one process must have been started with
 *   the same), label: what the log calls this run }
 */
async function measureQueue(single, kit, { deliveries, rounds, portBase, env = {}, label = 'n8n as shipped' }) {
	const { accountCredential, ourInboundWorkflow, runReplies, json, say, percentile, webhookId } = kit;
	say(`5. queue mode (${label}): auto-reply, ${deliveries} deliveries per round, ${rounds} rounds, one process vs webhook process + 2 workers`);
	const queue = await startQueueStack({ examples: false, ports: defaultPorts(portBase), env });
	try {
		const queueClient = new N8nClient(queue.state.mainUrl);
		queueClient.apiKey = queue.state.apiKey;

		const deploy = async (client, simUrl, n8nUrl) => {
			const credential = await accountCredential(client, simUrl, 'bench queue account', 'sim-key-bench-reply');
			const workflow = await ourInboundWorkflow(client, credential, { version: 2, id: webhookId(6), reply: true });
			await client.publish(workflow.id);
			const secret = (await json('GET', `${simUrl}/__sim/webhooks`)).acct_bench_reply.secret;
			return (count) => runReplies(simUrl, `${n8nUrl}/webhook/${webhookId(6)}/webhook`, secret, count);
		};
		const modes = {
			single: { run: await deploy(single.client, single.simUrl, single.n8nUrl), processes: { main: [single.n8nPid] } },
			queue: {
				// Deliveries go where the service would send them in queue mode: the balancer in
				// front of the webhook process.
				run: await deploy(queueClient, queue.state.simUrl, queue.state.webhookUrl),
				processes: {
					webhook: [queue.state.processes.webhook.pid],
					'load balancer': [queue.state.processes.balancer.pid],
					workers: [queue.state.processes.worker1.pid, queue.state.processes.worker2.pid],
					main: [queue.state.processes.main.pid],
					'Postgres + Redis': [queue.state.processes.postgres.pid, queue.state.processes.redis.pid],
				},
			},
		};
		const cpu = (processes) => Object.fromEntries(Object.entries(processes).map(([kind, pids]) => [kind, pids.reduce((s, p) => s + treeCpuSeconds(p), 0)]));
		const results = { single: [], queue: [] };
		const cpuUsed = { single: {}, queue: {} };
		for (const { run } of Object.values(modes)) await run(40); // warm-up
		for (let round = 0; round < rounds; round++) {
			for (const [name, mode] of Object.entries(modes)) {
				const before = cpu(mode.processes);
				results[name].push(await mode.run(deliveries));
				const after = cpu(mode.processes);
				for (const kind of Object.keys(after)) cpuUsed[name][kind] = (cpuUsed[name][kind] ?? 0) + after[kind] - before[kind];
			}
		}
		const summary = {};
		for (const name of Object.keys(modes)) {
			const r = results[name];
			const median = (key) => percentile(r.map((x) => x[key]), 50);
			const msPerDelivery = Object.fromEntries(Object.entries(cpuUsed[name]).map(([kind, s]) => [kind, (s * 1000) / (deliveries * rounds)]));
			summary[name] = { perSecond: median('perSecond'), p50: median('p50'), p99: median('p99'), msPerDelivery };
			say(`   ${name}: ${summary[name].perSecond.toFixed(1)} replies/s, CPU ms per delivery ${JSON.stringify(msPerDelivery)}`);
		}
		return summary;
	} finally {
		await queue.stop();
	}
}

/** Processes needed for `rate` deliveries/s if each may use `utilisation` of its one core. */
function processesFor(rate, msPerDelivery, utilisation = 0.7) {
	return Math.max(1, Math.ceil((rate * msPerDelivery) / 1000 / utilisation));
}

module.exports = { measureQueue, processesFor, treeCpuSeconds };
