/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Section 5: the auto-reply workflow (trigger v2 → Reply) in one n8n process against n8n's queue
 * mode on this machine (`n8n webhook` + 2 `n8n worker`s + main, Postgres, Redis, HAProxy:
 * test/support/stack/queue/deployment.ts), under every setting. All deployments are up at once
 * and loaded in alternating rounds; the idle ones cost next to nothing meanwhile.
 *
 * Besides replies/s (counted until the last reply reached the service, not just until n8n
 * answered), it reads the CPU time each process kind spent (utime + stime of the process and
 * its children: n8n's task runner, Postgres's backends) per delivery, which is what sizing a
 * deployment on paper needs: a process can use one core at most.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

import { N8nClient } from '../../test/support/n8nClient';
import { SimClient } from '../../test/support/simClient';
import { startQueueStack } from '../../test/support/stack/queue/deployment';
import { defaultPorts } from '../../test/support/stack/queue/ports';
import { say } from '../../test/support/stack/runtime';
import {
	createWorkflow,
	productionUrl,
	relayCredential,
	triggerWorkflowData,
} from '../../test/support/workflows';
import { median, postAndAwaitReplies, REPLY_TEXT, round, type LoadResult } from './measure';
import { fromEnv } from './settings';
import { benchWebhookId, type BenchStack } from './stacks';
import { pair, ratio, type Row } from './table';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** CPU seconds used so far by `pid` and every process below it. */
function treeCpuSeconds(pid: number): number {
	const stats = new Map<number, { ppid: number; ticks: number }>();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			// After the parenthesised command: state ppid pgrp session tty tpgid flags minflt
			// cminflt majflt cmajflt utime stime ...
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			stats.set(Number(entry), {
				ppid: Number(fields[1]),
				ticks: Number(fields[11]) + Number(fields[12]),
			});
		} catch {
			// The process ended while we looked.
		}
	}
	const inTree = (p: number) => {
		for (let q = p; q > 1; q = stats.get(q)?.ppid ?? 0) if (q === pid) return true;
		return false;
	};
	let ticks = 0;
	for (const [p, { ticks: t }] of stats) if (inTree(p)) ticks += t;
	return ticks / TICKS_PER_SECOND;
}

/** Processes needed for `rate` deliveries/s if each may use `utilisation` of its one core. */
const processesFor = (rate: number, msPerDelivery: number, utilisation = 0.7) =>
	Math.max(1, Math.ceil((rate * msPerDelivery) / 1000 / utilisation));

interface Mode {
	bench: BenchStack;
	kind: 'single' | 'queue';
	run: (count: number) => Promise<LoadResult>;
	processes: Record<string, number[]>;
	results: LoadResult[];
	cpu: Record<string, number>;
}

/** The auto-reply on its own account in an n8n (one process or queue main); how to load it where the service would deliver. */
async function deploy(
	client: N8nClient,
	simUrl: string,
	deliverTo: string,
): Promise<(count: number) => Promise<LoadResult>> {
	const credential = await relayCredential(client, 'bench queue account', {
		baseUrl: simUrl,
		apiKey: 'sim-key-bench-queue',
	});
	const workflow = triggerWorkflowData({
		name: 'bench: auto-reply (queue section)',
		credential,
		webhookId: benchWebhookId(6),
		events: ['message.received'],
		typeVersion: 2,
		reply: REPLY_TEXT,
	});
	await client.publish(await createWorkflow(client, workflow));
	const simulator = new SimClient(simUrl);
	const secret = (await simulator.webhooks()).acct_bench_queue?.secret as string;
	return (count) =>
		postAndAwaitReplies(
			simulator,
			{ url: productionUrl(deliverTo, benchWebhookId(6)), secret },
			count,
		);
}

