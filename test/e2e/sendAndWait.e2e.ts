/**
 * Send and Wait for Reply in the real n8n 2.41.1 (docs/design/durability-and-conversations.md §5),
 * with the appointment example as a user imports it: a contact's message starts the workflow, the
 * node asks "reply 1 to confirm or 2 to cancel" and the execution waits in n8n; the contact's
 * answer reaches the account's trigger, which offers it to the waiting run at n8n's resume URL.
 */
import type { IDataObject } from 'n8n-workflow';

import { waitsInStaticData } from '../../nodes/shared/sendAndWait/waitingRuns';
import type { WebhookState } from '../../nodes/shared/sharedWebhook/webhookState';
import { receivedIn } from '../fixtures/events';
import { deliverWithRetries, type DeliveryResult } from '../fixtures/retrying-sender';
import {
	api,
	eventually,
	executions,
	finishedExecutions,
	importExample,
	nodeItems,
	registeredUrl,
	relayCredential,
	report,
	restartN8n,
	sentTo,
	sim,
	simRequests,
	simulator,
	stackInfo,
	triggerWorkflow,
	viaBalancer,
	executionsSettled,
} from '../support/e2e';
import { exampleForSimulator } from '../support/examples';
import { deliver } from '../support/deliver';

const example = exampleForSimulator('appointment-confirmation.json');

const ACCOUNT = 'acct_wait';
const QUESTION =
	'Shall I book your table for tomorrow at 19:00? Reply 1 to confirm or 2 to cancel.';

let workflowId: string;

beforeAll(async () => {
	const relay = await relayCredential('Messaging Relay wait account', 'sim-key-wait');
	workflowId = await importExample(example as never, { messagingRelayApi: relay });
	await api('POST', `/workflows/${workflowId}/activate`);
});

afterAll(async () => {
	if (workflowId) await api('POST', `/workflows/${workflowId}/deactivate`).catch(() => undefined);
});

async function deliverToAccount(event: unknown) {
	const { status, json } = await deliver(simulator, event, { account: ACCOUNT });
	return { status, body: json };
}

async function untilSent(chat: string, from: number, count: number) {
	return await eventually(async () => {
		const sent = await sentTo(ACCOUNT, chat, from);
		return sent.length >= count ? sent : undefined;
	}, 30_000);
}

/**
 * Until a run of the workflow that started at or after `since` (the test's own) is saved as waiting.
 * Not "some run waits": an earlier test leaves a stranger's run waiting, which would let a later
 * test go on while its own run still runs.
 */
async function untilWaiting(since: number) {
	return await eventually(async () => {
		const runs = await executions(workflowId);
		return runs.some((e) => e.status === 'waiting' && Date.parse(e.startedAt ?? '') >= since)
			? true
			: undefined;
	}, 15_000);
}

/** How long the simulator holds its answer to the early-answer test's question (the run is running meanwhile). */
const QUESTION_DELAY_MS = 6_000;

/** The wait the account's trigger recorded for `chat` (its static data), or null. */
async function recordedWait(chat: string) {
	const workflow = (await api('GET', `/workflows/${workflowId}`)) as {
		staticData?: Record<string, WebhookState>;
	};
	return (
		Object.values(waitsInStaticData(Object.values(workflow.staticData ?? {})[0] ?? {})).find(
			(w) => w.chat === chat,
		) ?? null
	);
}

