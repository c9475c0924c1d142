/**
 * The trigger's self-repair (registrationRepair.ts) through n8n-core's TriggerContext, and the
 * test-event pass-through that trigger() needs beside webhook(). n8n's server side of the
 * trigger functions (emitError → publish again, saveFailedExecution, the cron) is stood in
 * here by recorders; the real n8n runs them in test/e2e/watch.e2e.ts.
 */
import { TriggerContext } from 'n8n-core';
import type {
	ExecutionError,
	IDataObject,
	INodeParameters,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { heldMessages } from '../../../nodes/MessagingRelayTrigger/burstMerge';
import { drainLimits } from '../../../nodes/shared/sharing/closingGate';
import { waitsInStaticData } from '../../../nodes/shared/sendAndWait/waitingRuns';
import { signedWaitParams } from '../../../nodes/shared/protocol/waitingRunUrl';
import { sample } from '../../fixtures/events';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { coreLogger, executeFrom, relayCredentials } from '../../support/harness/n8nRuntime';
import { TriggerHarness } from '../../support/harness/triggerRuntime';
import { waitUntil } from '../../support/waitUntil';
import { secretDigest } from '../../../nodes/shared/serviceSecret';
import {
	deriveShareKey,
	proofFor,
	signHandoff,
} from '../../../nodes/shared/sharedWebhook/signedHandoff';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());

interface Published {
	harness: TriggerHarness;
	response: ITriggerResponse;
	/** Runs the registered cron's tick and waits for the check to finish. */
	tick: () => Promise<void>;
	/** Runs a tick that finds the registration gone, and returns the line the check logged on deciding. */
	repairTick: () => Promise<string>;
	crons: string[];
	emitted: Error[];
	failed: ExecutionError[];
}

const harnesses: TriggerHarness[] = [];
const limits = { ...drainLimits };
afterEach(async () => {
	while (harnesses.length) await harnesses.pop()!.stop();
	Object.assign(drainLimits, limits);
});

/** Publishes a trigger (checkExists → create), then calls trigger() as n8n does after it. */
async function publish(
	parameters: INodeParameters = { events: ['message.received'] },
	options: Parameters<typeof TriggerHarness.start>[2] = {},
): Promise<Published> {
	const harness = await TriggerHarness.start(sim, parameters, options);
	harnesses.push(harness);
	await harness.activate();
	const crons: string[] = [];
	const emitted: Error[] = [];
	const failed: ExecutionError[] = [];
	let onTick: (() => void) | undefined;
	const context = new TriggerContext(
		harness.workflow,
		harness.node,
		harness.additionalData(),
		'trigger',
		'activate',
		() => {
			throw new Error('the repair must never start an execution');
		},
		(error) => emitted.push(error),
		(error) => failed.push(error),
		{
			registerCron: ({ expression }, callback) => {
				crons.push(expression);
				onTick = () => callback(new Date());
			},
		},
	);
	const response = await harness.trigger.trigger.call(context as unknown as ITriggerFunctions);
	const tick = async () => {
		const before = sim.requests.length;
		onTick?.();
		// The check is one GET /v1/webhook; wait for it to be answered and handled.
		for (let i = 0; i < 100 && sim.requests.length === before; i++) await sleep(10);
		await sleep(50);
	};
	const repairTick = async () => {
		const warn = jest.spyOn(coreLogger(), 'warn');
		try {
			onTick?.();
			return await waitUntil(
				'the check to log what it did about the registration',
				() =>
					warn.mock.calls
						.map(([line]) => String(line))
						.find((line) => / registered it again | publishes the workflow again /.test(line)),
				{ timeoutMs: 10_000, intervalMs: 20 },
			);
		} finally {
			warn.mockRestore();
		}
	};
	return { harness, response, tick, repairTick, crons, emitted, failed };
}

const calls = () => sim.requests.map((r) => `${r.method} ${r.path}`);

beforeEach(() => sim.reset());

test('published, the check runs on a cron every 5 minutes by default; the option sets it, down to 5 seconds', async () => {
	// Each publish below is a workflow of its own on a fresh account.
	const fresh = async (parameters?: INodeParameters) => {
		sim.reset();
		return await publish(parameters);
	};
	// At a random second, as n8n does for Poll Times.
	expect((await fresh()).crons).toEqual([
		expect.stringMatching(/^([0-9]|[1-5][0-9]) \*\/5 \* \* \* \*$/),
	]);
	expect(
		(await fresh({ events: ['message.received'], options: { repairInterval: '1h' } })).crons,
	).toEqual([expect.stringMatching(/^\d+ \d+ \* \* \* \*$/)]);
	expect(
		(await fresh({ events: ['message.received'], options: { repairInterval: '5s' } })).crons,
	).toEqual(['*/5 * * * * *']);
	expect(
		(await fresh({ events: ['message.received'], options: { repairInterval: 'off' } })).crons,
	).toEqual([]);
	expect((await fresh({ events: ['message.received'], registration: 'manual' })).crons).toEqual([]);
});

