/**
 * The trigger's self-repair in the real n8n: while the workflow is published, the simulator
 * forgets the account's webhook; the trigger notices at its next check (every 5 s here, the
 * "Check Registration Every" option), n8n publishes the workflow again, the webhook is
 * registered with a new secret, and the next delivery runs. A webhook pointed elsewhere is
 * reported as a failed execution and left alone.
 */
import { sleep } from 'n8n-workflow';

import {
	api,
	currentWebhook,
	eventually,
	executions,
	finishedExecutions,
	info,
	readN8nLog,
	registeredUrl,
	relayCredential,
	report,
	sim,
	simRequests,
	simulator,
} from '../support/e2e';
import { deliver } from '../support/deliver';

const ACCOUNT = 'acct_repair';
const WEBHOOK_ID = '2e8f6a41-7c9d-4b3e-a1f2-3d4c5b6a7e8f';
let workflowId: string;

const deliverToAccount = async (secret?: string) =>
	await deliver(simulator, undefined, {
		type: 'message.received',
		account: ACCOUNT,
		...(secret ? { secret } : {}),
	});
const isRegisteredUrl = (url: unknown) => registeredUrl(WEBHOOK_ID).asymmetricMatch(url);

/**
 * Delivers with the service's current secret until it is answered other than 503, as a service does
 * with a 503 (a registration n8n has not saved yet: docs/shared-webhook.md). Every answer is kept:
 * a correctly signed delivery is never answered 401, so a 401 is not tried again.
 */
async function deliverUntilTaken(answers: number[], timeoutMs: number) {
	return await eventually(async () => {
		const { status } = await deliverToAccount();
		answers.push(status);
		return status === 503 ? undefined : status;
	}, timeoutMs);
}