describe("the appointment example: ask, wait in n8n, continue on the contact's answer", () => {
	test('"1" resumes the waiting run, which books and says so in that chat; the answer starts no run of its own', async () => {
		const since = Date.now();
		const chat = '4917610000001@c.us';
		expect(
			(await deliverToAccount(receivedIn(chat, { text: 'Hi, a table for tomorrow?' }))).status,
		).toBe(200);
		expect(await untilSent(chat, since, 1)).toEqual([QUESTION]);
		await untilWaiting(since);

		const answer = await deliverToAccount(receivedIn(chat, { text: '1' }));
		expect(answer).toEqual({ status: 200, body: { received: true, answered: 'a waiting run' } });
		expect(await untilSent(chat, since, 2)).toEqual([
			QUESTION,
			'Booked: see you tomorrow at 19:00!',
		]);
		const runs = await eventually(async () => {
			const list = await executions(workflowId);
			return list.length >= 1 && list.every((e) => e.status === 'success') ? list : undefined;
		}, 30_000);
		await executionsSettled([workflowId]);
		expect(await executions(workflowId)).toHaveLength(1);
		expect(runs).toHaveLength(1);
		expect(await sentTo(ACCOUNT, chat, since)).toHaveLength(2);
		// The only run in its chat recorded its wait once, without the question's id; the run's
		// output still names its question (from the run's own custom data).
		expect((await recordedWait(chat))?.questionId).toBeNull();
		const [finished] = await finishedExecutions(workflowId, 1);
		expect(nodeItems(finished, 'Ask to confirm')[0]?.question).toEqual({
			text: expect.any(String),
			messageId: expect.stringMatching(/\S/),
		});
	});

	test('an unclear answer is asked again, then "no" continues on the false branch', async () => {
		const since = Date.now();
		const chat = '4917610000002@c.us';
		await deliverToAccount(receivedIn(chat, { text: 'Book please' }));
		await untilSent(chat, since, 1);
		await untilWaiting(since);
		expect((await deliverToAccount(receivedIn(chat, { text: 'maybe' }))).body).toEqual({
			received: true,
			answered: 'a waiting run',
		});
		expect(await untilSent(chat, since, 2)).toEqual([
			QUESTION,
			'Sorry, please reply 1 to confirm or 2 to cancel.',
		]);
		await deliverToAccount(receivedIn(chat, { text: 'No!' }));
		expect(await untilSent(chat, since, 3)).toEqual([
			QUESTION,
			'Sorry, please reply 1 to confirm or 2 to cancel.',
			'No problem, nothing is booked.',
		]);
	});

	test("a message in another chat does not resume the run, nor does a POST to its resume URL without the account's signature", async () => {
		const since = Date.now();
		const chat = '4917610000003@c.us';
		const stranger = '4917610000004@c.us';
		await deliverToAccount(receivedIn(chat, { text: 'Table?' }));
		await untilSent(chat, since, 1);
		await untilWaiting(since);

		// Another contact writes: a new run asks them, the first run still waits.
		await deliverToAccount(receivedIn(stranger, { text: '1' }));
		expect(await untilSent(stranger, since, 1)).toEqual([QUESTION]);
		expect(await sentTo(ACCOUNT, chat, since)).toEqual([QUESTION]);

		// Someone who knows n8n's signed resume URL (here read from the trigger's static data)
		// posts an answer to it: the node refuses it and the run keeps waiting.
		const wait = await recordedWait(chat);
		expect(wait).not.toBeNull();
		const forged = await fetch(`${stackInfo().n8nUrl}${wait!.resumePath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ event: receivedIn(chat, { text: '1' }) }),
		});
		expect(forged.status).toBe(401);
		await executionsSettled([workflowId]);
		expect(await sentTo(ACCOUNT, chat, since)).toEqual([QUESTION]);

		// The contact's own answer still resumes it.
		await deliverToAccount(receivedIn(chat, { text: '2' }));
		expect(await untilSent(chat, since, 2)).toEqual([QUESTION, 'No problem, nothing is booked.']);
	});

	test("Limit Wait Time: the run continues without an answer (n8n's wait tracker, about once a minute), and a later message of that chat is not swallowed", async () => {
		// The example with a 3-second limit, on an account of its own.
		const limited = JSON.parse(JSON.stringify(example)) as typeof example;
		limited.name = 'appointment confirmation, 3 s limit';
		for (const node of limited.nodes) {
			if (node.webhookId)
				node.webhookId = (node.webhookId as string).replace(/^9a8b7c6d/, '1a2b3c4d');
			const options = (node.parameters as { options?: { limitWaitTime?: { values: IDataObject } } })
				.options;
			if (options?.limitWaitTime)
				options.limitWaitTime.values = {
					limitType: 'afterTimeInterval',
					resumeAmount: 0.05,
					resumeUnit: 'minutes',
				};
		}
		const relay = await relayCredential('Messaging Relay wait-limit account', 'sim-key-wait-limit');
		const limitedId = await importExample(limited as never, { messagingRelayApi: relay });
		await api('POST', `/workflows/${limitedId}/activate`);
		try {
			const since = Date.now();
			const chat = '4917610000005@c.us';
			const send = async (text: string) =>
				await sim('POST', '/deliver', {
					account: 'acct_wait_limit',
					event: receivedIn(chat, { text }),
				});
			await send('A table please');
			const sentHere = async () =>
				(await simRequests(since))
					.filter(
						(r) =>
							r.path === '/v1/messages' && r.account === 'acct_wait_limit' && r.body.to === chat,
					)
					.map((r) => r.body.text as string);
			await eventually(async () => ((await sentHere()).length >= 1 ? true : undefined), 30_000);
			// No answer: n8n continues the run at its next wait check; the item has no "answered",
			// so the IF sends the "not booked" branch.
			const timedOut = await eventually(async () => {
				const sent = await sentHere();
				return sent.length >= 2 ? sent : undefined;
			}, 100_000);
			expect(timedOut).toEqual([QUESTION, 'No problem, nothing is booked.']);
			// The reply goes out from the run's last node; n8n saves the run's status after it, so
			// the status is read once the run has ended (CI once read it while still "running").
			const runs = await eventually(async () => {
				const list = await executions(limitedId);
				return list.length >= 1 &&
					list.every((e) => !['running', 'new', 'waiting'].includes(e.status))
					? list
					: undefined;
			}, 30_000);
			expect(runs.map((e) => e.status)).toEqual(['success']);
			// The chat's next message is not taken by the ended wait: it starts the workflow again.
			await send('1');
			expect(
				await eventually(
					async () => ((await sentHere()).length >= 3 ? await sentHere() : undefined),
					30_000,
				),
			).toEqual([QUESTION, 'No problem, nothing is booked.', QUESTION]);
		} finally {
			await api('POST', `/workflows/${limitedId}/deactivate`).catch(() => undefined);
		}
	}, 200_000);

	test('n8n restarted while a run waits: the answer sent while n8n is down is delivered again and resumes the run exactly once', async () => {
		const since = Date.now();
		const chat = '4917610000006@c.us';
		await deliverToAccount(receivedIn(chat, { text: 'Table for two?' }));
		expect(await untilSent(chat, since, 1)).toEqual([QUESTION]);
		await untilWaiting(since);

		// The service delivers through the balancer and retries as it does when n8n is down.
		const webhook = (
			(await sim('GET', '/webhooks')) as Record<string, { url: string; secret: string }>
		)[ACCOUNT];
		const target = viaBalancer(webhook.url);
		let answering: Promise<DeliveryResult> | undefined;
		await restartN8n({
			onStopped: () =>
				(answering = deliverWithRetries(
					target,
					JSON.stringify(receivedIn(chat, { text: 'yes' })),
					webhook.secret,
					{ deadlineMs: 150_000 },
				)),
		});
		const answered = await answering!;
		expect(answered.status).toBe(200);
		expect(answered.attempts.length).toBeGreaterThan(1); // it met n8n down at least once
		expect(await untilSent(chat, since, 2)).toEqual([
			QUESTION,
			'Booked: see you tomorrow at 19:00!',
		]);
		await executionsSettled([workflowId]);
		expect(await sentTo(ACCOUNT, chat, since)).toEqual([
			QUESTION,
			'Booked: see you tomorrow at 19:00!',
		]);
	}, 240_000);

	test('an answer that arrives before n8n has put the run to wait gets 503 and its redelivery resumes the run exactly once; n8n itself answers 409 for the running run and "No action required" for the finished one', async () => {
		const since = Date.now();
		const chat = '4917610000007@c.us';
		const webhook = (
			(await sim('GET', '/webhooks')) as Record<string, { url: string; secret: string }>
		)[ACCOUNT];
		// The service takes QUESTION_DELAY_MS to accept the question: the node records its wait and
		// sends the question, but n8n marks the run waiting only after the node returns
		// (sendAndWait.ts: putExecutionToWait after the send), so for that long the run is running.
		await sim('POST', '/faults', {
			method: 'POST',
			path: '/v1/messages',
			whenBody: { to: chat },
			passThrough: true,
			delayMs: QUESTION_DELAY_MS,
		});
		// Not awaited: the trigger acknowledges once the run has begun to wait (version 3's default
		// "When the Workflow Finishes" answers a waiting run then), which the held question delays.
		const asking = deliverToAccount(receivedIn(chat, { text: 'Table?' }));
		// The simulator logs the question when it arrives, before its delayed answer.
		await eventually(
			async () => ((await sentTo(ACCOUNT, chat, since)).length >= 1 ? true : undefined),
			30_000,
		);
		const seen = Date.now();
		const answering = deliverWithRetries(
			webhook.url,
			JSON.stringify(receivedIn(chat, { text: '1' })),
			webhook.secret,
			{ deadlineMs: 60_000 },
		);

		// The resume URL the holder offers the answer to (its static data, saved after each
		// webhook call, live-webhooks.js:147): n8n answers it 409 while the run is running
		// (waiting-webhooks.js:198-199), the answer replyRouting.ts turns into 503.
		const wait = await eventually(async () => (await recordedWait(chat)) ?? undefined, 5_000);
		// Posted where the holder posts it: the registered URL's origin, the one n8n signed.
		const origin = new URL(webhook.url).origin;
		const runStatusAtProbe = (await executions(workflowId)).find(
			(e) => e.id === wait.executionId,
		)?.status;
		const whileRunning = await fetch(`${origin}${wait.resumePath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{}',
		});
		const whileRunningBody = await whileRunning.text();
		const probedWithinMs = Date.now() - seen;

		const answered = await answering;
		expect((await asking).status).toBe(200);
		expect(await untilSent(chat, since, 2)).toEqual([
			QUESTION,
			'Booked: see you tomorrow at 19:00!',
		]);
		// The run has ended: n8n answers its resume URL with its "No action required" page and 200
		// (waiting-webhooks.js:206-211), which is why only the node's proof says a run took an answer.
		await eventually(
			async () =>
				(await executions(workflowId)).find((e) => e.id === wait.executionId)?.status === 'success'
					? true
					: undefined,
			30_000,
		);
		const whenFinished = await fetch(`${origin}${wait.resumePath}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: '{}',
		});
		const whenFinishedBody = await whenFinished.text();
		await executionsSettled([workflowId]);
		const attempts = answered.attempts.map((a) => a.status ?? a.outcome);
		const questionAt = (await simRequests(since))
			.filter((r) => r.path === '/v1/messages' && r.body.to === chat)
			.map((r) => r.at - seen);
		report('send-and-wait-early-answer', {
			questionDelayMs: QUESTION_DELAY_MS,
			attempts: answered.attempts.map((a) => ({
				status: a.status ?? a.outcome,
				afterSeenMs: a.at - seen,
				ms: a.ms,
			})),
			messagesAtMsAfterSeen: questionAt,
			probedWithinMs,
			runStatusAtProbe,
			whileRunning: { status: whileRunning.status, body: whileRunningBody.slice(0, 200) },
			whenFinished: { status: whenFinished.status, body: whenFinishedBody.slice(0, 200) },
		});

		expect(probedWithinMs).toBeLessThan(QUESTION_DELAY_MS);
		expect(whileRunning.status).toBe(409);
		expect(whileRunningBody).toContain('is running already');
		// The answer met the running run: 503 (never another failure), then 200 once it waited.
		expect(answered.status).toBe(200);
		expect(attempts[0]).toBe(503);
		expect(attempts.slice(0, -1).every((status) => status === 503)).toBe(true);
		expect(whenFinished.status).toBe(200);
		expect(whenFinishedBody).toContain('No action required');
		// Exactly once: one booking, the direct POSTs resumed nothing.
		expect(await sentTo(ACCOUNT, chat, since)).toEqual([
			QUESTION,
			'Booked: see you tomorrow at 19:00!',
		]);
	});
});

describe('an account with two trigger workflows published', () => {
	test('the answer resumes the waiting run once, and neither trigger workflow runs for it', async () => {
		const { workflowId: otherId } = await triggerWorkflow({
			name: 'second trigger on the wait account',
			apiKey: 'sim-key-wait',
			webhookId: '2c4e6a8b-0a01-4e5f-8a9b-7c6d5e4f3d01',
			events: ['message.received'],
		});
		await api('POST', `/workflows/${otherId}/activate`);
		try {
			const since = Date.now();
			const chat = '4917610000008@c.us';
			await deliverToAccount(receivedIn(chat, { text: 'Table for four?' }));
			expect(await untilSent(chat, since, 1)).toEqual([QUESTION]);
			await untilWaiting(since);
			// The second workflow got the first message as a new one (it selects message.received). When
			// it holds the webhook its own run starts only after the asking workflow answered the forward,
			// that is once the run waits: its execution may be saved a moment after.
			const otherBefore = await eventually(async () => {
				const count = (await executions(otherId)).length;
				return count >= 1 ? count : undefined;
			}, 15_000);
			expect(otherBefore).toBeGreaterThanOrEqual(1);

			expect(await deliverToAccount(receivedIn(chat, { text: '1' }))).toEqual({
				status: 200,
				body: { received: true, answered: 'a waiting run' },
			});
			expect(await untilSent(chat, since, 2)).toEqual([
				QUESTION,
				'Booked: see you tomorrow at 19:00!',
			]);
			await executionsSettled([workflowId, otherId]);
			expect((await executions(otherId)).length).toBe(otherBefore);
			expect(await sentTo(ACCOUNT, chat, since)).toHaveLength(2);
		} finally {
			await api('POST', `/workflows/${otherId}/deactivate`).catch(() => undefined);
		}
	});
});

describe('an account with no Messaging Relay Trigger published: the waiting run holds the webhook itself', () => {
	const ALONE = 'acct_wait_alone';
	let aloneId: string;

	/** The appointment question, started by n8n's own Webhook node with the contact's phone number. */
	beforeAll(async () => {
		const alone = JSON.parse(JSON.stringify(example)) as {
			name: string;
			nodes: IDataObject[];
			connections: IDataObject;
		};
		alone.name = 'appointment confirmation, no trigger';
		const start = alone.nodes.findIndex(
			(n) => n.type === 'n8n-nodes-messaging-relay.messagingRelayTrigger',
		);
		alone.nodes[start] = {
			id: '3f1b2c4d-0a01-4e5f-8a9b-7c6d5e4f3e01',
			name: 'On booking request',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: '7e5d3c1b-0a01-4e5f-8a9b-7c6d5e4f3e02',
			parameters: {
				httpMethod: 'POST',
				path: 'book-without-trigger',
				responseMode: 'onReceived',
				options: {},
			},
		};
		for (const node of alone.nodes) {
			if (node.webhookId === '9a8b7c6d-0a01-4e5f-8a9b-7c6d5e4f3b02')
				node.webhookId = '7e5d3c1b-0a01-4e5f-8a9b-7c6d5e4f3e03';
			if (node.name === 'Ask to confirm')
				Object.assign(node.parameters as IDataObject, {
					waitTo: '={{ $json.body.to }}',
					waitChannelId: { __rl: true, mode: 'id', value: 'num_main' },
				});
		}
		const relay = await relayCredential(
			'Messaging Relay account without triggers',
			'sim-key-wait-alone',
		);
		aloneId = await importExample(alone as never, { messagingRelayApi: relay });
		await api('POST', `/workflows/${aloneId}/activate`);
	});
	afterAll(async () => {
		if (aloneId) await api('POST', `/workflows/${aloneId}/deactivate`).catch(() => undefined);
	});

	/** The account's webhook at the simulator; null when none is registered (never, or deleted). */
	const registration = async () =>
		(
			(await sim('GET', '/webhooks')) as Record<
				string,
				{ url: string; secret: string } | null | undefined
			>
		)[ALONE] ?? null;
	const deliverAlone = async (event: unknown) => {
		const answer = (await sim('POST', '/deliver', { account: ALONE, event })) as {
			status: number;
			body: string;
		};
		return {
			status: answer.status,
			body: answer.body ? (JSON.parse(answer.body) as IDataObject) : {},
		};
	};
	/** What the account sent to this phone, as a number or as its direct chat. */
	const sentToPhone = async (digits: string, from: number) =>
		(await simRequests(from))
			.filter(
				(r) =>
					r.method === 'POST' &&
					r.path === '/v1/messages' &&
					r.account === ALONE &&
					String(r.body.to)
						.replace(/\D|@c\.us$/g, '')
						.startsWith(digits),
			)
			.map((r) => r.body.text as string);
	const ask = async (phone: string) => {
		const started = await fetch(`${stackInfo().n8nUrl}/webhook/book-without-trigger`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ to: phone }),
		});
		expect(started.status).toBe(200);
	};
	const waitingRuns = async () => (await executions(aloneId)).filter((e) => e.status === 'waiting');

	test("the question goes out, the contact's answer resumes the run through the account's one webhook, and the webhook is given back", async () => {
		expect(await registration()).toBeNull();
		const since = Date.now();
		const digits = '4917610000021';
		await ask(`+${digits}`);
		expect(
			await eventually(
				async () =>
					(await sentToPhone(digits, since)).length >= 1
						? await sentToPhone(digits, since)
						: undefined,
				30_000,
			),
		).toEqual([QUESTION]);
		await eventually(async () => ((await waitingRuns()).length === 1 ? true : undefined), 15_000);
		const held = await registration();
		expect(held?.url).toMatch(/\/webhook-waiting\/\d+\/[^?]+\?.*relay-wait=v1/);

		// Another chat's message and a POST without the service's secret leave the run waiting.
		expect(await deliverAlone(receivedIn('4917610000022@c.us', { text: '1' }))).toMatchObject({
			status: 200,
			body: {
				received: true,
				ignored: expect.stringMatching(/no Messaging Relay Trigger is published/),
			},
		});
		const registered = new URL(held!.url);
		const forged = await fetch(`${stackInfo().n8nUrl}${registered.pathname}${registered.search}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'x-service-secret': 'whsec_guessed' },
			body: JSON.stringify(receivedIn(`${digits}@c.us`, { text: '1' })),
		});
		expect(forged.status).toBe(401);
		expect(await waitingRuns()).toHaveLength(1);

		expect(await deliverAlone(receivedIn(`${digits}@c.us`, { text: '1' }))).toEqual({
			status: 200,
			body: { received: true, answered: 'this waiting run' },
		});
		expect(
			await eventually(
				async () =>
					(await sentToPhone(digits, since)).length >= 2
						? await sentToPhone(digits, since)
						: undefined,
				30_000,
			),
		).toEqual([QUESTION, 'Booked: see you tomorrow at 19:00!']);
		const runs = await eventually(async () => {
			const list = await executions(aloneId);
			return list.length === 1 && list[0].status === 'success' ? list : undefined;
		}, 30_000);
		expect(runs).toHaveLength(1);
		expect(await registration()).toBeNull();
	});

	test('a second run while one waits is refused before it asks, with an error that says to publish a trigger', async () => {
		const since = Date.now();
		await ask('+4917610000023');
		await eventually(async () => ((await waitingRuns()).length === 1 ? true : undefined), 30_000);
		await ask('+4917610000024');
		const failed = await eventually(
			async () => (await executions(aloneId)).find((e) => e.status === 'error'),
			30_000,
		);
		expect(JSON.stringify(failed)).toContain(
			'Another run is already waiting for a reply on this account, and no Messaging Relay Trigger is published on it',
		);
		// What a trigger brings, as the capacity says: not "any number".
		expect(JSON.stringify(failed)).toContain('then up to 10,000 runs can wait at once.');
		expect(await sentToPhone('4917610000024', since)).toEqual([]);
		// The first still gets its answer.
		await deliverAlone(receivedIn('4917610000023@c.us', { text: '2' }));
		expect(
			await eventually(
				async () =>
					(await sentToPhone('4917610000023', since)).length >= 2
						? await sentToPhone('4917610000023', since)
						: undefined,
				30_000,
			),
		).toEqual([QUESTION, 'No problem, nothing is booked.']);
	});

	test('a trigger published while the run waits takes the webhook over and routes the answer to the run', async () => {
		const since = Date.now();
		const digits = '4917610000025';
		await ask(`+${digits}`);
		await eventually(async () => ((await waitingRuns()).length === 1 ? true : undefined), 30_000);
		const { workflowId: triggerId } = await triggerWorkflow({
			name: 'trigger published later',
			apiKey: 'sim-key-wait-alone',
			webhookId: '2c4e6a8b-0a01-4e5f-8a9b-7c6d5e4f3d02',
			events: ['message.received'],
		});
		await api('POST', `/workflows/${triggerId}/activate`);
		try {
			expect((await registration())?.url).toEqual(
				registeredUrl('2c4e6a8b-0a01-4e5f-8a9b-7c6d5e4f3d02'),
			);
			expect(await deliverAlone(receivedIn(`${digits}@c.us`, { text: 'yes' }))).toEqual({
				status: 200,
				body: { received: true, answered: 'a waiting run' },
			});
			expect(
				await eventually(
					async () =>
						(await sentToPhone(digits, since)).length >= 2
							? await sentToPhone(digits, since)
							: undefined,
					30_000,
				),
			).toEqual([QUESTION, 'Booked: see you tomorrow at 19:00!']);
			await executionsSettled([triggerId, aloneId]);
			expect(await executions(triggerId)).toHaveLength(0);
		} finally {
			await api('POST', `/workflows/${triggerId}/deactivate`).catch(() => undefined);
		}
	});
});