test('while the registration stands, a check is one GET and nothing else', async () => {
	const { tick, emitted, failed } = await publish();
	sim.requests = [];
	await tick();
	await tick();
	expect(calls()).toEqual(['GET /v1/webhook', 'GET /v1/webhook']);
	expect(emitted).toEqual([]);
	expect(failed).toEqual([]);
});

/** What the check and the repair ask the service: the check's look, then publishing's checkExists and create (join: look, PUT, confirm). */
const REPAIR_CALLS = [
	'GET /v1/webhook',
	'GET /v1/webhook',
	'GET /v1/webhook',
	'PUT /v1/webhook',
	'GET /v1/webhook',
];

test("a registration the service lost is registered again through the trigger's own webhook URL: nothing for n8n to publish, no error, the new secret stored, the next delivery runs", async () => {
	const { harness, tick, repairTick, emitted, failed } = await publish();
	const lostSecret = sim.webhook!.secret;
	const answered = harness.answeredAt.length;
	sim.webhook = null;
	sim.requests = [];
	expect(await repairTick()).toBe(
		'Messaging Relay Trigger "Messaging Relay Trigger": the service lost the webhook registration; registered it again through the trigger\'s own webhook URL, without publishing the workflow again',
	);
	expect(emitted).toEqual([]);
	expect(failed).toEqual([]);
	expect(calls()).toEqual(REPAIR_CALLS);
	// It went through webhook() (one signed hand-off answered by the webhook server), whose static
	// data n8n saves after the call: a PUT from trigger() itself would stay in memory.
	expect(harness.answeredAt.length).toBe(answered + 1);
	expect(sim.webhook).toMatchObject({ url: harness.registeredUrl });
	expect(sim.webhook!.secret).not.toBe(lostSecret);
	expect(harness.stored.webhookSecretDigest).toBe(secretDigest(sim.webhook!.secret));
	expect((await sim.deliver(sample('message.received'))).status).toBe(200);
	expect(harness.runs).toHaveLength(1);
	// It keeps checking, and the next check finds the registration standing.
	sim.requests = [];
	await tick();
	expect(calls()).toEqual(['GET /v1/webhook']);
	expect(emitted).toEqual([]);
});

test('a registration the service marked inactive (active: false) is repaired the same way: active again, no error, and the next delivery runs', async () => {
	const { harness, repairTick, emitted, failed } = await publish();
	const inactiveSecret = sim.webhook!.secret;
	sim.webhook = { ...sim.webhook!, active: false };
	sim.requests = [];
	expect(await repairTick()).toContain(
		"the service marked the webhook registration inactive; registered it again through the trigger's own webhook URL",
	);
	expect(emitted).toEqual([]);
	expect(failed).toEqual([]);
	expect(calls()).toEqual(REPAIR_CALLS);
	expect(sim.webhook).toMatchObject({ url: harness.registeredUrl, active: true });
	expect(sim.webhook!.secret).not.toBe(inactiveSecret);
	expect(harness.stored.webhookSecretDigest).toBe(secretDigest(sim.webhook!.secret));
	expect((await sim.deliver(sample('message.received'))).status).toBe(200);
	expect(harness.runs).toHaveLength(1);
});

test('a Send and Wait run that registered itself meanwhile (a race with publishing) is joined again, and its wait kept', async () => {
	const { harness, repairTick, emitted, failed } = await publish();
	const runUrl = `${harness.n8nBaseUrl}/webhook-waiting/4711/node-1?${new URLSearchParams({ ...signedWaitParams({ chat: '4917610000009', channelId: 'num_main', since: Date.now(), until: Date.now() + 3_600_000 }), signature: 'f'.repeat(64) })}`;
	sim.webhook = { url: runUrl, active: true, secret: 'whsec_of_the_run' };
	expect(await repairTick()).toContain(
		"the account's shared webhook no longer lists this trigger; registered it again",
	);
	expect(failed).toEqual([]);
	expect(emitted).toEqual([]);
	// The join kept the run's wait and took the webhook.
	expect(sim.webhook).toMatchObject({ url: harness.registeredUrl });
	expect(Object.values(waitsInStaticData(harness.stored)).map((w) => w.executionId)).toEqual([
		'4711',
	]);
});

