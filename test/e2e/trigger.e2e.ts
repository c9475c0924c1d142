import type { IDataObject } from 'n8n-workflow';

import { sample, sampleEventTypes, futureEvent } from '../fixtures/events';
import {
	api,
	executions,
	finishedExecutions,
	nodeItems,
	registeredUrl,
	sim,
	simRequests,
	simulator,
	triggerWorkflow,
	executionsSettled,
} from '../support/e2e';
import { deliver } from '../support/deliver';

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

const deliverToAccount = (what: { type?: string; event?: unknown; secret?: string | null }) =>
	deliver(simulator, what.event, { account: 'acct_e2e', type: what.type, secret: what.secret });

describe('a published trigger workflow in the real n8n', () => {
	test("publishing sends PUT /v1/webhook with n8n's production webhook URL", async () => {
		const puts = (await simRequests(publishedAt)).filter(
			(r) => r.method === 'PUT' && r.account === 'acct_e2e',
		);
		expect(puts.map((r) => r.body)).toEqual([{ url: registeredUrl(WEBHOOK_ID) }]);
	});

	test('each of the 16 sample events, delivered with the secret, gives one successful execution carrying it', async () => {
		for (const type of sampleEventTypes) {
			const result = await deliverToAccount({ type });
			expect({ type, status: result.status, body: result.body }).toEqual({
				type,
				status: 200,
				body: '{"received":true}',
			});
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
		expect(
			(await deliverToAccount({ type: 'message.received', secret: 'whsec_wrong' })).status,
		).toBe(401);
		expect((await deliverToAccount({ type: 'message.received', secret: null })).status).toBe(401);
		const unselected = await deliverToAccount({ event: futureEvent });
		expect(unselected.status).toBe(200);
		expect(JSON.parse(unselected.body)).toEqual({
			received: true,
			ignored: 'event type not selected',
		});
		await executionsSettled([workflowId]);
		expect((await executions(workflowId)).length).toBe(before);
	});

	test('unpublishing sends DELETE /v1/webhook', async () => {
		const since = Date.now();
		await api('POST', `/workflows/${workflowId}/deactivate`);
		const deletes = (await simRequests(since)).filter(
			(r) => r.method === 'DELETE' && r.account === 'acct_e2e',
		);
		expect(deletes).toHaveLength(1);
		const state = await sim('GET', '/state');
		expect((state.webhooks as IDataObject).acct_e2e).toBeNull();
	});
});

describe('node version 2 (the default for new nodes): n8n evaluates no expression for its request', () => {
	const V2_WEBHOOK_ID = '9a8b7c6d-2222-4222-8333-944455566677';
	let v2WorkflowId: string;
	beforeAll(async () => {
		({ workflowId: v2WorkflowId } = await triggerWorkflow({
			name: 'e2e: trigger version 2',
			apiKey: 'sim-key-v2',
			webhookId: V2_WEBHOOK_ID,
			events: ['message.received'],
			typeVersion: 2,
		}));
		await api('POST', `/workflows/${v2WorkflowId}/activate`);
	});
	afterAll(async () => await api('POST', `/workflows/${v2WorkflowId}/deactivate`));

	test('JSON, text/plain JSON and a body without Content-Type run; a form or XML gets 415 and runs nothing', async () => {
		const webhook = (
			(await sim('GET', '/webhooks')) as Record<string, { url: string; secret: string }>
		).acct_v2;
		const event = (id: string) => {
			const body = sample('message.received') as unknown as IDataObject;
			(body.message as IDataObject).id = id;
			return JSON.stringify(body);
		};
		const post = async (contentType: string | undefined, body: string) => {
			const response = await fetch(webhook.url, {
				method: 'POST',
				headers: {
					'x-service-secret': webhook.secret,
					...(contentType ? { 'content-type': contentType } : {}),
				},
				// Bytes, so fetch adds no Content-Type of its own.
				body: new TextEncoder().encode(body),
			});
			return { status: response.status, body: await response.text() };
		};
		expect(await post('application/json', event('v2-json'))).toEqual({
			status: 200,
			body: '{"received":true}',
		});
		expect(await post('text/plain', event('v2-text'))).toEqual({
			status: 200,
			body: '{"received":true}',
		});
		expect(await post(undefined, event('v2-none'))).toEqual({
			status: 200,
			body: '{"received":true}',
		});
		const form = await post('application/x-www-form-urlencoded', 'type=message.received');
		expect(form.status).toBe(415);
		expect(JSON.parse(form.body).error).toContain(
			'expects a JSON event (send Content-Type: application/json)',
		);
		expect((await post('application/xml', '<event type="message.received"/>')).status).toBe(415);
		expect((await post(undefined, '{"type": "message.received",')).status).toBe(400);

		const runs = await finishedExecutions(v2WorkflowId, 3);
		await executionsSettled([v2WorkflowId]);
		expect(await executions(v2WorkflowId)).toHaveLength(3);
		expect(runs.map((e) => nodeItems(e, 'Relay Trigger')[0].messageId).sort()).toEqual([
			'v2-json',
			'v2-none',
			'v2-text',
		]);
	});
});
