/**
 * Section 1, inbound through the real n8n: our trigger at the version new triggers get (3, answering
 * when the run finishes) and at the versions saved workflows still run (1, 2, and 3 set to "When the
 * Workflow Starts") against what a user builds from n8n's own nodes (peerWorkflows.ts): the Webhook
 * node with Header Auth answering at the same moment (when the last node finishes, or when it
 * receives the request), alone and followed by an IF on the event type; and the auto-reply pair
 * (trigger → Reply against Webhook (Header Auth) → IF event type → HTTP Request, both answering when
 * the run finishes). Every variant is published side by side in each setting's n8n and loaded in
 * alternating rounds; each trigger has an account of its own, so none shares a webhook here.
 */
import type { IDataObject } from 'n8n-workflow';

import { anyRunning } from '../../test/support/executions';
import { cpuMs } from '../../test/support/stack/processes';
import { say } from '../../test/support/stack/runtime';
import { waitUntil } from '../../test/support/waitUntil';
import {
	createWorkflow,
	headerAuthCredential,
	productionUrl,
	triggerWorkflowData,
} from '../../test/support/workflows';
import {
	INBOUND_CONCURRENCY,
	medians,
	postAndAwaitReplies,
	postDeliveries,
	REPLY_TEXT,
	type LoadResult,
} from './measure';
import { headerAuthWebhook, headerAuthWebhookWithTypeIf } from './peerWorkflows';
import { fromEnv } from './settings';
import { benchWebhookId, type BenchStack } from './stacks';
import { pair, ratio, type Row } from './table';

/** The version new trigger nodes get (MessagingRelayTrigger.node.ts `defaultVersion`). */
export const DEFAULT_VERSION = 3;

type Variant =
	| 'v1'
	| 'v2'
	| 'v3'
	| 'v3started'
	| 'received'
	| 'receivedIf'
	| 'last'
	| 'lastIf'
	| 'ourReply'
	| 'peerReply';
type Runner = (count: number) => Promise<LoadResult>;

/** Publishes every variant in one n8n; how to load each. */
async function prepare(bench: BenchStack): Promise<Record<Variant, Runner>> {
	const { client, n8nUrl, simUrl } = bench.stack;
	const trigger = async (
		name: string,
		apiKey: string,
		n: number,
		typeVersion: number,
		parameters: IDataObject = {},
		reply?: string,
	) => {
		const credential = await bench.credential(name, apiKey);
		const data = triggerWorkflowData({
			name: `bench: ${name}`,
			credential,
			webhookId: benchWebhookId(n),
			events: ['message.received'],
			typeVersion,
			reply,
		});
		Object.assign((data.nodes[0] as { parameters: IDataObject }).parameters, parameters);
		await client.publish(await createWorkflow(client, data));
	};
	await trigger('bench account', 'sim-key-bench', 1, 1);
	await trigger('bench v2 account', 'sim-key-bench-v2', 3, 2);
	await trigger('bench v3 account', 'sim-key-bench-v3', 2, DEFAULT_VERSION);
	await trigger('bench v3 started account', 'sim-key-bench-v3-started', 9, DEFAULT_VERSION, {
		acknowledge: 'whenStarted',
	});
	await trigger('bench reply account', 'sim-key-bench-reply', 4, DEFAULT_VERSION, {}, REPLY_TEXT);

	// The baselines check the secret the service issued to our registration of the same account.
	const webhooks = await bench.simulator.webhooks();
	const secret = (account: string) => webhooks[account]?.secret as string;
	const headerAuth = (name: string, account: string) =>
		headerAuthCredential(client, name, { name: 'x-service-secret', value: secret(account) });
	const benchAuth = await headerAuth('bench Header Auth', 'acct_bench');
	const replyAuth = await headerAuth('bench reply Header Auth', 'acct_bench_reply');
	for (const workflow of [
		headerAuthWebhook(benchWebhookId(7), 'bench-header-auth', benchAuth, 'onReceived'),
		headerAuthWebhookWithTypeIf(benchWebhookId(8), 'bench-header-auth-if', benchAuth, 'onReceived'),
		headerAuthWebhook(benchWebhookId(10), 'bench-header-auth-last', benchAuth, 'lastNode'),
		headerAuthWebhookWithTypeIf(
			benchWebhookId(11),
			'bench-header-auth-if-last',
			benchAuth,
			'lastNode',
		),
		headerAuthWebhookWithTypeIf(benchWebhookId(5), 'bench-peer-reply', replyAuth, 'lastNode', {
			simUrl: simUrl as string,
			apiKey: 'sim-key-bench-reply',
		}),
	]) {
		await client.publish(await createWorkflow(client, workflow));
	}

	const load = (url: string, account: string) => (count: number) =>
		postDeliveries([{ url, secret: secret(account) }], count);
	const replies = (url: string) => (count: number) =>
		postAndAwaitReplies(
			bench.simulator,
			{ url, secret: secret('acct_bench_reply') },
			Math.max(1, Math.round(count / 2)),
		);
	return {
		v1: load(productionUrl(n8nUrl, benchWebhookId(1)), 'acct_bench'),
		v2: load(productionUrl(n8nUrl, benchWebhookId(3)), 'acct_bench_v2'),
		v3: load(productionUrl(n8nUrl, benchWebhookId(2)), 'acct_bench_v3'),
		v3started: load(productionUrl(n8nUrl, benchWebhookId(9)), 'acct_bench_v3_started'),
		received: load(`${n8nUrl}/webhook/bench-header-auth`, 'acct_bench'),
		receivedIf: load(`${n8nUrl}/webhook/bench-header-auth-if`, 'acct_bench'),
		last: load(`${n8nUrl}/webhook/bench-header-auth-last`, 'acct_bench'),
		lastIf: load(`${n8nUrl}/webhook/bench-header-auth-if-last`, 'acct_bench'),
		ourReply: replies(productionUrl(n8nUrl, benchWebhookId(4))),
		peerReply: replies(`${n8nUrl}/webhook/bench-peer-reply`),
	};
}

