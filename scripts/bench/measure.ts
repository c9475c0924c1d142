/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * What every section of the benchmark measures with: medians and percentiles, and the load
 * generator that posts deliveries the way the service does (several at once, every answer 200).
 */
import { readJson } from '../../test/support/repo';
import type { SimClient } from '../../test/support/simClient';
import { waitUntil } from '../../test/support/waitUntil';

export const percentile = (values: number[], p: number): number => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

export const median = (values: number[]): number => percentile(values, 50);

export const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

/** Deliveries posted at once by the load generator. */
export const INBOUND_CONCURRENCY = 8;

/** The reply text of every auto-reply variant, counted at the simulator. */
export const REPLY_TEXT = 'Thanks, we got your message';

export interface Target {
	url: string;
	secret: string;
}

export interface LoadResult {
	seconds: number;
	perSecond: number;
	/** The service's wait for n8n's answer, ms. */
	p50: number;
	p99: number;
	/** n8n's CPU time per delivery, ms (user + system of its process, until its runs had ended), when measured. */
	cpuMsPer?: number;
}

let deliveriesPosted = 0;

export interface DeliveryOptions {
	/** The event: the sample of that type in test/fixtures/sample-events.json (message.received). */
	type?: string;
	/** Deliveries in flight at once (INBOUND_CONCURRENCY). */
	concurrency?: number;
}

/**
 * Posts `count` deliveries of a message.received event (or the sample of `type`), INBOUND_CONCURRENCY
 * (or `concurrency`) at once, the i-th to `targets[i % n]`. Every answer must be 200.
 */
export async function postDeliveries(
	targets: Target[],
	count: number,
	{ type = 'message.received', concurrency = INBOUND_CONCURRENCY }: DeliveryOptions = {},
): Promise<LoadResult> {
	const event = readJson<Record<string, unknown>>('test', 'fixtures', 'sample-events.json')[
		type
	] as Record<string, unknown> | undefined;
	if (!event) throw new Error(`bench: no sample event of type ${type}`);
	const latencies: number[] = [];
	let next = 0;
	const started = Date.now();
	await Promise.all(
		Array.from({ length: concurrency }, async () => {
			while (next < count) {
				const { url, secret } = targets[next++ % targets.length];
				// Each delivery its own event, as from a real service: a member of a shared webhook
				// runs a forwarded event only once.
				const body = JSON.stringify({ ...event, deliveryId: `bench-${++deliveriesPosted}` });
				const t0 = process.hrtime.bigint();
				const response = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', 'x-service-secret': secret },
					body,
				});
				await response.arrayBuffer();
				if (response.status !== 200) throw new Error(`bench: ${url} answered ${response.status}`);
				latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
			}
		}),
	);
	const seconds = (Date.now() - started) / 1000;
	return {
		seconds,
		perSecond: count / seconds,
		p50: percentile(latencies, 50),
		p99: percentile(latencies, 99),
	};
}

/** Sends `count` deliveries and waits until the service has received as many replies; replies/s until the last one. */
export async function postAndAwaitReplies(
	simulator: SimClient,
	target: Target,
	count: number,
): Promise<LoadResult> {
	const sent = async () =>
		(await simulator.state()).messages.filter((m) => m.text === REPLY_TEXT).length;
	const before = await sent();
	const started = Date.now();
	const answered = await postDeliveries([target], count);
	const replies = await waitUntil(
		'the replies',
		async () => ((await sent()) >= before + count ? (await sent()) - before : undefined),
		{
			timeoutMs: 120_000,
			intervalMs: 100,
		},
	).catch(async () => (await sent()) - before);
	if (replies !== count)
		throw new Error(`bench: ${count} deliveries to ${target.url} gave ${replies} replies`);
	const seconds = (Date.now() - started) / 1000;
	return { ...answered, seconds, perSecond: count / seconds };
}

/** The medians of a variant's rounds. */
export function medians(runs: LoadResult[]): {
	perSecond: number;
	p50: number;
	p99: number;
	cpuMsPer: number;
} {
	if (runs.length === 0) return { perSecond: NaN, p50: NaN, p99: NaN, cpuMsPer: NaN };
	const cpu = runs.filter((r) => r.cpuMsPer !== undefined).map((r) => r.cpuMsPer as number);
	return {
		perSecond: median(runs.map((r) => r.perSecond)),
		p50: median(runs.map((r) => r.p50)),
		p99: median(runs.map((r) => r.p99)),
		cpuMsPer: cpu.length ? median(cpu) : NaN,
	};
}
