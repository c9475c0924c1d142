/**
 * Section 1, inbound through the real n8n: our trigger (versions 1 and 2) against what a user
 * builds from n8n's own nodes (peerWorkflows.ts), and the auto-reply pair (trigger → Reply
 * against Webhook (Header Auth) → IF event type → HTTP Request). Every variant is published side
 * by side in each setting's n8n and loaded in alternating rounds; each trigger has an account of
 * its own, so none shares a webhook with another here.
 */
import { say } from '../../test/support/stack/runtime';
import { createWorkflow, headerAuthCredential, productionUrl, triggerWorkflowData } from '../../test/support/workflows';
import { INBOUND_CONCURRENCY, medians, postAndAwaitReplies, postDeliveries, REPLY_TEXT, type LoadResult } from './measure';
import { headerAuthWebhook, headerAuthWebhookWithTypeIf, secretIfWebhook } from './peerWorkflows';
import { fromEnv } from './settings';
import { benchWebhookId, type BenchStack } from './stacks';
import { pair, ratio, type Row } from './table';

type Variant = 'v1' | 'v2' | 'headerAuth' | 'headerAuthIf' | 'secretIf' | 'ourReply' | 'peerReply';
type Runner = (count: number) => Promise<LoadResult>;

/** Publishes every variant in one n8n; how to load each. */
async function prepare(bench: BenchStack): Promise<Record<Variant, Runner>> {
	const { client, n8nUrl, simUrl } = bench.stack;
	const trigger = async (name: string, apiKey: string, n: number, typeVersion: number, reply?: string) => {
		const credential = await bench.credential(name, apiKey);
		const id = await createWorkflow(client, triggerWorkflowData({ name: `bench: ${name}`, credential, webhookId: benchWebhookId(n), events: ['message.received'], typeVersion, reply }));
		await client.publish(id);
	};
	await trigger('bench account', 'sim-key-bench', 1, 1);
	await trigger('bench v2 account', 'sim-key-bench-v2', 3, 2);
	await trigger('bench reply account', 'sim-key-bench-reply', 4, 2, REPLY_TEXT);

	// The baselines check the secret the service issued to our registration of the same account.
	const webhooks = await bench.simulator.webhooks();
	const secret = (account: string) => webhooks[account]?.secret as string;
	const headerAuth = (name: string, account: string) => headerAuthCredential(client, name, { name: 'x-service-secret', value: secret(account) });
	const benchAuth = await headerAuth('bench Header Auth', 'acct_bench');
	const replyAuth = await headerAuth('bench reply Header Auth', 'acct_bench_reply');
	for (const workflow of [
		secretIfWebhook(benchWebhookId(2), 'bench-peer', secret('acct_bench')),
		headerAuthWebhook(benchWebhookId(7), 'bench-header-auth', benchAuth),
		headerAuthWebhookWithTypeIf(benchWebhookId(8), 'bench-header-auth-if', benchAuth),
		headerAuthWebhookWithTypeIf(benchWebhookId(5), 'bench-peer-reply', replyAuth, { simUrl: simUrl as string, apiKey: 'sim-key-bench-reply' }),
	]) {
		await client.publish(await createWorkflow(client, workflow));
	}

	const load = (url: string, account: string) => (count: number) => postDeliveries([{ url, secret: secret(account) }], count);
	const replies = (url: string) => (count: number) => postAndAwaitReplies(bench.simulator, { url, secret: secret('acct_bench_reply') }, Math.max(1, Math.round(count / 2)));
	return {
		v1: load(productionUrl(n8nUrl, benchWebhookId(1)), 'acct_bench'),
		v2: load(productionUrl(n8nUrl, benchWebhookId(3)), 'acct_bench_v2'),
		headerAuth: load(`${n8nUrl}/webhook/bench-header-auth`, 'acct_bench'),
		headerAuthIf: load(`${n8nUrl}/webhook/bench-header-auth-if`, 'acct_bench'),
		secretIf: load(`${n8nUrl}/webhook/bench-peer`, 'acct_bench'),
		ourReply: replies(productionUrl(n8nUrl, benchWebhookId(4))),
		peerReply: replies(`${n8nUrl}/webhook/bench-peer-reply`),
	};
}