function rows(
	stacks: BenchStack[],
	results: Map<BenchStack, Record<Variant, LoadResult[]>>,
): Row[] {
	const line = (
		label: string,
		cells: (m: Record<Variant, ReturnType<typeof medians>>) => Row['bySetting'][string],
	): Row => ({
		section: 1,
		label,
		bySetting: Object.fromEntries(
			stacks.map((bench) => {
				const runs = results.get(bench) as Record<Variant, LoadResult[]>;
				const m = Object.fromEntries(
					Object.entries(runs).map(([k, v]) => [k, medians(v)]),
				) as Record<Variant, ReturnType<typeof medians>>;
				return [bench.setting.key, cells(m)];
			}),
		),
	});
	const rate =
		(ours: Variant, theirs: Variant) =>
		(m: Record<Variant, ReturnType<typeof medians>>): [number, number, number] => [
			Math.round(m[ours].perSecond * 10) / 10,
			Math.round(m[theirs].perSecond * 10) / 10,
			ratio(m[ours].perSecond, m[theirs].perSecond),
		];
	// CPU: lower is better, so the ratio is theirs over ours (above 1: ours costs n8n less).
	const cpu =
		(ours: Variant, theirs: Variant) =>
		(m: Record<Variant, ReturnType<typeof medians>>): [number, number, number] => [
			Math.round(m[ours].cpuMsPer * 100) / 100,
			Math.round(m[theirs].cpuMsPer * 100) / 100,
			ratio(m[theirs].cpuMsPer, m[ours].cpuMsPer),
		];
	const v = DEFAULT_VERSION;
	const atEnd = 'Webhook + Header Auth answering when the last node finishes';
	const atReceipt = 'Webhook + Header Auth answering when it receives';
	return [
		line(
			`deliveries/s, trigger v${v} (the default; answers when the run finishes) vs ${atEnd} (every event)`,
			rate('v3', 'last'),
		),
		line(
			`deliveries/s, trigger v${v} (the default) vs ${atEnd} → IF on the event type (event selection)`,
			rate('v3', 'lastIf'),
		),
		line(
			`n8n's CPU per delivery, ms, trigger v${v} (the default) vs ${atEnd} (every event)`,
			cpu('v3', 'last'),
		),
		line(
			`n8n's CPU per delivery, ms, trigger v${v} set to "When the Workflow Starts" vs ${atReceipt} (every event)`,
			cpu('v3started', 'received'),
		),
		line(
			`latency p50 / p99, ms, trigger v${v} (the default) vs ${atEnd} → IF on the event type`,
			(m) => [
				pair(m.v3.p50, m.v3.p99),
				pair(m.lastIf.p50, m.lastIf.p99),
				`${ratio(m.v3.p50, m.lastIf.p50)} / ${ratio(m.v3.p99, m.lastIf.p99)}`,
			],
		),
		line(
			`deliveries/s, trigger v${v} set to "When the Workflow Starts" vs ${atReceipt} (every event)`,
			rate('v3started', 'received'),
		),
		line(
			`deliveries/s, trigger v${v} set to "When the Workflow Starts" vs ${atReceipt} → IF on the event type`,
			rate('v3started', 'receivedIf'),
		),
		line(
			`deliveries/s, trigger v2 (saved workflows) vs ${atReceipt} (every event)`,
			rate('v2', 'received'),
		),
		line(
			`deliveries/s, trigger v2 (saved workflows) vs ${atReceipt} → IF on the event type`,
			rate('v2', 'receivedIf'),
		),
		line(
			`deliveries/s, trigger v1 (saved workflows) vs ${atReceipt} → IF on the event type`,
			rate('v1', 'receivedIf'),
		),
		line(
			`auto-reply, replies/s, trigger v${v} → Reply vs Webhook + Header Auth (answering when the last node finishes) → IF on the event type → HTTP Request`,
			rate('ourReply', 'peerReply'),
		),
	];
}