test("when n8n cannot reach the trigger's own webhook URL, the check falls back to n8n publishing the workflow again (the error workflow runs), and says why in the log", async () => {
	const { harness, tick, repairTick, emitted, failed } = await publish();
	const lostSecret = sim.webhook!.secret;
	sim.webhook = null;
	await harness.stop();
	sim.requests = [];
	expect(await repairTick()).toBe(
		'Messaging Relay Trigger "Messaging Relay Trigger": the service lost the webhook registration; registering it through the trigger\'s own webhook URL failed (n8n could not reach its webhook URL), so n8n publishes the workflow again to register it',
	);
	expect(calls()).toEqual(['GET /v1/webhook']);
	expect(emitted.map((e) => e.message)).toEqual([
		"The Messaging Relay service no longer has this trigger's webhook registration",
	]);
	expect(failed).toEqual([]);
	expect(sim.webhook).toBeNull();
	// Later ticks (before n8n removed the cron) do nothing more.
	await tick();
	expect(emitted).toHaveLength(1);
	// What n8n does with emitError: publish again (checkExists → create).
	await harness.activate();
	expect(sim.webhook).toMatchObject({ url: harness.registeredUrl });
	expect(sim.webhook!.secret).not.toBe(lostSecret);
	expect(harness.stored.webhookSecretDigest).toBe(secretDigest(sim.webhook!.secret));
});

test('a repair hand-off that finds the registration standing (a second check raced the first) changes nothing; a forged one is refused', async () => {
	const { harness } = await publish();
	const standing = { ...sim.webhook! };
	const key = deriveShareKey(relayCredentials(sim.baseUrl).apiKey as string);
	const path = new URL(harness.productionUrl).pathname;
	const repair = async (signingKey: string) => {
		const { headers, nonce } = signHandoff(signingKey, 'repair', path, '{}');
		const response = await fetch(harness.productionUrl, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...headers },
			body: '{}',
		});
		return { status: response.status, body: (await response.json()) as IDataObject, nonce };
	};
	sim.requests = [];
	const answer = await repair(key);
	expect(answer.status).toBe(200);
	expect(answer.body).toEqual({ proof: proofFor(key, answer.nonce, path), result: 'intact' });
	expect(calls()).toEqual(['GET /v1/webhook']);
	expect(sim.webhook).toEqual(standing);
	// Only a holder of the account key can make a trigger register again.
	sim.webhook = null;
	sim.requests = [];
	expect((await repair(deriveShareKey('guessed-key'))).status).toBe(401);
	expect(calls()).toEqual([]);
});

test('a webhook pointed elsewhere is reported once per URL as a failed execution, never taken over', async () => {
	const { tick, emitted, failed } = await publish();
	sim.webhook = { url: 'https://crm.example.com/hook', active: true, secret: 'theirs' };
	sim.requests = [];
	await tick();
	await tick();
	expect(calls()).toEqual(['GET /v1/webhook', 'GET /v1/webhook']);
	expect(failed.map((e) => e.message)).toEqual([
		"The account's webhook now points at https://crm.example.com/hook, not at this trigger",
	]);
	expect(failed[0].description).toMatch(/does not take it over/);
	expect(emitted).toEqual([]);
	expect(sim.webhook).toMatchObject({ url: 'https://crm.example.com/hook', secret: 'theirs' });

	sim.webhook = { url: 'https://other.example.com/hook', active: true, secret: 'x' };
	await tick();
	expect(failed).toHaveLength(2);
});

test("this node's own test URL (Listen for test event) is not taken back either", async () => {
	const { harness, tick, emitted, failed } = await publish();
	// What "Listen for test event" registers (n8n does it on a workflow copy of its own, so the
	// published trigger keeps its production URL in static data).
	sim.webhook = { url: harness.testUrl, active: true, secret: 'test-secret' };
	sim.requests = [];
	await tick();
	expect(calls()).toEqual(['GET /v1/webhook']);
	expect(emitted).toEqual([]);
	expect(failed.map((e) => e.message)).toEqual([
		`The account's webhook now points at ${harness.testUrl}, not at this trigger`,
	]);
});

