/**
 * n8n stopped and started with a published trigger workflow: the registration that still
 * stands is kept (no new PUT, the secret survives in static data), events after the restart
 * are verified and run; a webhook the service lost while n8n was down is registered again
 * at start. n8n activates published workflows at start after it reports ready, so the tests
 * wait for the service calls instead of reading them right after the restart.
 */
import {
	api,
	eventually,
	finishedExecutions,
	registeredUrl,
	report,
	restartN8n,
	sim,
	simRequests,
	triggerWorkflow,
} from '../support/e2e';

const WEBHOOK_ID = '4d0e1f2a-3b4c-4d5e-9f60-718293a4b5c6';
let workflowId: string;

const webhookOf = async () =>
	((await sim('GET', '/webhooks')) as Record<string, { url: string; secret: string } | null>)
		.acct_restart;

beforeAll(async () => {
	({ workflowId } = await triggerWorkflow({
		name: 'e2e: restart',
		apiKey: 'sim-key-restart',
		webhookId: WEBHOOK_ID,
		events: ['message.received'],
		// This suite counts the calls made at start; the periodic registration check
		// (repair.e2e.ts) would add a GET whenever its 5 minutes come round during a test.
		options: { repairInterval: 'off' },
	}));
	await api('POST', `/workflows/${workflowId}/activate`);
});

afterAll(async () => {
	await api('POST', `/workflows/${workflowId}/deactivate`);
});

/** The service calls for this account since `since`, once n8n has made at least `count`. */
const callsSince = async (since: number, count: number) =>
	await eventually(async () => {
		const calls = (await simRequests(since))
			.filter((r) => r.account === 'acct_restart')
			.map((r) => `${r.method} ${r.path}`);
		return calls.length >= count ? calls : undefined;
	}, 30_000);

test('a restart keeps the registration and the secret: no new PUT, events run', async () => {
	const before = await webhookOf();
	expect(before?.url).toEqual(registeredUrl(WEBHOOK_ID));
	const since = Date.now();
	await restartN8n();
	// checkExists looks once at start; no DELETE on shutdown, no new PUT.
	expect(await callsSince(since, 1)).toEqual(['GET /v1/webhook']);
	expect((await webhookOf())?.secret).toBe(before?.secret);

	const delivered = await sim('POST', '/deliver', {
		type: 'message.received',
		account: 'acct_restart',
	});
	expect(delivered.status).toBe(200);
	const wrong = await sim('POST', '/deliver', {
		type: 'message.received',
		account: 'acct_restart',
		secret: 'whsec_x',
	});
	expect(wrong.status).toBe(401);
	const runs = await finishedExecutions(workflowId, 1);
	expect(runs.map((r) => r.status)).toEqual(['success']);
	// Nothing more was sent after the start either.
	expect(await callsSince(since, 1)).toEqual(['GET /v1/webhook']);
});

test('a webhook the service lost while n8n was down is registered again at start, with a new secret that verifies', async () => {
	const lostSecret = (await webhookOf())?.secret;
	await sim('POST', '/webhooks/forget', { account: 'acct_restart' });
	expect(await webhookOf()).toBeNull();
	const since = Date.now();
	await restartN8n();
	// checkExists finds it gone; create looks again (the one-webhook rule) and registers.
	expect(await callsSince(since, 3)).toEqual([
		'GET /v1/webhook',
		'GET /v1/webhook',
		'PUT /v1/webhook',
	]);
	const restored = await webhookOf();
	expect(restored?.url).toEqual(registeredUrl(WEBHOOK_ID));
	expect(restored?.secret).not.toBe(lostSecret);

	// The simulator signs with the new secret; the old one is refused. n8n saves the new secret
	// a moment after the PUT is answered (after all of the workflow's webhooks are set up): a
	// delivery in that moment is answered 503 Retry-After and sent again, as the service does. A
	// correctly signed delivery is never answered 401 (docs/shared-webhook.md, "A registration not
	// saved yet"), so only 503 is tried again.
	const answers: number[] = [];
	const delivered = await eventually(async () => {
		const result = (await sim('POST', '/deliver', {
			type: 'message.received',
			account: 'acct_restart',
		})) as { status: number };
		answers.push(result.status);
		return result.status === 503 ? undefined : result;
	});
	report('restart: correctly signed deliveries after the new registration', { answers });
	expect(answers).not.toContain(401);
	expect(delivered.status).toBe(200);
	expect(
		(
			await sim('POST', '/deliver', {
				type: 'message.received',
				account: 'acct_restart',
				secret: lostSecret,
			})
		).status,
	).toBe(401);
	const runs = await finishedExecutions(workflowId, 2);
	expect(runs.map((r) => r.status)).toEqual(['success', 'success']);
});