/** BENCH_INBOUND deliveries per variant (600; half for the reply pair), in BENCH_INBOUND_ROUNDS rounds (3) after BENCH_WARMUP (40). */
export async function measureInbound(stacks: BenchStack[]): Promise<Row[]> {
	const total = fromEnv('BENCH_INBOUND', 600);
	const rounds = fromEnv('BENCH_INBOUND_ROUNDS', 3);
	say(
		`1. inbound: ${total} deliveries per variant and setting (${total / 2} for the reply pair), ${INBOUND_CONCURRENCY} at once, ${rounds} alternating rounds`,
	);
	const runners = new Map<BenchStack, Record<Variant, Runner>>();
	for (const bench of stacks) runners.set(bench, await prepare(bench));
	const results = new Map<BenchStack, Record<Variant, LoadResult[]>>();
	for (const [bench, variants] of runners) {
		results.set(
			bench,
			Object.fromEntries(Object.keys(variants).map((k) => [k, []])) as unknown as Record<
				Variant,
				LoadResult[]
			>,
		);
		for (const run of Object.values(variants)) await run(fromEnv('BENCH_WARMUP', 40));
	}
	for (let round = 0; round < rounds; round++) {
		for (const [bench, variants] of runners) {
			// The order turns every round, so that drift of the machine hits the variants alike.
			const order = Object.entries(variants) as Array<[Variant, Runner]>;
			for (const [name, run] of round % 2 ? order.reverse() : order) {
				const count = Math.round(total / rounds);
				const cpuBefore = cpuMs(bench.stack.n8nPid);
				const result = await run(count);
				// Runs answered when they started still run: each variant's end before the next begins.
				await waitUntil('the runs to end', async () => !(await anyRunning(bench.stack.client)), {
					timeoutMs: 120_000,
					intervalMs: 100,
				});
				// n8n's own CPU for them, to the end of their runs: what a delivery costs n8n whatever
				// the answer waits for (the reply pair counts half as many deliveries).
				const delivered =
					name === 'ourReply' || name === 'peerReply' ? Math.max(1, Math.round(count / 2)) : count;
				(results.get(bench) as Record<Variant, LoadResult[]>)[name].push({
					...result,
					cpuMsPer: (cpuMs(bench.stack.n8nPid) - cpuBefore) / delivered,
				});
			}
		}
	}
	return rows(stacks, results);
}