function rows(stacks: BenchStack[], modes: Mode[], deliveries: number): Row[] {
	const summary = (bench: BenchStack, kind: Mode['kind']) => {
		const mode = modes.find((m) => m.bench === bench && m.kind === kind) as Mode;
		const m = (key: 'perSecond' | 'p50' | 'p99') => median(mode.results.map((r) => r[key]));
		const msPerDelivery = Object.fromEntries(
			Object.entries(mode.cpu).map(([k, s]) => [
				k,
				(s * 1000) / (deliveries * mode.results.length),
			]),
		);
		return { perSecond: m('perSecond'), p50: m('p50'), p99: m('p99'), ms: msPerDelivery };
	};
	const line = (
		label: string,
		cells: (
			single: ReturnType<typeof summary>,
			queue: ReturnType<typeof summary>,
		) => [string | number, string | number, string | number],
	): Row => ({
		section: 5,
		label,
		bySetting: Object.fromEntries(
			stacks.map((bench) => [
				bench.setting.key,
				cells(summary(bench, 'single'), summary(bench, 'queue')),
			]),
		),
	});
	const others = (q: ReturnType<typeof summary>) =>
		q.ms['load balancer'] + q.ms.main + q.ms['Postgres + Redis'];
	const onPaper = (rate: number) =>
		line(
			`on paper for ${rate} deliveries/s (70 % of a core each): webhook processes / workers; cores incl. balancer, main, Postgres + Redis`,
			(_s, q) => [
				`${processesFor(rate, q.ms.webhook)} / ${processesFor(rate, q.ms.workers)}; ${round((rate * (q.ms.webhook + q.ms.workers + others(q))) / 1000 / 0.7, 1)}`,
				'',
				'',
			],
		);
	return [
		line(
			'auto-reply replies/s; answer p50 / p99, ms: queue mode (webhook process + 2 workers) vs one n8n process',
			(s, q) => [
				`${round(q.perSecond)}; ${pair(q.p50, q.p99)}`,
				`${round(s.perSecond)}; ${pair(s.p50, s.p99)}`,
				ratio(q.perSecond, s.perSecond),
			],
		),
		line(
			'CPU per delivery, ms: queue mode webhook process / both workers / load balancer / main / Postgres + Redis vs the one process',
			(s, q) => [
				['webhook', 'workers', 'load balancer', 'main', 'Postgres + Redis']
					.map((k) => round(q.ms[k]))
					.join(' / '),
				round(s.ms.main),
				ratio(q.ms.webhook + q.ms.workers + others(q), s.ms.main),
			],
		),
		onPaper(100),
		onPaper(1000),
	];
}

/** BENCH_QUEUE_DELIVERIES per round (300), BENCH_QUEUE_ROUNDS (3); queue deployments on BENCH_QUEUE_PORT_BASE (5910) + 100 per setting. */
export async function measureQueueMode(stacks: BenchStack[]): Promise<Row[]> {
	const deliveries = fromEnv('BENCH_QUEUE_DELIVERIES', 300);
	const rounds = fromEnv('BENCH_QUEUE_ROUNDS', 3);
	say(
		`5. queue mode: auto-reply, ${deliveries} deliveries per round, ${rounds} rounds, one process vs webhook process + 2 workers, settings alternating`,
	);
	const stops: Array<() => Promise<void>> = [];
	try {
		const modes: Mode[] = [];
		for (const [i, bench] of stacks.entries()) {
			const queue = await startQueueStack({
				examples: false,
				ports: defaultPorts(fromEnv('BENCH_QUEUE_PORT_BASE', 5910) + 100 * i),
				env: bench.setting.env,
			});
			stops.push(queue.stop);
			const { state } = queue;
			const processes = state.processes;
			const pid = (name: string) => processes[name].pid as number;
			const { client, simUrl, n8nUrl, n8nPid } = bench.stack;
			modes.push(
				{
					bench,
					kind: 'single',
					run: await deploy(client, simUrl as string, n8nUrl),
					processes: { main: [n8nPid] },
					results: [],
					cpu: {},
				},
				{
					bench,
					kind: 'queue',
					// Deliveries go where the service would send them in queue mode: the balancer in front of the webhook process.
					run: await deploy(
						new N8nClient(state.mainUrl as string, { apiKey: state.apiKey }),
						state.simUrl as string,
						state.webhookUrl as string,
					),
					processes: {
						webhook: [pid('webhook')],
						'load balancer': [pid('balancer')],
						workers: [pid('worker1'), pid('worker2')],
						main: [pid('main')],
						'Postgres + Redis': [pid('postgres'), pid('redis')],
					},
					results: [],
					cpu: {},
				},
			);
		}
		const cpuNow = (mode: Mode) =>
			Object.fromEntries(
				Object.entries(mode.processes).map(([kind, pids]) => [
					kind,
					pids.reduce((sum, p) => sum + treeCpuSeconds(p), 0),
				]),
			);
		for (const mode of modes) await mode.run(fromEnv('BENCH_WARMUP', 40));
		for (let round = 0; round < rounds; round++) {
			for (const mode of modes) {
				const before = cpuNow(mode);
				mode.results.push(await mode.run(deliveries));
				const after = cpuNow(mode);
				for (const kind of Object.keys(after))
					mode.cpu[kind] = (mode.cpu[kind] ?? 0) + after[kind] - before[kind];
			}
		}
		return rows(stacks, modes, deliveries);
	} finally {
		for (const stop of stops) await stop();
	}
}
