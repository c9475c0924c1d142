import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { sample, sampleEventTypes, futureEvent } from '../fixtures/events';
import { api, executions, finishedExecutions, nodeItems, sim, simRequests, triggerWorkflow, registeredUrl } from './n8nApi';

const WEBHOOK_ID = '9a8b7c6d-1111-4222-8333-944455566677';
let workflowId: string;
let publishedAt: number;

beforeAll(async () => {
	({ workflowId } = await triggerWorkflow({
		name: 'e2e: every event',
		apiKey: 'sim-key-e2e',
		webhookId: WEBHOOK_ID,
		events: sampleEventTypes,
	}));
	publishedAt = Date.now();
	await api('POST', `/workflows/${workflowId}/activate`);
});

const deliver = async (body: IDataObject) =>
	(await sim('POST', '/deliver', { account: 'acct_e2e', ...body })) as { status: number; body: string };

describe('a published trigger workflow in the real n8n', () => {
	test('publishing sends PUT /v1/webhook with n8n\'s production webhook URL', async () => {
		const puts = (await simRequests(publishedAt)).filter((r) => r.method === 'PUT' && r.account === 'acct_e2e');
		expect(puts.map((r) => r.body)).toEqual([{ url: registeredUrl(WEBHOOK_ID) }]);
	});

	test('each of the 16 sample events, delivered with the secret, gives one successful execution carrying it', async () => {
		for (const type of sampleEventTypes) {
			const result = await deliver({ type });
			expect({ type, status: result.status, body: result.body }).toEqual({ type, status: 200, body: '{"received":true}' });
		}
		const runs = await finishedExecutions(workflowId, 16);
		expect(runs).toHaveLength(16);
		expect(runs.every((e) => e.status === 'success')).toBe(true);
		const items = runs.map((e) => nodeItems(e, 'Relay Trigger')[0]);
		expect(items.map((i) => i.type).sort()).toEqual([...sampleEventTypes].sort());
		for (const item of items) {
			expect(item.event).toEqual(sample(item.type as (typeof sampleEventTypes)[number]));
		}
	});

	test('a wrong and a missing secret get 401 and no execution; an unselected event 200 and none', async () => {
		const before = (await executions(workflowId)).length;
		expect((await deliver({ type: 'message.received', secret: 'whsec_wrong' })).status).toBe(401);
		expect((await deliver({ type: 'message.received', secret: null })).status).toBe(401);
		const unselected = await deliver({ event: futureEvent });
		expect(unselected.status).toBe(200);
		expect(JSON.parse(unselected.body)).toEqual({ received: true, ignored: 'event type not selected' });
		await sleep(1500);
		expect((await executions(workflowId)).length).toBe(before);
	});

	test('unpublishing sends DELETE /v1/webhook', async () => {
		const since = Date.now();
		await api('POST', `/workflows/${workflowId}/deactivate`);
		const deletes = (await simRequests(since)).filter((r) => r.method === 'DELETE' && r.account === 'acct_e2e');
		expect(deletes).toHaveLength(1);
		const state = await sim('GET', '/state');
		expect((state.webhooks as IDataObject).acct_e2e).toBeNull();
	});
});
