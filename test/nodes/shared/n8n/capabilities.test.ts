/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The package on n8n 1.123.x (docs/compatibility.md): n8n-core 2.41.1's contexts with what
 * n8n 1.123.81 lacks hidden (test/support/harness/n8n1.ts, which cites 1.123.81's code), over real
 * HTTP against the simulator. Each test fails without the fallback in nodes/shared/n8n/capabilities.ts
 * (or transport.ts for the socket code).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import { ExecuteContext, WebhookContext } from 'n8n-core';
import type {
	IExecuteFunctions,
	INode,
	INodeParameters,
	IRunExecutionData,
	IWebhookFunctions,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { createRunExecutionData, sleep, Workflow } from 'n8n-workflow';

import { executeSendAndWait } from '../../../../nodes/MessagingRelay/actions/sendAndWait/sendAndWait';
import { MessagingRelay } from '../../../../nodes/MessagingRelay/MessagingRelay.node';
import { PAUSED } from '../../../../nodes/MessagingRelayTrigger/chatPause';
import { setAsideLimits } from '../../../../nodes/shared/sharing/memberHealth';
import {
	executionCustomData,
	testUrlOf,
	webhookResourceUrl,
} from '../../../../nodes/shared/n8n/capabilities';
import { retryPolicy } from '../../../../nodes/shared/retry';
import { deriveShareKey } from '../../../../nodes/shared/sharedWebhook/signedHandoff';
import { serviceSecretMatches } from '../../../../nodes/shared/serviceSecret';
import {
	holdWebhook,
	SECRET_CHECK,
} from '../../../../nodes/MessagingRelay/actions/sendAndWait/waitingHolder';
import { parseRegistration } from '../../../../nodes/shared/sharedWebhook/registeredUrl';
import { relayApiRequest } from '../../../../nodes/shared/transport';
import { ADA_CHAT, receivedIn, sample, type SampleEventType } from '../../../fixtures/events';
import { startRelaySimulator, type RelaySimulator } from '../../../simulator';
import { asN8n1, without, withoutCause } from '../../../support/harness/n8n1';
import { missedEventsIn } from '../../../support/missedEvents';
import {
	coreLogger,
	PackageNodeTypes,
	additionalDataFor,
	relayCredentials,
	relayNode,
	runActionNode,
} from '../../../support/harness/n8nRuntime';
import {
	withSharedN8nPerTest,
	type SharedN8n,
	type SharedWorkflow,
} from '../../../support/harness/sharedN8n';

/** The logger of every n8n-core context (node-execution-context.js `get logger()`, one per process). */

describe('on n8n 1.123: many workflows on one account (no getWebhookResourceUrl)', () => {
	let sim: RelaySimulator;
	let n8n: SharedN8n;
	withSharedN8nPerTest((s, n) => {
		[sim, n8n] = [s, n];
		n8n.contextOf = asN8n1;
	});

	const threeWorkflows = () => ({
		reply: n8n.addWorkflow('auto-reply', {
			events: ['message.received'],
			options: { chatType: 'direct' },
		}),
		alert: n8n.addWorkflow('disconnect-alert', { events: ['number.disconnected'] }),
		groups: n8n.addWorkflow('group-logger', {
			events: ['group.member_joined', 'group.member_left', 'group.updated'],
		}),
	});
	const counts = (workflows: Record<string, SharedWorkflow>) =>
		Object.fromEntries(
			Object.entries(workflows).map(([name, w]) => [name, w.productionEvents.length]),
		);
	let round = 0;
	async function deliverAll() {
		round += 1;
		const answers = [];
		for (const type of [
			'message.received',
			'number.disconnected',
			'group.updated',
			'message.read',
		] as SampleEventType[]) {
			answers.push((await sim.deliver({ ...sample(type), deliveryId: `compat-${round}` })).status);
		}
		return answers;
	}

	test('every published trigger receives the events it selects, once: the hand-offs verify', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		expect(await deliverAll()).toEqual([200, 200, 200, 200]);
		expect(await deliverAll()).toEqual([200, 200, 200, 200]);
		expect(counts(w)).toEqual({ reply: 2, alert: 2, groups: 2 });
		// Forwarded to the two members, none refused.
		const handoffs = n8n.served.filter((s) => s.handoff === 'event');
		expect(handoffs.length).toBeGreaterThanOrEqual(4);
	});

	test('a test listener that is a member receives its event by hand-off, at its test URL', async () => {
		const w = threeWorkflows();
		await w.reply.publish();
		await w.alert.listenForTest();
		// A trigger published after it holds the registration and lists the listener's test URL.
		await w.groups.publish();
		expect(parseRegistration(sim.webhook!.url)).toMatchObject({
			holderPath: w.groups.productionPath,
			testMembers: [w.alert.testPath],
		});
		expect(
			(await sim.deliver({ ...sample('number.disconnected'), deliveryId: 'compat-test' })).status,
		).toBe(200);
		await n8n.settled();
		expect(n8n.served).toContainEqual({ path: w.alert.testPath, handoff: 'event' });
		expect(w.alert.executions.map((e) => e.mode)).toEqual(['test']);
	});

	test('Pause and Resume Automatic Replies reach the one trigger of the account (was "1 of 1 trigger(s) did not answer")', async () => {
		const pauseOption = {
			pauseWhenPersonReplies: { settings: { minutes: 30, keyword: '#bot', apiOrigins: 'api' } },
		};
		const assistant = n8n.addWorkflow('assistant', {
			events: ['message.received'],
			options: pauseOption,
		} as INodeParameters);
		await assistant.publish();
		const action = async (parameters: INodeParameters) =>
			await runActionNode(
				relayNode({ resource: 'message', chat: ADA_CHAT, ...parameters }),
				relayCredentials(sim.baseUrl),
			);
		const paused = await action({ operation: 'pauseReplies', pauseMinutes: 60 });
		expect(paused.error).toBeUndefined();
		expect(paused.items![0].json).toMatchObject({
			chatId: ADA_CHAT,
			automaticReplies: 'paused',
			workflows: 1,
		});
		expect(JSON.parse((await sim.deliver(receivedIn(ADA_CHAT))).body)).toEqual({
			received: true,
			ignored: PAUSED,
		});
		expect(assistant.productionEvents).toEqual([]);
		const resumed = await action({ operation: 'resumeReplies' });
		expect(resumed.items![0].json).toMatchObject({
			chatId: ADA_CHAT,
			automaticReplies: 'resumed',
			workflows: 1,
		});
		expect((await sim.deliver(receivedIn(ADA_CHAT))).status).toBe(200);
		expect(assistant.productionEvents).toHaveLength(1);
	});

	test("a webhook pointed elsewhere is written to n8n's log at level error (no saveFailedExecution), and the check does not fail", async () => {
		const w = n8n.addWorkflow('alone', { events: ['message.received'] });
		await w.publish();
		sim.webhook = { ...sim.webhook!, url: 'https://crm.example.com/hook' };
		const logger = coreLogger();
		const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
		const warnings = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
		try {
			const first = await w.registrationCheckTick();
			expect(first).toEqual({ emitted: [], failed: [] });
			// The description follows on the same line: n8n 1.123's text log prints no metadata.
			expect(errors.mock.calls.map(([message]) => message)).toEqual([
				`Messaging Relay Trigger "Messaging Relay Trigger" of workflow "wf-${w.node.webhookId}": The account's webhook now points at https://crm.example.com/hook, not at this trigger | Someone or something set the account's one webhook to another URL, so this workflow receives no events. The trigger does not take it over. To receive events here again, publish this workflow again with "Replace Existing Webhook" on (the receiver at that URL then stops getting events).`,
			]);
			expect(errors.mock.calls[0][1]).toMatchObject({
				description: expect.stringContaining('Replace Existing Webhook'),
			});
			expect(warnings).not.toHaveBeenCalled();
		} finally {
			errors.mockRestore();
			warnings.mockRestore();
		}
	});

	test("a set-aside member's missed events go to n8n's log on one line that names each of them (1.123's text log prints the message, never the metadata)", async () => {
		const span = setAsideLimits.spanMs;
		setAsideLimits.spanMs = 500;
		const logger = coreLogger();
		const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
		try {
			const alert = n8n.addWorkflow(
				'alert',
				{ events: ['number.disconnected'] },
				'sim-key-full',
				3,
			);
			const holder = n8n.addWorkflow('logger', { events: ['*'] }, 'sim-key-full', 3);
			for (const w of [alert, holder]) await w.publish();
			alert.runsFail = Number.MAX_SAFE_INTEGER;
			const disconnect = (id: string) => ({ ...sample('number.disconnected'), deliveryId: id });
			const settled = async (body: unknown) => {
				const { status } = await sim.deliver(body);
				await sleep(20);
				return status;
			};
			// Three failed hand-offs within the bound: the service is asked to deliver again.
			for (let i = 0; i < 3; i++) expect(await settled(disconnect('n8n1-missed-1'))).toBe(503);
			await sleep(600);
			// Past the bound: set aside, the service gets its 2xx, each event offered once and missed.
			expect(await settled(disconnect('n8n1-missed-1'))).toBe(200);
			expect(await settled(disconnect('n8n1-missed-2'))).toBe(200);
			errors.mockClear();
			expect(await alert.registrationCheckTick()).toEqual({ emitted: [], failed: [] });
			const lines = errors.mock.calls.map(([message]) => String(message));
			expect(lines).toHaveLength(1);
			expect(lines[0]).not.toContain('\n');
			const prefix = `Messaging Relay Trigger "Messaging Relay Trigger" of workflow "wf-${alert.node.webhookId}": `;
			expect(lines[0]).toMatch(
				new RegExp(
					`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}This workflow missed 2 event\\(s\\) while it could not take them \\(\\S+ to \\S+\\): number\\.disconnected × 2 \\| Its trigger failed to take the events`,
				),
			);
			const [, ...description] = lines[0].split(' | ');
			expect(
				missedEventsIn(description.join(' | '))?.events.map(({ id, type }) => [id, type]),
			).toEqual([
				['n8n1-missed-1', 'number.disconnected'],
				['n8n1-missed-2', 'number.disconnected'],
			]);
		} finally {
			setAsideLimits.spanMs = span;
			errors.mockRestore();
		}
	});
});

describe('on n8n 1.123: the url of the webhook being served', () => {
	test('the test URL is the production URL with the endpoint the request came in on', () => {
		expect(
			testUrlOf('https://n8n.example.com/webhook/abc/webhook', '/webhook-test/abc/webhook'),
		).toBe('https://n8n.example.com/webhook-test/abc/webhook');
		// A public address with a path of its own (N8N_WEBHOOK_URL behind a proxy), and renamed endpoints.
		expect(testUrlOf('https://example.com/n8n/hooks/abc/webhook', '/hooks-test/abc/webhook')).toBe(
			'https://example.com/n8n/hooks-test/abc/webhook',
		);
		// Not n8n's routing: the request's own path.
		expect(testUrlOf('https://n8n.example.com/webhook/abc/webhook', '/something/else')).toBe(
			'https://n8n.example.com/something/else',
		);
	});

	test('as getWebhookResourceUrl says it on 2.41.1, in both modes', async () => {
		const node = relayNode({});
		const workflow = new Workflow({
			id: 'wf-url',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: new PackageNodeTypes(),
		});
		const description = new MessagingRelay().description.webhooks![0];
		for (const [mode, isTest, endpoint] of [
			['webhook', false, 'webhook'],
			['manual', true, 'webhook-test'],
		] as const) {
			// The request as n8n's webhook server gets it: at the URL's path (no proxy in between).
			const request = { originalUrl: '', headers: {}, body: {}, query: {} };
			const additionalData = {
				...additionalDataFor(relayCredentials('http://127.0.0.1:1')),
				httpRequest: request,
			} as unknown as IWorkflowExecuteAdditionalData;
			const webhookData = {
				httpMethod: 'POST',
				node: node.name,
				path: node.id,
				webhookDescription: description,
				workflowId: 'wf-url',
				workflowExecuteAdditionalData: additionalData,
				isTest,
			} as const;
			const context = new WebhookContext(
				workflow,
				node,
				additionalData,
				mode,
				webhookData,
				[],
				null,
			) as unknown as IWebhookFunctions;
			const on2 = context.getWebhookResourceUrl('default')!;
			expect(on2).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:5678/${endpoint}/`));
			request.originalUrl = new URL(on2).pathname;
			expect(webhookResourceUrl(asN8n1(context, 'webhook'))).toBe(on2);
		}
	});
});

describe("on n8n 1.123: a waiting run's custom data (no customData on the contexts)", () => {
	let sim: RelaySimulator;
	beforeAll(async () => {
		sim = await startRelaySimulator();
	});
	afterAll(async () => await sim.stop());
	beforeEach(() => sim.reset());

	const node: INode = relayNode({ resource: 'message', operation: 'sendAndWait' });
	const workflow = () =>
		new Workflow({
			id: 'wf-wait',
			nodes: [node],
			connections: {},
			active: true,
			nodeTypes: new PackageNodeTypes(),
		});

	function executeContext(run: IRunExecutionData) {
		const input = { main: [[{ json: {} }]] };
		return new ExecuteContext(
			workflow(),
			node,
			additionalDataFor(relayCredentials(sim.baseUrl)),
			'webhook',
			run,
			0,
			[],
			input,
			{ node, data: input, source: null },
			[],
		);
	}

	function webhookContext(run: IRunExecutionData) {
		const additionalData = {
			...additionalDataFor(relayCredentials(sim.baseUrl)),
			httpRequest: { headers: {}, body: {}, query: {} },
		} as unknown as IWorkflowExecuteAdditionalData;
		const description = new MessagingRelay().description.webhooks![0];
		const webhookData = {
			httpMethod: 'POST',
			node: node.name,
			path: node.id,
			webhookDescription: description,
			workflowId: 'wf-wait',
			workflowExecuteAdditionalData: additionalData,
		} as const;
		return new WebhookContext(workflow(), node, additionalData, 'webhook', webhookData, [], run);
	}

	test("the run that holds the webhook keeps the hash of the service's secret, and its resume reads it back", async () => {
		const run = createRunExecutionData({
			executionData: {
				nodeExecutionStack: [{ node, data: { main: [[{ json: {} }]] }, source: null }],
			},
		});
		const key = deriveShareKey('sim-key-full');
		const ownUrl = 'http://127.0.0.1:5678/webhook-waiting/exec-1/relay-node?chat=4917610000009';
		const asking = asN8n1(executeContext(run), 'execute') as unknown as IExecuteFunctions;
		expect('customData' in asking).toBe(false);

		expect(await holdWebhook.call(asking, key, ownUrl)).toBeUndefined();
		expect(sim.webhook?.url).toBe(ownUrl);
		// Kept where n8n saves custom data with the execution: the waiting run carries it.
		expect(Object.keys(run.resultData.metadata ?? {})).toEqual([SECRET_CHECK]);
		expect(JSON.stringify(run)).not.toContain(sim.webhook!.secret);

		const resumed = asN8n1(webhookContext(run), 'webhook') as unknown as IWebhookFunctions;
		const check = executionCustomData(resumed).get(SECRET_CHECK);
		expect(serviceSecretMatches(sim.webhook!.secret, { hmacKey: key, check })).toBe(true);
		expect(serviceSecretMatches('whsec_wrong', { hmacKey: key, check })).toBe(false);
		expect(executionCustomData(resumed).get('relayQuestionId')).toBeUndefined();
		// The same value as 2.x's own customData reads.
		expect(webhookContext(run).customData.get(SECRET_CHECK)).toBe(check);
	});

	test('with expressions in an isolate, as n8n 1.123.81 evaluates them by default: the resume still reads the hash back', async () => {
		// 1.123.81 acquires an isolate around a waiting run's webhook (n8n webhooks/waiting-webhooks.js:172-217)
		// and its bridge hands functions over as undefined (@n8n/expression-runtime
		// bridge/isolated-vm-bridge.js:324-331), so `$execution.customData.get(…)` in an expression
		// read nothing there: 401 'Invalid secret' for every delivery. The read runs in a child
		// process on the built package (test/support/harness/isolateCustomDataRead.cjs says why).
		const run = createRunExecutionData({
			executionData: {
				nodeExecutionStack: [{ node, data: { main: [[{ json: {} }]] }, source: null }],
			},
		});
		const key = deriveShareKey('sim-key-full');
		const ownUrl = 'http://127.0.0.1:5678/webhook-waiting/exec-1/relay-node?chat=4917610000009';
		const asking = asN8n1(executeContext(run), 'execute') as unknown as IExecuteFunctions;
		expect(await holdWebhook.call(asking, key, ownUrl)).toBeUndefined();

		const output = execFileSync(
			process.execPath,
			[join(__dirname, '../../../support/harness/isolateCustomDataRead.cjs')],
			{
				input: JSON.stringify({ run, key: SECRET_CHECK }),
				encoding: 'utf8',
				stdio: ['pipe', 'pipe', 'pipe'],
			},
		);
		const read = JSON.parse(/^RESULT (.*)$/m.exec(output)?.[1] ?? 'null') as {
			engine: string;
			executionId: unknown;
			customDataGet: unknown;
			value: string | null;
		};
		// The isolate evaluated the run's expressions, and could not reach customData's functions.
		expect(read).toMatchObject({
			engine: 'quickjs',
			executionId: 'exec-1',
			customDataGet: 'undefined',
		});
		expect(serviceSecretMatches(sim.webhook!.secret, { hmacKey: key, check: read.value })).toBe(
			true,
		);
		expect(read.value).toBe(webhookContext(run).customData.get(SECRET_CHECK));
	});

	test('a context that offers no custom data at all: a clear error naming the n8n it needs', () => {
		const run = createRunExecutionData({ executionData: null });
		const bare = without(executeContext(run), [
			'customData',
			'additionalKeys',
		]) as unknown as IExecuteFunctions;
		expect(() => executionCustomData(bare)).toThrow(
			'This n8n keeps no custom data for the run: Send and Wait for Reply needs n8n 1.123.0 or later',
		);
	});

	test('an n8n older than 1.123 (no signed resume URLs): Send and Wait refuses before it registers or sends anything', async () => {
		const asking = relayNode({
			resource: 'message',
			operation: 'sendAndWait',
			message: 'Reply 1 or 2',
			waitTo: '+4917600000001',
			waitChannelId: 'num_main',
		});
		const input = { main: [[{ json: {} }]] };
		const run = createRunExecutionData({
			executionData: { nodeExecutionStack: [{ node: asking, data: input, source: null }] },
		});
		const workflow = new Workflow({
			id: 'wf-old',
			nodes: [asking],
			connections: {},
			active: true,
			nodeTypes: new PackageNodeTypes(),
		});
		const context = new ExecuteContext(
			workflow,
			asking,
			additionalDataFor(relayCredentials(sim.baseUrl)),
			'manual',
			run,
			0,
			[],
			input,
			{ node: asking, data: input, source: null },
			[],
		);
		const old = without(context, ['getSignedResumeUrl']) as unknown as IExecuteFunctions;
		await expect(executeSendAndWait.call(old)).rejects.toMatchObject({
			message: 'Send and Wait for Reply needs n8n 1.123.0 or later',
			description: expect.stringContaining('This n8n lacks getSignedResumeUrl'),
		});
		expect(sim.requests).toEqual([]);
	});
});

describe('on n8n 1.123: a refused connection (NodeApiError without its cause)', () => {
	test('POST /v1/messages is still retried when the connection was refused (nothing was sent)', async () => {
		const flaky = await startRelaySimulator();
		const port = Number(new URL(flaky.baseUrl).port);
		await flaky.stop();
		const saved = retryPolicy.baseDelayMs;
		retryPolicy.baseDelayMs = 150;
		const node = relayNode({});
		const input = { main: [[{ json: {} }]] };
		const context = new ExecuteContext(
			new Workflow({
				id: 'wf-refused',
				nodes: [node],
				connections: {},
				active: false,
				nodeTypes: new PackageNodeTypes(),
			}),
			node,
			additionalDataFor(relayCredentials(`http://127.0.0.1:${port}`)),
			'manual',
			createRunExecutionData({ executionData: null }),
			0,
			[],
			input,
			{ node, data: input, source: null },
			[],
		);
		const own = context.helpers.httpRequestWithAuthentication;
		context.helpers.httpRequestWithAuthentication = async function (
			this: ThisParameterType<typeof own>,
			...args: Parameters<typeof own>
		) {
			return await own.apply(this, args).catch((error: unknown) => {
				throw withoutCause(error);
			});
		} as typeof own;
		const restart = (async () => {
			await sleep(200);
			return await startRelaySimulator({ port });
		})();
		try {
			const sent = await relayApiRequest.call(context as unknown as IExecuteFunctions, {
				method: 'POST',
				path: '/v1/messages',
				body: { channelId: 'num_main', to: '+4917600000001', text: 'hello' },
				scope: 'messages:send',
				itemIndex: 0,
			});
			const back = await restart;
			expect(sent.statusCode).toBeLessThan(300);
			expect(back.messages).toHaveLength(1);
			await back.stop();
		} finally {
			retryPolicy.baseDelayMs = saved;
		}
	});
});