function rows(stacks: BenchStack[], results: Map<BenchStack, Record<Variant, LoadResult[]>>): Row[] {
	const line = (label: string, cells: (m: Record<Variant, ReturnType<typeof medians>>) => Row['bySetting'][string]): Row => ({
		section: 1,
		label,
		bySetting: Object.fromEntries(
			stacks.map((bench) => {
				const runs = results.get(bench) as Record<Variant, LoadResult[]>;
				const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, medians(v)])) as Record<Variant, ReturnType<typeof medians>>;
				return [bench.setting.key, cells(m)];
			}),
		),
	});
	const rate = (ours: Variant, theirs: Variant) => (m: Record<Variant, ReturnType<typeof medians>>): [number, number, number] => [
		Math.round(m[ours].perSecond * 10) / 10,
		Math.round(m[theirs].perSecond * 10) / 10,
		ratio(m[ours].perSecond, m[theirs].perSecond),
	];
	return [
		line('deliveries/s, trigger v2 vs Webhook + Header Auth (every event)', rate('v2', 'headerAuth')),
		line('deliveries/s, trigger v2 vs Webhook + Header Auth → IF on the event type (event selection)', rate('v2', 'headerAuthIf')),
		line('latency p50 / p99, ms, trigger v2 vs Webhook + Header Auth → IF on the event type', (m) => [
			pair(m.v2.p50, m.v2.p99),
			pair(m.headerAuthIf.p50, m.headerAuthIf.p99),
			`${ratio(m.v2.p50, m.headerAuthIf.p50)} / ${ratio(m.v2.p99, m.headerAuthIf.p99)}`,
		]),
		line('deliveries/s, trigger v1 vs Webhook + Header Auth → IF on the event type', rate('v1', 'headerAuthIf')),
		line('deliveries/s, trigger v2 vs Webhook → IF comparing x-service-secret in an expression (the earlier baseline)', rate('v2', 'secretIf')),
		line('auto-reply, replies/s, trigger v2 → Reply vs Webhook + Header Auth → IF on the event type → HTTP Request', rate('ourReply', 'peerReply')),
	];
}

/** BENCH_INBOUND deliveries per variant (600; half for the reply pair), in BENCH_INBOUND_ROUNDS rounds (3) after BENCH_WARMUP (40). */
export async function measureInbound(stacks: BenchStack[]): Promise<Row[]> {
	const total = fromEnv('BENCH_INBOUND', 600);
	const rounds = fromEnv('BENCH_INBOUND_ROUNDS', 3);
	say(`1. inbound: ${total} deliveries per variant and setting (${total / 2} for the reply pair), ${INBOUND_CONCURRENCY} at once, ${rounds} alternating rounds`);
	const runners = new Map<BenchStack, Record<Variant, Runner>>();
	for (const bench of stacks) runners.set(bench, await prepare(bench));
	const results = new Map<BenchStack, Record<Variant, LoadResult[]>>();
	for (const [bench, variants] of runners) {
		results.set(bench, Object.fromEntries(Object.keys(variants).map((k) => [k, []])) as unknown as Record<Variant, LoadResult[]>);
		for (const run of Object.values(variants)) await run(fromEnv('BENCH_WARMUP', 40));
	}
	for (let round = 0; round < rounds; round++) {
		for (const [bench, variants] of runners) {
			for (const [name, run] of Object.entries(variants) as Array<[Variant, Runner]>) {
				(results.get(bench) as Record<Variant, LoadResult[]>)[name].push(await run(Math.round(total / rounds)));
			}
		}
	}
	return rows(stacks, results);
}
