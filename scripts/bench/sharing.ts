/**
 * Section 4, sharing one account's webhook (docs/shared-webhook.md): 1, 2 and 4 trigger workflows
 * on one account against 4 workflows on 4 accounts of their own, executions per second in total.
 * The same number of executions per measurement in every arrangement: k workflows sharing one
 * account get BENCH_SHARE_EXECUTIONS / k deliveries (each starts k executions); 4 separate
 * accounts get BENCH_SHARE_EXECUTIONS deliveries, a quarter each. Arrangements and settings
 * alternate within each round (BENCH_SHARE_ROUNDS).
 */
import { anyRunning } from '../../test/support/executions';
import { say } from '../../test/support/stack/runtime';
import { waitUntil } from '../../test/support/waitUntil';
import { createWorkflow, triggerWorkflowData } from '../../test/support/workflows';
import { median, postDeliveries, round, type LoadResult } from './measure';
import { fromEnv } from './settings';
import type { BenchStack } from './stacks';
import { pair, type Row } from './table';

const ARRANGEMENTS = [
	{ label: '1 workflow on the account', k: 1 },
	{ label: '2 workflows sharing the account', k: 2 },
	{ label: '4 workflows sharing the account', k: 4 },
	{ label: '4 workflows on 4 accounts of their own', k: 0 },
];
const SEPARATE_ACCOUNTS = ['acct_bench_1', 'acct_bench_2', 'acct_bench_3', 'acct_bench_4'];

const shareWebhookId = (group: number, n: number) =>
	`b3e0c1d2-0000-4000-8000-0000000${group}000${n}`;

type Result = LoadResult & { total: number; perWorkflow: number };

/** Creates the 4 sharing and 4 separate workflows; returns how to publish the first k sharing ones only. */
async function prepare(bench: BenchStack): Promise<(k: number) => Promise<void>> {
	const { client } = bench.stack;
	const sharedCredential = await bench.credential('bench shared account', 'sim-key-bench-shared');
	const shared: string[] = [];
	for (let n = 1; n <= 4; n++) {
		const own = await bench.credential(`bench account ${n}`, `sim-key-bench-${n}`);
		const events = ['message.received'];
		shared.push(
			await createWorkflow(
				client,
				triggerWorkflowData({
					name: `bench: shared ${n}`,
					credential: sharedCredential,
					webhookId: shareWebhookId(1, n),
					events,
				}),
			),
		);
		await client.publish(
			await createWorkflow(
				client,
				triggerWorkflowData({
					name: `bench: separate ${n}`,
					credential: own,
					webhookId: shareWebhookId(2, n),
					events,
				}),
			),
		);
	}
	const published = new Set<string>();
	return async (k) => {
		for (const [i, id] of shared.entries()) {
			if (i < k && !published.has(id)) await client.publish(id);
			if (i >= k && published.has(id)) await client.unpublish(id);
			if (i < k) published.add(id);
			else published.delete(id);
		}
	};
}

/**
 * Sends `count` deliveries to the registrations of `accounts` as the service would (their current
 * URL and secret). Every answer must be 200: at a shared registration that means every workflow
 * of the account has started its execution.
 */
async function sendToAccounts(
	bench: BenchStack,
	accounts: string[],
	count: number,
): Promise<LoadResult> {
	const webhooks = await bench.simulator.webhooks();
	return await postDeliveries(
		accounts.map((account) => ({
			url: webhooks[account]?.url as string,
			secret: webhooks[account]?.secret as string,
		})),
		count,
	);
}

async function measureOnce(
	bench: BenchStack,
	shareWith: (k: number) => Promise<void>,
	k: number,
	executions: number,
): Promise<Result> {
	let result: LoadResult;
	let perWorkflow: number;
	if (k > 0) {
		await shareWith(k);
		result = await sendToAccounts(bench, ['acct_bench_shared'], Math.round(executions / k));
		perWorkflow = executions / k / result.seconds;
	} else {
		result = await sendToAccounts(bench, SEPARATE_ACCOUNTS, executions);
		perWorkflow = executions / 4 / result.seconds;
	}
	// The next measurement starts when n8n has finished this one's executions (the tail is not counted twice).
	await waitUntil(
		'n8n to finish the executions',
		async () => !(await anyRunning(bench.stack.client)),
		{ timeoutMs: 120_000, intervalMs: 200 },
	).catch(() => undefined);
	return { ...result, total: executions / result.seconds, perWorkflow };
}

export async function measureSharing(stacks: BenchStack[]): Promise<Row[]> {
	const executions = fromEnv('BENCH_SHARE_EXECUTIONS', 600);
	const rounds = fromEnv('BENCH_SHARE_ROUNDS', 3);
	say(
		`4. sharing: ${executions} executions per measurement, ${rounds} rounds, arrangements and settings alternating`,
	);
	const shareWith = new Map<BenchStack, (k: number) => Promise<void>>();
	for (const bench of stacks) shareWith.set(bench, await prepare(bench));
	const runs = new Map<string, Result[]>();
	// Round -1 warms up.
	for (let r = -1; r < rounds; r++) {
		for (const bench of stacks) {
			for (const { label, k } of ARRANGEMENTS) {
				const result = await measureOnce(
					bench,
					shareWith.get(bench) as (k: number) => Promise<void>,
					k,
					r < 0 ? fromEnv('BENCH_WARMUP', 40) : executions,
				);
				if (r >= 0)
					runs.set(`${bench.setting.key}|${label}`, [
						...(runs.get(`${bench.setting.key}|${label}`) ?? []),
						result,
					]);
			}
		}
	}
	const summary = (bench: BenchStack, label: string) => {
		const list = runs.get(`${bench.setting.key}|${label}`) ?? [];
		const m = (key: Exclude<keyof Result, 'cpuMsPer'>) => median(list.map((x) => x[key]));
		return { total: m('total'), perWorkflow: m('perWorkflow'), p50: m('p50'), p99: m('p99') };
	};
	return ARRANGEMENTS.map(({ label, k }) => ({
		section: 4,
		label: `${label}: executions/s in total; per workflow; service's answer p50 / p99, ms${k === 0 ? ' (the baseline)' : ' vs 4 accounts of their own'}`,
		bySetting: Object.fromEntries(
			stacks.map((bench) => {
				const s = summary(bench, label);
				const separate = summary(bench, ARRANGEMENTS[3].label);
				say(
					`   ${bench.setting.label}, ${label}: ${round(s.total)} executions/s, ${round(s.perWorkflow)} deliveries/s per workflow, p50 / p99 ${pair(s.p50, s.p99)} ms`,
				);
				return [
					bench.setting.key,
					[
						`${round(s.total)}; ${round(s.perWorkflow)}; ${pair(s.p50, s.p99)}`,
						k === 0 ? '' : round(separate.total),
						round(s.total / separate.total, 2),
					],
				];
			}),
		),
	}));
}
