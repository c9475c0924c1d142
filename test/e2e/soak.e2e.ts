/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Soak: 5,000 deliveries (1,000 on n8n 1.x) of mixed event types, 10% of them with a bad secret, as fast as the
 * machine takes them (24 at once), to the trigger as new workflows get it (version 3, answering when
 * the execution has ended). Every good delivery gives exactly one successful execution carrying it;
 * every bad one a 401 and none. Reports deliveries/s and n8n's memory.
 *
 * n8n runs with lazy isolate acquisition for it (N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true, restarted
 * before and after): n8n as shipped builds an expression isolate for every execution, which the
 * package's code never sees (docs/performance.md): the 5,000 took 8.5 minutes of CI that way, against
 * the budget of a cold CI run under 45 minutes (issue 25). What this soak proves, one execution per
 * good delivery and none per bad one, is the package's; the rate as n8n ships is the benchmark's
 * (`npm run bench`), and every other end-to-end suite runs n8n as shipped. SOAK_AS_SHIPPED=1 runs it
 * without the restarts.
 */
import type { IDataObject } from 'n8n-workflow';

import { sample, sampleEventTypes } from '../fixtures/events';
import {
	allExecutions,
	api,
	eventually,
	info,
	n8nMemoryMb,
	nodeItems,
	productionUrl,
	report,
	restartN8n,
	sim,
	triggerWorkflow,
} from '../support/e2e';

const WEBHOOK_ID = '5e1f2a3b-4c5d-4e6f-8a70-8192a3b4c5d6';
/** The setting the soak runs n8n with (n8n's @n8n/config, expression-engine.config.js:87). */
const LAZY = 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE';
const lazy = process.env.SOAK_AS_SHIPPED !== '1' && info.n8nVersion.startsWith('2.');
/**
 * n8n 1.123 has no lazy isolates: as shipped it took 5,000 deliveries at 10/s (490 s, 2026-11-26),
 * a CI budget of its own; the same check on 500 there (1,000 took 88 s of a cold CI run's 12-minute
 * 1.x leg, 2026-11-28: issue 25's 45 minutes had no room left).
 */
const TOTAL = info.n8nVersion.startsWith('1.') ? 500 : 5000;
const CONCURRENCY = 24;

beforeAll(async () => {
	if (lazy) await restartN8n({ env: { [LAZY]: 'true' } });
}, 360_000);

afterAll(async () => {
	if (lazy) await restartN8n({ env: { [LAZY]: undefined } });
}, 360_000);

test(`${TOTAL} deliveries, 10% with a bad secret: exactly one execution per good delivery`, async () => {
	const { workflowId } = await triggerWorkflow({
		name: 'e2e: soak',
		apiKey: 'sim-key-soak',
		webhookId: WEBHOOK_ID,
		events: ['*'],
		typeVersion: 3,
	});
	await api('POST', `/workflows/${workflowId}/activate`);
	const secret = ((await sim('GET', '/webhooks')) as Record<string, { secret: string }>).acct_soak
		.secret;
	const url = productionUrl(WEBHOOK_ID);

	const deliveries = Array.from({ length: TOTAL }, (_, i) => {
		const event = sample(sampleEventTypes[i % sampleEventTypes.length]) as IDataObject;
		event.deliveryId = `soak-${i}`;
		return { id: `soak-${i}`, good: i % 10 !== 7, body: JSON.stringify(event) };
	});
	const statuses = new Map<string, number>();
	const memoryStartMb = n8nMemoryMb();
	const started = Date.now();
	let next = 0;
	await Promise.all(
		Array.from({ length: CONCURRENCY }, async () => {
			while (next < deliveries.length) {
				const delivery = deliveries[next++];
				const response = await fetch(url, {
					method: 'POST',
					headers: {
						'content-type': 'application/json',
						'x-service-secret': delivery.good ? secret : `${secret.slice(0, -1)}x`,
					},
					body: delivery.body,
				});
				await response.arrayBuffer();
				statuses.set(delivery.id, response.status);
			}
		}),
	);
	const seconds = (Date.now() - started) / 1000;
	const good = deliveries.filter((d) => d.good);
	const bad = deliveries.filter((d) => !d.good);
	expect(good.every((d) => statuses.get(d.id) === 200)).toBe(true);
	expect(bad.every((d) => statuses.get(d.id) === 401)).toBe(true);

	const executions = await eventually(async () => {
		const list = await allExecutions(workflowId);
		const finished = list.filter((e) => e.status !== 'running' && e.status !== 'new');
		return finished.length >= good.length ? finished : undefined;
	}, 600_000);
	const memoryEndMb = n8nMemoryMb();
	const ids = executions.map(
		(e) => (nodeItems(e, 'Relay Trigger')[0]?.event as IDataObject | undefined)?.deliveryId,
	);
	expect(executions).toHaveLength(good.length);
	expect(executions.every((e) => e.status === 'success')).toBe(true);
	expect(new Set(ids).size).toBe(good.length);
	expect(new Set(ids)).toEqual(new Set(good.map((d) => d.id)));

	report('soak', {
		deliveries: TOTAL,
		badSecret: bad.length,
		concurrency: CONCURRENCY,
		seconds: Math.round(seconds * 10) / 10,
		deliveriesPerSecond: Math.round(TOTAL / seconds),
		n8n: lazy ? `${LAZY}=true` : 'as shipped',
		n8nMemoryStartMb: memoryStartMb,
		n8nMemoryEndMb: memoryEndMb,
	});
	await api('POST', `/workflows/${workflowId}/deactivate`);
}, 1_800_000);