describe("the account's shared webhook (several triggers)", () => {
	const OTHER_NODE = '0b7d3c44-5e2f-4a61-8d9e-7f1a2b3c4d5e';

	test("a shared registration of another API key is reported, never joined behind the user's back", async () => {
		const member = await publish();
		// A trigger with another API key of the account took the webhook over ("Replace Existing Webhook").
		await publish(
			{ events: ['message.received'], options: { replaceExisting: true } },
			{ webhookId: OTHER_NODE, apiKey: 'sim-key-full-2' },
		);
		const theirs = sim.webhook!.url;
		await member.tick();
		expect(member.emitted).toEqual([]);
		expect(member.failed.map((e) => e.message)).toEqual([
			`The account's webhook now points at ${theirs}, not at this trigger`,
		]);
		expect(sim.webhook!.url).toBe(theirs);
	});

	test('a member reports a shared registration whose holder does not prove the account key', async () => {
		const member = await publish();
		// Looks like this package's registration, but nothing at that URL answers as a trigger of this key.
		sim.webhook = {
			...sim.webhook!,
			url: 'https://elsewhere.example.com/webhook/x/webhook?relay-share=v1',
		};
		sim.requests = [];
		await member.tick();
		expect(member.emitted).toEqual([]);
		expect(member.failed.map((e) => e.message)).toEqual([
			"The account's webhook now points at https://elsewhere.example.com/webhook/x/webhook?relay-share=v1, not at this trigger",
		]);
	});
});

test('a service error during a check changes nothing and the next check works', async () => {
	const { tick, repairTick, emitted, failed } = await publish();
	sim.inject({
		method: 'GET',
		path: '/v1/webhook',
		status: 503,
		body: { error: { code: 'DOWN', message: 'down' } },
		times: 4,
	});
	await tick();
	await sleep(300);
	expect(emitted).toEqual([]);
	expect(failed).toEqual([]);
	sim.webhook = null;
	expect(await repairTick()).toContain('registered it again');
	expect(emitted).toEqual([]);
});

test('unpublished: the close function stops a check that is still running', async () => {
	const { response, tick, emitted } = await publish();
	sim.webhook = null;
	sim.inject({ method: 'GET', path: '/v1/webhook', passThrough: true, delayMs: 300 });
	const ticking = tick();
	await response.closeFunction!();
	await ticking;
	await sleep(400);
	expect(emitted).toEqual([]);
});