beforeAll(async () => {
	const credential = await relayCredential('e2e: repair account', 'sim-key-repair');
	const workflow = await api('POST', '/workflows', {
		name: 'e2e: repair',
		nodes: [
			{
				id: 'repair-trigger',
				name: 'Relay Trigger',
				type: 'n8n-nodes-messaging-relay.messagingRelayTrigger',
				typeVersion: 1,
				position: [0, 0],
				webhookId: WEBHOOK_ID,
				parameters: { events: ['message.received'], options: { repairInterval: '5s' } },
				credentials: { messagingRelayApi: credential },
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
	});
	workflowId = workflow.id as string;
	await api('POST', `/workflows/${workflowId}/activate`);
});

afterAll(async () => {
	await api('POST', `/workflows/${workflowId}/deactivate`).catch(() => undefined);
});

test('while the registration stands, the trigger only looks: GET /v1/webhook every 5 s, no PUT', async () => {
	expect((await currentWebhook(ACCOUNT))?.url).toEqual(registeredUrl(WEBHOOK_ID));
	const since = Date.now();
	await sleep(11_000);
	const calls = (await simRequests(since))
		.filter((r) => r.account === ACCOUNT)
		.map((r) => `${r.method} ${r.path}`);
	expect(calls.length).toBeGreaterThanOrEqual(2);
	expect(new Set(calls)).toEqual(new Set(['GET /v1/webhook']));
	expect((await deliverToAccount()).status).toBe(200);
	expect((await finishedExecutions(workflowId, 1)).map((e) => e.status)).toEqual(['success']);
});

test('a webhook the service forgot is registered again within the check interval, and the next delivery runs', async () => {
	const lost = await currentWebhook(ACCOUNT);
	await sim('POST', '/webhooks/forget', { account: ACCOUNT });
	const forgotAt = Date.now();
	const restored = await eventually(async () => {
		const webhook = await currentWebhook(ACCOUNT);
		return webhook && isRegisteredUrl(webhook.url) ? webhook : undefined;
	}, 30_000);
	const lostForMs = Date.now() - forgotAt;

	// At most one interval to notice, n8n's 1 s before publishing again, and the calls.
	expect(lostForMs).toBeLessThan(5_000 + 1_000 + 3_000);
	expect(restored.secret).not.toBe(lost?.secret);
	const calls = (await simRequests(forgotAt))
		.filter((r) => r.account === ACCOUNT)
		.map((r) => `${r.method} ${r.path}`);
	// The check (GET), then n8n's publishing: create looks (GET) and registers (PUT). checkExists
	// answers from the static data n8n loaded when it first published (no secret yet), so it may
	// not ask the service at all.
	report('repair', { lostForMs, checkEverySeconds: 5, calls: calls.slice(0, 6) });
	const untilPut = calls.slice(0, calls.indexOf('PUT /v1/webhook') + 1);
	expect(untilPut[0]).toBe('GET /v1/webhook');
	expect(untilPut.filter((c) => c !== 'GET /v1/webhook')).toEqual(['PUT /v1/webhook']);
	expect(untilPut.length).toBeLessThanOrEqual(4);
	expect(calls.filter((c) => c === 'PUT /v1/webhook')).toHaveLength(1);

	// n8n saves the new secret with the workflow a moment after the PUT; until then a delivery
	// signed with it is answered 503 (sent again), never 401. Then webhook() verifies it.
	const answers: number[] = [];
	const delivered = await deliverUntilTaken(answers, 15_000);
	report('repair: correctly signed deliveries after the new registration', { answers });
	expect(answers).not.toContain(401);
	expect(delivered).toBe(200);
	expect((await deliverToAccount(lost?.secret)).status).toBe(401);
	const runs = await finishedExecutions(workflowId, 2);
	expect(runs.map((r) => r.status)).toEqual(['success', 'success']);
	// It keeps checking afterwards.
	const since = Date.now();
	await eventually(
		async () => (await simRequests(since)).some((r) => r.account === ACCOUNT && r.method === 'GET'),
		15_000,
	);
}, 90_000);

// n8n 1.123 has no failed execution for a published trigger: there the same words go to n8n's log
// (n8nCapabilities.ts, saveFailedExecution), and the workflow's executions stay as they were.
const onN8n1 = Number(info.n8nVersion.split('.')[0]) === 1;
const POINTED_ELSEWHERE =
	"The account's webhook now points at https://crm.example.com/relay-hook, not at this trigger";
const reportsInLog = () => readN8nLog().split(POINTED_ELSEWHERE).length - 1;

test('a webhook pointed elsewhere is reported once (a failed execution; on n8n 1.x in its log) and not taken over', async () => {
	const before = (await executions(workflowId)).length;
	const logged = reportsInLog();
	await sim('POST', '/webhooks/point', {
		account: ACCOUNT,
		url: 'https://crm.example.com/relay-hook',
	});
	if (onN8n1) {
		await eventually(async () => reportsInLog() > logged, 30_000);
		expect(readN8nLog()).toContain(
			`Messaging Relay Trigger "Relay Trigger" of workflow "e2e: repair": ${POINTED_ELSEWHERE}`,
		);
	} else {
		const failed = await eventually(async () => {
			const list = await executions(workflowId);
			return list.length > before ? list.find((e) => e.status === 'error') : undefined;
		}, 30_000);
		expect(JSON.stringify(failed.data?.resultData.error)).toContain(POINTED_ELSEWHERE);
	}
	await sleep(11_000);
	expect((await currentWebhook(ACCOUNT))?.url).toBe('https://crm.example.com/relay-hook');
	expect((await executions(workflowId)).length).toBe(before + (onN8n1 ? 0 : 1));
	if (onN8n1) expect(reportsInLog()).toBe(logged + 1);
	// Still published: once the webhook is back (here set by hand), deliveries run again.
	await sim('POST', '/webhooks/forget', { account: ACCOUNT });
	await eventually(
		async () => (isRegisteredUrl((await currentWebhook(ACCOUNT))?.url) ? true : undefined),
		30_000,
	);
	const answers: number[] = [];
	expect(await deliverUntilTaken(answers, 15_000)).toBe(200);
	expect(answers).not.toContain(401);
}, 90_000);
