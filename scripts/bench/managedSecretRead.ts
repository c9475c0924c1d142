/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * What reading the credential costs a delivery in the real n8n (Webhook Managed Elsewhere,
 * docs/registration.md): the price of re-reading the Webhook Secret, which decides the bound
 * (managedSecretPolicy.rereadAfterMs). One published trigger, two kinds of delivery that start no
 * run, side by side in alternating rounds, one at a time (so that no read is shared):
 *   kept   the kept secret and an event type the trigger does not select: no read, 200 "ignored"
 *   read   a wrong secret: one read of the credential each (database, decryption, isolate), 401
 * The difference of the medians is what one read adds to a delivery. Under every setting of
 * settings.ts (as shipped, lazy isolate acquisition), both n8n up at once.
 *   npm run build:tools && node build/scripts/bench/managedSecretRead.js
 * BENCH_SECRET_DELIVERIES (200 per kind and round), BENCH_SECRET_ROUNDS (3). A heavy run: it starts n8n.
 */
import { postEvent } from '../../test/support/deliver';
import { readJson } from '../../test/support/repo';
import { say } from '../../test/support/stack/runtime';
import { createWorkflow, productionUrl, triggerWorkflowData } from '../../test/support/workflows';
import { median, percentile, round } from './measure';
import { chosenSettings, fromEnv } from './settings';
import { benchWebhookId, withStacks, type BenchStack } from './stacks';

const KEPT = 'whsec_bench_managed_elsewhere_01';
type Kind = 'kept' | 'read';

async function publish(bench: BenchStack): Promise<string> {
	const { client, simUrl } = bench.stack;
	const created = await client.api('POST', '/credentials', {
		name: 'bench managed secret',
		type: 'messagingRelayApi',
		data: { baseUrl: simUrl, apiKey: 'sim-key-bench', authHeader: 'xApiKey', webhookSecret: KEPT },
	});
	const workflow = triggerWorkflowData({
		name: 'bench: managed secret',
		credential: { id: created.id as string, name: 'bench managed secret' },
		webhookId: benchWebhookId(9),
		events: ['message.received'],
		typeVersion: 3,
	});
	(workflow.nodes[0].parameters as Record<string, unknown>).registration = 'manual';
	await client.publish(await createWorkflow(client, workflow));
	return productionUrl(bench.stack.n8nUrl, benchWebhookId(9));
}

/** `count` deliveries one after another; each one's time to the answer, ms. */
async function timedDeliveries(url: string, kind: Kind, count: number): Promise<number[]> {
	const events = readJson<Record<string, Record<string, unknown>>>(
		'test',
		'fixtures',
		'sample-events.json',
	);
	const body = JSON.stringify(
		kind === 'kept' ? events['number.reconnected'] : events['message.received'],
	);
	const expected = kind === 'kept' ? 200 : 401;
	const times: number[] = [];
	for (let i = 0; i < count; i++) {
		const t0 = process.hrtime.bigint();
		const response = await postEvent(url, body, {
			secret: kind === 'kept' ? KEPT : `whsec_wrong_guess_${i}`,
		});
		if (response.status !== expected)
			throw new Error(`bench: a ${kind} delivery answered ${response.status}, not ${expected}`);
		times.push(Number(process.hrtime.bigint() - t0) / 1e6);
	}
	return times;
}

async function main() {
	const settings = chosenSettings();
	const count = fromEnv('BENCH_SECRET_DELIVERIES', 200);
	const rounds = fromEnv('BENCH_SECRET_ROUNDS', 3);
	await withStacks(settings, async (stacks) => {
		const urls = new Map<BenchStack, string>();
		for (const bench of stacks) urls.set(bench, await publish(bench));
		const results = new Map<string, number[]>();
		for (const bench of stacks)
			for (const kind of ['kept', 'read'] as Kind[])
				await timedDeliveries(urls.get(bench)!, kind, 20);
		for (let r = 0; r < rounds; r++) {
			for (const bench of stacks) {
				for (const kind of (r % 2 === 0 ? ['kept', 'read'] : ['read', 'kept']) as Kind[]) {
					const key = `${bench.setting.key}:${kind}`;
					results.set(key, [
						...(results.get(key) ?? []),
						...(await timedDeliveries(urls.get(bench)!, kind, count)),
					]);
				}
			}
		}
		const lines = [
			'| Setting | no read: p50 / p99, ms | one read: p50 / p99, ms | a read adds (p50), ms | ratio (p50) |',
			'|---|---|---|---|---|',
		];
		for (const bench of stacks) {
			const kept = results.get(`${bench.setting.key}:kept`)!;
			const read = results.get(`${bench.setting.key}:read`)!;
			lines.push(
				`| ${bench.setting.label} | ${round(median(kept), 2)} / ${round(percentile(kept, 99), 2)} | ${round(median(read), 2)} / ${round(percentile(read, 99), 2)} | ${round(median(read) - median(kept), 2)} | ${round(median(read) / median(kept), 2)} |`,
			);
		}
		say(
			`${rounds} alternating rounds of ${count} deliveries of each kind, one at a time, n8n 2.41.1`,
		);
		console.log(lines.join('\n'));
	});
}

main().catch((error: Error) => {
	console.error(`Benchmark failed: ${error.stack ?? error.message}`);
	process.exit(1);
});