describe('while n8n stops the workflow (closingGate.ts)', () => {
	// n8n closes triggers first on SIGTERM, then waits up to 30 s for executions while still
	// serving webhooks; what it starts then is cut off at the exit. So the trigger refuses.
	test('after the close function, deliveries get 503 Retry-After and start nothing; publishing again opens', async () => {
		const { harness, response } = await publish({
			events: ['message.received'],
			options: { repairInterval: 'off' },
		});
		expect((await sim.deliver(sample('message.received'))).status).toBe(200);
		expect(harness.runs).toHaveLength(1);

		await response.closeFunction!();
		const refused = await fetch(sim.webhook!.url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'x-service-secret': sim.webhook!.secret },
			body: JSON.stringify(sample('message.received')),
		});
		expect(refused.status).toBe(503);
		expect(refused.headers.get('retry-after')).toBe('5');
		expect(await refused.text()).toContain('n8n is stopping this workflow');
		expect(harness.runs).toHaveLength(1);

		// n8n publishes it again (for example a multi-main leader taking over): trigger() reopens.
		await harness.trigger.trigger.call(
			new TriggerContext(
				harness.workflow,
				harness.node,
				harness.additionalData(),
				'trigger',
				'activate',
				() => undefined,
				() => undefined,
				() => undefined,
			) as unknown as ITriggerFunctions,
		);
		expect((await sim.deliver(sample('message.received'))).status).toBe(200);
		expect(harness.runs).toHaveLength(2);
	});

	test('the gate expires after 90 s, so a process that keeps serving webhooks is not refused for good', async () => {
		const { harness, response } = await publish({
			events: ['message.received'],
			options: { repairInterval: 'off' },
		});
		await response.closeFunction!();
		expect((await sim.deliver(sample('message.received'))).status).toBe(503);
		const now = Date.now();
		const clock = jest.spyOn(Date, 'now').mockReturnValue(now + 91_000);
		try {
			expect((await sim.deliver(sample('message.received'))).status).toBe(200);
		} finally {
			clock.mockRestore();
		}
		expect(harness.runs).toHaveLength(1);
	});

	// n8n's shutdown waits for runs, not for webhook requests: a delivery whose run had started but
	// whose answer had not been sent was cut off at the exit and delivered again.
	/** A delivery let in whose answer waits `ms` for n8n to start its run (n8n saving the execution). */
	async function slowDelivery(harness: TriggerHarness, ms: number, id: string) {
		harness.runStartMs = ms;
		const message = sample('message.received');
		message.message.id = id;
		const answer = sim.deliver(message);
		await waitUntil('n8n to be starting its run', () => harness.runsStarting > 0, {
			timeoutMs: 5_000,
			intervalMs: 10,
		});
		// Wrapped: an async function returning the promise would wait for the answer itself.
		return { answer };
	}

	test('the close function returns only once the deliveries already let in are answered', async () => {
		const { harness, response } = await publish({
			events: ['message.received'],
			options: { repairInterval: 'off' },
		});
		const { answer: inside } = await slowDelivery(harness, 1_000, 'wamid.drain-waits');
		expect(harness.answeredAt).toEqual([]);
		const closing = Date.now();
		await response.closeFunction!();
		const closedAt = Date.now();
		// The answer left n8n's side before the close function returned. (Measured where it is
		// sent: the simulator reading it is a hop later, and once raced the close function in CI.)
		expect(harness.answeredAt).toHaveLength(1);
		expect(harness.answeredAt[0]).toBeLessThanOrEqual(closedAt);
		expect(closedAt - closing).toBeGreaterThanOrEqual(500);
		expect((await inside).status).toBe(200);
		expect(harness.runs).toHaveLength(1);
	});

	test('the wait is bounded: a delivery that stays open longer does not hold up n8n past drainLimits.waitMs', async () => {
		drainLimits.waitMs = 300;
		const { harness, response } = await publish({
			events: ['message.received'],
			options: { repairInterval: 'off' },
		});
		const { answer: inside } = await slowDelivery(harness, 2_000, 'wamid.drain-bound');
		const closing = Date.now();
		await response.closeFunction!();
		const waited = Date.now() - closing;
		expect(waited).toBeGreaterThanOrEqual(250);
		expect(waited).toBeLessThan(1500);
		// The delivery let in before the close still ends as it would have.
		expect((await inside).status).toBe(200);
		expect(harness.runs).toHaveLength(1);
	});

	// A burst may be held up to a minute (burstMerge.ts maxHoldMs), longer than the drain: it used to be
	// released after the close had given up on it, and run in a workflow already unpublished.
	test('a burst held to be combined runs at once when the trigger closes, inside the drain', async () => {
		drainLimits.waitMs = 2_000;
		const { harness, response } = await publish({
			events: ['message.received'],
			options: { repairInterval: 'off', combineWithinSeconds: 30 },
		});
		const first = sample('message.received');
		first.message.id = 'wamid.closing-burst-1';
		const second = sample('message.received');
		second.message.id = 'wamid.closing-burst-2';
		second.message.text = 'and one more thing';
		const held = [sim.deliver(first), sim.deliver(second)];
		await waitUntil('both messages to be held', () => heldMessages() === 2, {
			timeoutMs: 5_000,
			intervalMs: 10,
		});
		const closing = Date.now();
		await response.closeFunction!();
		const closedAt = Date.now();
		expect(closedAt - closing).toBeLessThan(1_500);
		expect(harness.answeredAt).toHaveLength(2);
		expect(Math.max(...harness.answeredAt)).toBeLessThanOrEqual(closedAt);
		expect((await Promise.all(held)).map((a) => a.status)).toEqual([200, 200]);
		expect(harness.runs).toHaveLength(1);
		expect(harness.runs[0].events[0]).toMatchObject({ messageCount: 2 });
		expect(heldMessages()).toBe(0);
	});
});

describe('a test event ("Listen for test event") still reaches the workflow', () => {
	test('n8n runs trigger() in manual mode after webhook(); it emits what webhook() received', async () => {
		const harness = await TriggerHarness.start(sim, { events: ['message.received'] });
		harnesses.push(harness);
		await harness.activate({ test: true });
		const event = sample('message.received');
		expect((await sim.deliver(event)).status).toBe(200);
		const received = harness.runs[0].events;

		// The manual execution n8n starts next, at the trigger node, through n8n-core's WorkflowExecute.
		const run = await executeFrom(
			harness.workflow,
			harness.node,
			[[{ json: {} as IDataObject }], []],
			relayCredentials(sim.baseUrl),
			'manual',
			harness.n8nBaseUrl,
		);
		expect(run.data.resultData.error).toBeUndefined();
		const output = run.data.resultData.runData[harness.node.name][0].data!.main;
		expect(output[0]!.map((i) => i.json)).toEqual(received);
		expect(output[0]![0].json).toMatchObject({
			type: 'message.received',
			chatId: event.message.chatId,
		});
	});
});
