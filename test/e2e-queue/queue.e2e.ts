/**
 * n8n in queue mode, for real: Postgres, Redis, n8n main, one `n8n webhook` process and two
 * `n8n worker`s (globalSetup.ts), with HAProxy in front of the webhook process as a production
 * load balancer (routes only to a process whose /healthz/readiness answers 200: a starting n8n
 * answers every request with 200 before its webhooks exist, test/support/stack/queue/deployment.ts).
 * Publishing registers the balancer's URL; deliveries are verified by the trigger in the webhook
 * process, enqueued, and run on the workers; a bad secret gets 401 and runs nothing. The soak sends mixed deliveries (10% with a bad secret) through a sender that
 * retries like a delivery service, restarts one worker and the webhook process while it runs,
 * and checks that every accepted delivery ran exactly once in each workflow that selected it.
 *
 * Both example workflows share one simulator account's webhook (docs/shared-webhook.md): the
 * holder, verified in the webhook process, forwards each event to the other trigger through the
 * webhook process too. `targets` below says which account's webhook gets which events and which
 * workflows listen there.
 */
import { parseRegistration } from '../../nodes/shared/sharedWebhook/registeredUrl';
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { receivedIn, sample, sampleEventTypes } from '../fixtures/events';
import { deliverWithRetries, type DeliveryResult } from '../fixtures/retrying-sender';
import { exampleForSimulator } from '../support/examples';
import { allExecutions } from '../support/executions';
import {
	createWorkflow,
	importExample,
	relayCredential,
	triggerWorkflowData,
} from '../support/workflows';
import { N8nClient } from '../support/n8nClient';
import { report } from '../support/report';
import { SimClient } from '../support/simClient';
import {
	bullCounts,
	deployment,
	enqueuedBy,
	executions,
	finishedSince,
	lastExecutionId,
	memory,
	queueSettled,
	readLog,
	restart,
	soakSettings,
	sql,
	startedBy,
	type ExecutionRow,
} from '../support/stack/queue/running';
import { waitUntil } from '../support/waitUntil';
import { enqueuedDeliveries, recordEnqueuedDeliveries, storedOutcomes } from './executionEvidence';
import { activeJobs } from './bullJobs';
import { cutAttempts, judgeHardKill, type Kill } from '../support/judges/hardKillJudge';
import { judgeFailedRuns, type StopWindow } from '../support/judges/workerShutdownRace';
import { deliver } from '../support/deliver';

const info = deployment();
const {
	deliveries: SOAK_DELIVERIES,
	concurrency: SOAK_CONCURRENCY,
	timeoutMs: SOAK_TIMEOUT_MS,
} = soakSettings();

type Event = IDataObject & { type: string; deliveryId: string };

interface Workflow {
	name: string;
	id: string;
	/** Whether this workflow's trigger starts a run for the event (its Events and Options). */
	selects: (event: Event) => boolean;
}

interface Target {
	account: string;
	workflows: Workflow[];
	/** Which events the suite sends to this account's webhook. */
	receives: (event: Event) => boolean;
}

const autoReply: Workflow = {
	name: 'auto-reply',
	id: info.workflows.autoReply.id,
	// Events: message.received; Chats: only direct messages (examples/auto-reply.json).
	selects: (event) =>
		event.type === 'message.received' && ((event.message as IDataObject).group ?? null) === null,
};
const disconnectAlert: Workflow = {
	name: 'disconnect-alert',
	id: info.workflows.disconnectAlert.id,
	// Events: number.disconnected (examples/disconnect-alert.json).
	selects: (event) => event.type === 'number.disconnected',
};
const workflows = [autoReply, disconnectAlert];

// Both workflows share acct_main's one webhook: every event goes there, each runs what it selects.
const targets: Target[] = [
	{ account: 'acct_main', workflows: [autoReply, disconnectAlert], receives: () => true },
];
const targetFor = (event: Event) => targets.find((t) => t.receives(event)) as Target;

const simulator = new SimClient(info.simUrl);
const registeredWebhooks = () => simulator.webhooks();

/** n8n's public API, paged: how many executions a workflow has (the database is read separately). */
const mainApi = new N8nClient(info.mainUrl, { apiKey: info.apiKey });
const executionCountViaApi = async (workflowId: string) =>
	(await allExecutions(mainApi, { workflowId })).length;

/** How long the workers may make no progress before the soak stops waiting and reports. */
const STALL_MS = 180_000;

/**
 * Polls `check` until it is done (true), it has reported the same progress for `stallMs`, or
 * `timeoutMs` has passed (false in both cases).
 */
async function untilStalled(
	check: () => { done: boolean; progress: string },
	stallMs: number,
	timeoutMs: number,
): Promise<boolean> {
	const started = Date.now();
	let last = '';
	let lastChange = started;
	for (;;) {
		const { done, progress } = check();
		if (done) return true;
		if (progress !== last) [last, lastChange] = [progress, Date.now()];
		if (Date.now() - lastChange > stallMs || Date.now() - started > timeoutMs) return false;
		await sleep(1000);
	}
}

function event(type: string, deliveryId: string, change?: (e: Event) => void): Event {
	const body = {
		...(sample(type as (typeof sampleEventTypes)[number]) as IDataObject),
		deliveryId,
	} as Event;
	change?.(body);
	return body;
}

function groupMessage(deliveryId: string) {
	return event('message.received', deliveryId, (e) => {
		(e.message as IDataObject).group = { id: '120363025551234567@g.us', name: 'Team' };
		(e.message as IDataObject).chatId = '120363025551234567@g.us';
	});
}

const executionsOf = (rows: ExecutionRow[], deliveryId: string) =>
	rows.filter((r) => r.deliveryId === deliveryId);

/**
 * Resolves once the worker starts a run it had not started at the call and has not finished: that run
 * is at most one poll (50 ms) into it. Bounded: a worker that starts nothing in 20 s fails the wait.
 */
async function workerStartsARun(worker: string): Promise<void> {
	const ids = (pattern: RegExp) => new Set([...readLog(worker).matchAll(pattern)].map((m) => m[1]));
	const startedBefore = ids(/Worker started execution (\d+) \(job/g);
	await waitUntil(
		`${worker} to start a run for the kill to cut`,
		() => {
			const finished = ids(/Worker finished execution (\d+) \(job/g);
			return [...ids(/Worker started execution (\d+) \(job/g)].some(
				(id) => !startedBefore.has(id) && !finished.has(id),
			);
		},
		{ timeoutMs: 20_000, intervalMs: 50 },
	);
}

describe('n8n queue mode: main, one webhook process, two workers', () => {
	test("publishing registered the account's shared webhook at the balancer in front of the webhook process, not at main", async () => {
		const webhooks = await registeredWebhooks();
		// The alert, published last, holds it and lists the auto-reply (docs/shared-webhook.md).
		const registration = parseRegistration(webhooks.acct_main!.url)!;
		expect(registration).toMatchObject({
			shared: true,
			holderUrl: `${info.webhookUrl}/webhook/6c1b4b8f-3a1d-4d2f-9e7b-2a3f4e5d6c02/webhook`,
			members: ['/webhook/5b0a3a7e-2f0c-4c1e-8d6a-1f2e3d4c5b01/webhook'],
		});
		// Main answers no production webhook here (N8N_DISABLE_PRODUCTION_MAIN_PROCESS): a
		// delivery there would be lost, so the registration must not point there.
		const atMain = await fetch(webhooks.acct_main!.url.replace(info.webhookUrl, info.mainUrl), {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'x-service-secret': webhooks.acct_main!.secret,
			},
			body: JSON.stringify(event('message.received', 'qd-9000000')),
		});
		expect(atMain.status).toBe(404);
		expect(executions([autoReply.id]).filter((r) => r.deliveryId === 'qd-9000000')).toEqual([]);
	});

	test('a delivery is verified by the webhook process, enqueued, and run by a worker', async () => {
		const before = lastExecutionId();
		const messagesBefore = ((await simulator.state()).messages as unknown[]).length;
		const reply = await deliver(simulator, event('message.received', 'qd-9000001'), {
			account: 'acct_main',
		});
		expect(reply.status).toBe(200);
		const alert = await deliver(simulator, event('number.disconnected', 'qd-9000002'), {
			account: 'acct_main',
		});
		expect(alert.status).toBe(200);

		const rows = await waitUntil(
			'both runs to finish',
			() => {
				const list = executions(workflows.map((w) => w.id)).filter((r) => Number(r.id) > before);
				return list.length >= 2 && list.every((r) => r.status === 'success') ? list : undefined;
			},
			{ intervalMs: 500 },
		);
		expect(rows.map((r) => [r.workflowId, r.deliveryId])).toEqual([
			[autoReply.id, 'qd-9000001'],
			[disconnectAlert.id, 'qd-9000002'],
		]);
		// n8n's own log lines say where each ran: enqueued by the webhook process, started by
		// exactly one worker, and main did neither.
		const started = [...startedBy('worker1'), ...startedBy('worker2')];
		for (const row of rows) {
			expect(enqueuedBy('webhook')).toContain(row.id);
			expect(started.filter((id) => id === row.id)).toHaveLength(1);
			expect(readLog('main')).not.toMatch(
				new RegExp(`(Enqueued|started) execution ${row.id} \\(job`),
			);
		}
		// The runs did their work: the reply and the alert reached the service.
		const messages = (await simulator.state()).messages as unknown as IDataObject[];
		expect(messages.slice(messagesBefore).map((m) => [m.account, m.channelId])).toEqual(
			expect.arrayContaining([
				['acct_main', 'num_main'],
				['acct_main', 'num_sales'],
			]),
		);
	});

	test('a bad secret gets 401 from the webhook process and nothing is enqueued or run', async () => {
		const before = lastExecutionId();
		const enqueuedBefore = enqueuedBy('webhook').length;
		const bad = await deliver(simulator, event('message.received', 'qd-9000003'), {
			account: 'acct_main',
			secret: 'whsec_wrong',
		});
		expect(bad.status).toBe(401);
		const missing = await deliver(simulator, event('message.received', 'qd-9000004'), {
			account: 'acct_main',
			secret: null,
		});
		expect(missing.status).toBe(401);
		// A good one after them: once it has run, the bad ones would have run too.
		const good = await deliver(simulator, event('message.received', 'qd-9000005'), {
			account: 'acct_main',
		});
		expect(good.status).toBe(200);
		await waitUntil('the good delivery to run', () => finishedSince(before) >= 1, {
			intervalMs: 500,
		});
		await queueSettled(before);
		const rows = executions([autoReply.id]).filter((r) => Number(r.id) > before);
		expect(rows.map((r) => r.deliveryId)).toEqual(['qd-9000005']);
		expect(enqueuedBy('webhook').length - enqueuedBefore).toBe(1);
	});

	test('a body that is not an event runs nothing: n8n answers malformed JSON with 422 itself, the trigger answers 400', async () => {
		const before = lastExecutionId();
		const { url, secret } = (await registeredWebhooks()).acct_main!;
		const post = async (contentType: string, body: string) =>
			await fetch(url, {
				method: 'POST',
				headers: { 'content-type': contentType, 'x-service-secret': secret },
				body,
			});
		// A version-1 start node's JSON body is parsed by n8n before the node runs
		// (docs/per-delivery-findings.md, section 5): a parse error never reaches the trigger.
		const malformedJson = await post('application/json', '{"type": "message.received", ');
		expect(malformedJson.status).toBe(422);
		// The same bytes as text reach the trigger, which says what is wrong.
		const malformedText = await post('text/plain', '{"type": "message.received", ');
		expect(malformedText.status).toBe(400);
		expect(await malformedText.text()).toContain('not valid JSON');
		const noType = await post('application/json', '{"message": {}}');
		expect(noType.status).toBe(400);
		await queueSettled(before);
		expect(lastExecutionId()).toBe(before);
	});

	test(
		`soak: ${SOAK_DELIVERIES} mixed deliveries, 10% bad secrets, one worker and the webhook process restarted, triggers on the default "When the Workflow Finishes": nothing lost but what n8n fails while stopping the worker (answered as failed, so delivered again and run once), nothing twice but a run n8n failed after its nodes ran (the same answer)`,
		async () => {
			const soakStarted = Date.now();
			// Keeps the delivery each execution is created for: n8n overwrites it when a worker
			// fails the job (executionEvidence.js), and an excused loss must name its delivery.
			recordEnqueuedDeliveries();
			const webhooks = await registeredWebhooks();
			const before = lastExecutionId();
			const enqueuedBefore = new Set(enqueuedBy('webhook'));

			// The mix: 3/8 direct messages (auto-reply runs), 1/8 group messages (filtered out),
			// 1/4 disconnects (alert runs), 1/4 every one of the 16 types in turn.
			const deliveries = Array.from({ length: SOAK_DELIVERIES }, (_, i) => {
				const id = `qd-${i}`;
				let body: Event;
				if (i % 8 === 1) body = groupMessage(id);
				else if (i % 4 <= 1) body = event('message.received', id);
				else if (i % 4 === 2) body = event('number.disconnected', id);
				else body = event(sampleEventTypes[(i >> 2) % sampleEventTypes.length], id);
				const target = targetFor(body);
				const webhook = webhooks[target.account]!;
				const good = i % 10 !== 7;
				return {
					id,
					body,
					good,
					target,
					url: webhook.url,
					secret: good ? webhook.secret : `${webhook.secret.slice(0, -1)}x`,
					result: undefined as DeliveryResult | undefined,
				};
			});

			const memoryStart = memory();
			// The restarts happen in the middle of the sending, whatever the machine's speed:
			// deliveries past a restart's point wait until it has begun, so the worker goes down
			// while events keep coming, and the webhook process is gone (its port closed) when
			// the next deliveries are sent: they are refused and must be retried.
			const restarts: Array<{
				process: string;
				atDelivery: number;
				memoryBeforeMb: { rssMb: number; groupRssMb: number };
				stoppedAt: number;
				shutdownMs: number;
				downMs: number;
				before: number;
				after: number;
			}> = [];
			const plan = [
				{
					process: 'worker1',
					atDelivery: Math.floor(SOAK_DELIVERIES / 3),
					gateOn: 'signalled' as const,
				},
				{
					process: 'webhook',
					atDelivery: Math.floor((2 * SOAK_DELIVERIES) / 3),
					gateOn: 'stopped' as const,
				},
			].map((step) => {
				let open!: () => void;
				return {
					...step,
					gate: new Promise<void>((resolve) => (open = resolve)),
					open: () => open(),
				};
			});
			let next = 0;
			// The worker's stop as Redis sees it (bullJobs.ts), so that a job n8n loses there is
			// excused only when that worker fetched it within its stop window
			// (workerShutdownRace.ts): each job's lock token while the soak runs (a worker life's
			// token, one per life), and what bull held active when the stopped worker had exited.
			const lockOf = new Map<string, string>();
			const workerStops: Array<Omit<StopWindow, 'tokens'> & { process: string; lifeLog: string }> =
				[];
			let watchingLocks = true;
			const lockWatch = (async () => {
				while (watchingLocks) {
					for (const job of activeJobs())
						if (job.lockToken && !lockOf.has(job.jobId)) lockOf.set(job.jobId, job.lockToken);
					await sleep(500);
				}
			})();
			const restartChain = (async () => {
				for (const step of plan) {
					while (next < step.atDelivery) await sleep(50);
					const memoryBeforeMb = memory()[step.process];
					let signalledAt = 0;
					const result = await restart(step.process, {
						onSignalled: () => {
							signalledAt = Date.now();
							if (step.gateOn === 'signalled') step.open();
						},
						onStopped: () => {
							if (step.process.startsWith('worker')) {
								const exitedAt = Date.now();
								const activeAtExit = activeJobs();
								const log = readLog(step.process);
								workerStops.push({
									process: step.process,
									signalledAt,
									exitedAt,
									activeAtExit,
									lifeLog: log.slice(log.lastIndexOf('n8n worker is now ready')),
								});
								watchingLocks = false;
							}
							step.open();
						},
					});
					restarts.push({
						process: step.process,
						atDelivery: step.atDelivery,
						memoryBeforeMb,
						...result,
					});
				}
			})();
			restartChain.finally(() => (watchingLocks = false)).catch(() => undefined);
			restartChain.catch(() => plan.forEach((step) => step.open()));

			const sendingStarted = Date.now();
			await Promise.all(
				Array.from({ length: SOAK_CONCURRENCY }, async () => {
					while (next < deliveries.length) {
						const index = next++;
						const delivery = deliveries[index];
						for (const step of plan) if (index >= step.atDelivery) await step.gate;
						delivery.result = await deliverWithRetries(
							delivery.url,
							JSON.stringify(delivery.body),
							delivery.secret,
							{
								deadlineMs: 240_000,
							},
						);
						if (Date.now() - soakStarted > SOAK_TIMEOUT_MS)
							throw new Error('soak took longer than QUEUE_SOAK_TIMEOUT_S');
					}
				}),
			);
			const sendingSeconds = (Date.now() - sendingStarted) / 1000;
			await restartChain;
			await lockWatch;
			// The stopped life's token: the locks seen on the jobs it logged as started.
			const stops: StopWindow[] = workerStops.map(
				({ signalledAt, exitedAt, activeAtExit, lifeLog }) => ({
					signalledAt,
					exitedAt,
					activeAtExit,
					tokens: [
						...new Set(
							[...lifeLog.matchAll(/Worker started execution \d+ \(job (\d+)\)/g)]
								.map((m) => lockOf.get(m[1]))
								.filter((t): t is string => t !== undefined),
						),
					],
				}),
			);

			// What each delivery should have started: one run in each listening workflow that selects it.
			const expected = new Map<string, string[]>(workflows.map((w) => [w.id, []]));
			for (const d of deliveries) {
				if (!d.good || d.result?.status !== 200) continue;
				for (const w of d.target.workflows) if (w.selects(d.body)) expected.get(w.id)!.push(d.id);
			}
			const expectedRuns = [...expected.values()].reduce((n, ids) => n + ids.length, 0);

			// Wait for the workers to catch up, but only while they make progress: a run that never
			// comes must fail the suite within minutes, with the report below saying which
			// deliveries and which executions are missing, not after the whole time bound.
			const caughtUp = await untilStalled(
				() => {
					const queue = bullCounts();
					return {
						done: finishedSince(before) >= expectedRuns && queue.wait === 0 && queue.active === 0,
						progress: `${finishedSince(before)} ${JSON.stringify(queue)}`,
					};
				},
				STALL_MS,
				Math.max(60_000, SOAK_TIMEOUT_MS - (Date.now() - soakStarted)),
			);
			const processingSeconds = (Date.now() - sendingStarted) / 1000;
			// A late duplicate (a stalled job Bull hands out again, a cut attempt's run) shows in Bull
			// or in the rows until both settle; a row left "running" by a kill is judged below.
			await queueSettled(before, 120_000, { leftRunning: true });
			const memoryEnd = memory();
			const rows = executions(workflows.map((w) => w.id)).filter((r) => Number(r.id) > before);

			const attempts = deliveries.flatMap((d) => d.result?.attempts ?? []);
			const refusedThenAccepted = deliveries.filter(
				(d) =>
					d.result?.status === 200 &&
					d.result.attempts.some(
						(a) => a.outcome === 'refused' || (a.outcome === 'status' && a.status! >= 500),
					),
			);
			const webhookRestart = restarts.find((r) => r.process === 'webhook');
			const sentWhileWebhookDown = deliveries.filter(
				(d) =>
					webhookRestart !== undefined &&
					d.result!.attempts.some(
						(a) =>
							a.at <= webhookRestart.stoppedAt + webhookRestart.downMs &&
							a.at + a.ms >= webhookRestart.stoppedAt,
					),
			);
			const ambiguousThenRetried = deliveries.filter(
				(d) =>
					d.result!.attempts.length > 1 &&
					d.result!.attempts.some((a) => a.outcome === 'dropped' || a.outcome === 'timeout'),
			);
			// Runs that did not succeed and deliveries a workflow lost are excused only as the one
			// failure n8n itself makes while it stops a worker, each for the one delivery it lost
			// (workerShutdownRace.ts has the rule); everything else fails the suite below.
			const deliveryAtEnqueue = enqueuedDeliveries();
			const lostIn = (w: Workflow) =>
				expected
					.get(w.id)!
					.filter((id) => !rows.some((r) => r.workflowId === w.id && r.deliveryId === id));
			const verdict = judgeFailedRuns({
				runs: rows,
				workerLogs: [readLog('worker1'), readLog('worker2')],
				webhookLog: readLog('webhook'),
				stops,
				outcomes: storedOutcomes(rows.filter((r) => r.status !== 'success').map((r) => r.id)),
				enqueued: deliveryAtEnqueue,
				lost: Object.fromEntries(workflows.map((w) => [w.id, lostIn(w)])),
				// The examples answer when the workflow finishes: a run n8n fails is answered as
				// failed and delivered again (rule 3 of workerShutdownRace.ts).
				attempts: Object.fromEntries(deliveries.map((d) => [d.id, d.result?.attempts ?? []])),
			});
			const failedByWorkerStop = rows.filter((r) =>
				verdict.excused.some((e) => e.executionId === r.id),
			);
			const notSavedByWorkerStop = rows.filter((r) =>
				verdict.notSaved.some((e) => e.executionId === r.id),
			);
			const perWorkflow = Object.fromEntries(
				workflows.map((w) => {
					const runs = rows.filter((r) => r.workflowId === w.id);
					const ids = runs.map((r) => r.deliveryId);
					return [
						w.name,
						{
							expected: expected.get(w.id)!.length,
							runs: runs.length,
							failedByN8nWhileStoppingAWorker: failedByWorkerStop
								.filter((r) => r.workflowId === w.id)
								.map((r) => r.id),
							lost: expected.get(w.id)!.filter((id) => !ids.includes(id)).length,
							lostIds: expected
								.get(w.id)!
								.filter((id) => !ids.includes(id))
								.slice(0, 20),
							duplicates: ids.length - new Set(ids).size,
						},
					];
				}),
			);
			const started = [...startedBy('worker1'), ...startedBy('worker2')];
			const runIds = new Set(rows.map((r) => r.id));
			const startedHere = started.filter((id) => runIds.has(id));
			const figures = {
				deliveries: SOAK_DELIVERIES,
				n8nSettings: info.env,
				badSecret: deliveries.filter((d) => !d.good).length,
				concurrency: SOAK_CONCURRENCY,
				sendingSeconds: Math.round(sendingSeconds * 10) / 10,
				deliveriesPerSecond: Math.round((SOAK_DELIVERIES / sendingSeconds) * 10) / 10,
				allRunsFinishedSeconds: Math.round(processingSeconds * 10) / 10,
				runs: rows.length,
				runsPerSecond: Math.round((rows.length / processingSeconds) * 10) / 10,
				caughtUp,
				notSucceeded: rows.filter((r) => r.status !== 'success').slice(0, 20),
				queueAtEnd: bullCounts(),
				perWorkflow,
				lost: Object.values(perWorkflow).reduce((n, w) => n + w.lost, 0),
				failedByN8nWhileStoppingAWorker: verdict.excused,
				// Of those, runs whose nodes had run before n8n failed their job as stalled: their
				// event ran twice in effect (workerShutdownRace.ts, the third ending's sequel).
				ranThenFailedByN8n: verdict.excused.filter((e) => e.ranFirst).map((e) => e.executionId),
				ranButNotSavedWhileStoppingAWorker: verdict.notSaved,
				failedRunsNotExcused: verdict.unexcused,
				workerStops: workerStops.map((w, i) => ({
					process: w.process,
					stopMs: w.exitedAt - w.signalledAt,
					activeAtExit: w.activeAtExit.map((j) => ({
						...j,
						byStoppedWorker: j.lockToken !== null && stops[i].tokens.includes(j.lockToken),
					})),
					stoppedLifeTokens: stops[i].tokens.length,
					jobsWithLocksSeen: lockOf.size,
				})),
				lostNotExplained: verdict.unexplainedLosses.slice(0, 20),
				deliveryKeptAtEnqueue: rows.filter((r) => deliveryAtEnqueue[r.id] !== undefined).length,
				duplicates: Object.values(perWorkflow).reduce((n, w) => n + w.duplicates, 0),
				runsByWorker: {
					worker1: startedBy('worker1').filter((id) => runIds.has(id)).length,
					worker2: startedBy('worker2').filter((id) => runIds.has(id)).length,
				},
				attempts: {
					total: attempts.length,
					refused: attempts.filter((a) => a.outcome === 'refused').length,
					dropped: attempts.filter((a) => a.outcome === 'dropped').length,
					timeout: attempts.filter((a) => a.outcome === 'timeout').length,
					status5xx: attempts.filter((a) => a.outcome === 'status' && a.status! >= 500).length,
					status404: attempts.filter((a) => a.status === 404).length,
				},
				refusedThenAccepted: refusedThenAccepted.length,
				sentWhileWebhookDown: sentWhileWebhookDown.length,
				droppedOrTimedOutThenRetried: ambiguousThenRetried.map((d) => ({
					id: d.id,
					attempts: d.result!.attempts,
				})),
				restarts,
				memoryStartMb: memoryStart,
				memoryEndMb: memoryEnd,
				suiteSoakSeconds: Math.round((Date.now() - soakStarted) / 100) / 10,
			};
			report('queue-soak', figures);

			// Every good delivery was accepted, every bad one refused with 401 (after retries, if
			// it met a process that was down).
			expect(
				deliveries.filter((d) => d.good && d.result?.status !== 200).map((d) => [d.id, d.result]),
			).toEqual([]);
			expect(
				deliveries.filter((d) => !d.good && d.result?.status !== 401).map((d) => [d.id, d.result]),
			).toEqual([]);
			// Exactly once in each workflow that selected it; nothing else ran.
			for (const w of workflows) {
				const excused = failedByWorkerStop.filter((r) => r.workflowId === w.id);
				const ids = rows
					.filter((r) => r.workflowId === w.id && !excused.includes(r))
					.map(
						(r) =>
							r.deliveryId ??
							`no deliveryId (execution ${r.id}, ${r.status}${r.problem ? `: ${r.problem}` : ''})`,
					);
				// Each run n8n failed while stopping a worker accounts for exactly one lost event (the
				// very delivery its execution was created for), unless the service was answered the
				// failure and its redelivery ran once (counted in `ids`).
				const lost = expected.get(w.id)!.filter((id) => !ids.includes(id));
				const lostByStop = verdict.excused.filter((e) => e.workflowId === w.id && !e.redelivered);
				expect(lost.length).toBe(lostByStop.length);
				expect([...lost].sort()).toEqual(lostByStop.map((e) => e.deliveryId).sort());
				expect([...ids].sort()).toEqual(
					expected
						.get(w.id)!
						.filter((id) => !lost.includes(id))
						.sort(),
				);
				expect(await executionCountViaApi(w.id)).toBe(executions([w.id]).length);
			}
			expect(
				rows
					.filter(
						(r) =>
							r.status !== 'success' &&
							!failedByWorkerStop.includes(r) &&
							!notSavedByWorkerStop.includes(r),
					)
					.map((r) => [r.id, r.status, r.problem]),
			).toEqual([]);
			// A node that failed a run while its worker stopped, any other failure, and any loss
			// no such run accounts for, fail here (workerShutdownRace.test.ts proves it).
			expect(verdict.unexcused).toEqual([]);
			expect(verdict.unexplainedLosses).toEqual([]);
			// The delivery kept at enqueue is the one each run carries: what attributes a loss works.
			expect(
				rows
					.filter((r) => r.deliveryId !== null && deliveryAtEnqueue[r.id] !== r.deliveryId)
					.map((r) => [r.id, r.deliveryId, deliveryAtEnqueue[r.id]]),
			).toEqual([]);
			// At most what one worker can have in flight (its concurrency, 10) for the one worker stop.
			expect(failedByWorkerStop.length + notSavedByWorkerStop.length).toBeLessThanOrEqual(10);
			// The stop was watched in Redis: the stopped life's lock token was seen (what ties a
			// stalled job to the worker that fetched it).
			expect(stops.map((s) => s.tokens.length)).toEqual([1]);
			for (const d of deliveries.filter((x) => !x.good))
				expect(executionsOf(rows, d.id)).toEqual([]);
			// Run on the workers, each run once: every run was enqueued by the webhook process
			// and started by exactly one worker (a worker's log keeps both of its lives).
			const enqueued = enqueuedBy('webhook').filter((id) => !enqueuedBefore.has(id));
			expect([...runIds].filter((id) => !enqueued.includes(id))).toEqual([]);
			expect(startedHere.length).toBe(runIds.size);
			expect(new Set(startedHere).size).toBe(runIds.size);
			expect(figures.runsByWorker.worker1).toBeGreaterThan(0);
			expect(figures.runsByWorker.worker2).toBeGreaterThan(0);
			expect(bullCounts()).toEqual({ wait: 0, active: 0, delayed: 0, failed: 0 });
			// Both restarts happened during the soak, and the webhook process's downtime met
			// deliveries: attempts in flight while it was down (the balancer answered them 503, or
			// held them until the new process was ready: both seen), each accepted and run once
			// (above). Stopping in about 1 s now, it is down for about 4 s.
			expect(restarts.map((r) => r.process)).toEqual(['worker1', 'webhook']);
			expect(restarts.every((r) => r.after !== r.before)).toBe(true);
			expect(sentWhileWebhookDown.length).toBeGreaterThan(0);
		},
		SOAK_TIMEOUT_MS + 120_000,
	);

	test('SIGKILL of the webhook process, then of a worker, mid-soak, with triggers that answer when the workflow finishes: no event the service got a 2xx for is lost; every failed run, double run and failure the service saw is explained by a kill, and failures stop within a bound after n8n is back', async () => {
		// Two workflows of their own on one account, trigger version 3 ("Acknowledge Events: When
		// the Workflow Finishes", acknowledgement.ts), each run waiting 1 s so that runs are in
		// flight when a process dies. Where an event can run twice (docs/shared-webhook.md, "What a
		// 2xx means"): the webhook process killed after queuing (the worker runs it, the service
		// delivers again), and a worker killed mid-run (n8n gives the job up, the service delivers
		// again). Either way the service delivered it more than once: each double run must show that.
		// A run bull fails as stalled loses its trigger item (n8n overwrites its data): the delivery
		// each execution was created for is kept at creation (executionEvidence.ts), so that such a
		// run still counts as a run of its delivery.
		recordEnqueuedDeliveries();
		const credential = await relayCredential(mainApi, 'hard-kill queue account', {
			baseUrl: info.simUrl,
			apiKey: 'sim-key-hardkill-queue',
		});
		const ids: string[] = [];
		for (const [name, webhookId, events] of [
			['hard-kill queue reply', 'a1e0c0de-0000-4000-8000-0000000c2101', ['message.received']],
			['hard-kill queue logger', 'a1e0c0de-0000-4000-8000-0000000c2102', ['*']],
		] as const) {
			const id = await createWorkflow(
				mainApi,
				triggerWorkflowData({
					name,
					credential,
					webhookId,
					events: [...events],
					typeVersion: 3,
					waitSeconds: 1,
				}),
			);
			await mainApi.api('POST', `/workflows/${id}/activate`);
			ids.push(id);
		}
		const [reply] = ids;
		const webhook = (await registeredWebhooks()).acct_hardkill_queue!;
		const before = lastExecutionId();
		const start = Date.now();
		const deliveries: Array<{ id: string; type: string; result?: DeliveryResult }> = [];
		const kills: Array<Kill & { atSeconds: number; downMs: number }> = [];
		const killing = (async () => {
			for (const [process, atMs] of [
				['webhook', 15_000],
				['worker1', 35_000],
			] as const) {
				// The worker dies 10 s after the webhook process is back at the earliest: killed while
				// the senders still waited out the webhook process's restart (down 17-19 s), it had
				// nothing running in 2 of 5 runs, and the test then proved nothing about it.
				const after = kills.length > 0 ? kills[kills.length - 1].backAt + 10_000 : 0;
				await sleep(Math.max(0, start + atMs - Date.now(), after - Date.now()));
				// Even so, a local run of 2026-11-28 killed worker1 with nothing running ("proved
				// nothing"): it is killed as it starts a run (its log, polled every 50 ms), which then
				// has its 1 s Wait ahead of it. The webhook process always has requests in flight.
				if (process === 'worker1') await workerStartsARun(process);
				let killedAt = 0;
				let killedLife = '';
				const result = await restart(process, {
					signal: 'SIGKILL',
					onSignalled: () => {
						killedAt = Date.now();
						// Its log as the kill left it, from its last start: what that life did.
						const log = readLog(process);
						killedLife = log.slice(
							Math.max(
								0,
								log.lastIndexOf(
									process === 'webhook'
										? 'Starting n8n webhook process'
										: 'n8n worker is now ready',
								),
							),
						);
					},
				});
				kills.push({
					process,
					atSeconds: Math.round((killedAt - start) / 100) / 10,
					downMs: result.downMs,
					killedAt,
					backAt: Date.now(),
					killedLife,
				});
			}
		})();
		let next = 0;
		const sending = Array.from({ length: 4 }, async () => {
			while (Date.now() < start + 60_000) {
				const i = next++;
				const type = i % 2 === 0 ? 'message.received' : 'number.disconnected';
				const body = event(type, `qd-${7_000_000 + i}`);
				const delivery: (typeof deliveries)[number] = { id: body.deliveryId, type };
				deliveries.push(delivery);
				delivery.result = await deliverWithRetries(
					webhook.url,
					JSON.stringify(body),
					webhook.secret,
					{ deadlineMs: 300_000 },
				);
			}
		});
		await Promise.all([...sending, killing]);

		const expected = deliveries.flatMap((d) => [
			...(d.type === 'message.received' ? [{ workflowId: reply, id: d.id }] : []),
			{ workflowId: ids[1], id: d.id },
		]);
		let rows: ExecutionRow[] = [];
		const complete = await untilStalled(
			() => {
				rows = executions(ids).filter((r) => Number(r.id) > before);
				const missing = expected.filter(
					(p) =>
						!rows.some(
							(r) =>
								r.workflowId === p.workflowId && r.deliveryId === p.id && r.status === 'success',
						),
				);
				return { done: missing.length === 0, progress: `${rows.length} ${missing.length}` };
			},
			STALL_MS,
			300_000,
		);
		// A late delivery (the sender's retry of one that already ran) may still be creating its run:
		// judge once Bull is empty and the rows read the same twice; a row a kill left "new" or
		// "running" stays so and is judged as such.
		await queueSettled(before, 120_000, { leftRunning: true });
		rows = executions(ids).filter((r) => Number(r.id) > before);
		const byPair = (p: { workflowId: string; id: string }) =>
			rows.filter((r) => r.workflowId === p.workflowId && r.deliveryId === p.id);
		const lost = expected.filter((p) => !byPair(p).some((r) => r.status === 'success'));
		const ranTwice = expected.filter((p) => byPair(p).length > 1);
		// Each run that did not succeed, each double run and each failure the service saw must be
		// explained by a kill, event by event (hardKillJudge.ts has the rules).
		const times = new Map(
			sql(`select id, coalesce((extract(epoch from "createdAt") * 1000)::bigint::text, ''), coalesce((extract(epoch from "startedAt") * 1000)::bigint::text, '')
			       from execution_entity where id > ${before}`).map(([id, created, started]) => [
				id,
				{
					createdAt: created ? Number(created) : null,
					startedAt: started ? Number(started) : null,
				},
			]),
		);
		const notSucceeded = rows.filter((r) => r.status !== 'success');
		const createdFor = enqueuedDeliveries();
		const judged = {
			runs: rows.map((r) => ({
				id: r.id,
				workflowId: r.workflowId,
				deliveryId: r.deliveryId ?? createdFor[r.id] ?? null,
				status: r.status,
				...(times.get(r.id) ?? { createdAt: null, startedAt: null }),
			})),
			outcomes: storedOutcomes(notSucceeded.map((r) => r.id)),
			deliveries: deliveries.map((d) => ({ id: d.id, attempts: d.result?.attempts ?? [] })),
			kills,
			workerLogs: [readLog('worker1'), readLog('worker2')],
			webhookLogs: [
				readLog('webhook'),
				...kills.filter((k) => k.process.startsWith('webhook')).map((k) => k.killedLife),
			],
		};
		const verdict = judgeHardKill(judged);
		// The whole timeline the judge saw, kept with the run's artifacts: a unit test's fixture
		// (test/judges/) is made from one, so that each rule is shown on a real run.
		report('queue-hard-kill-timeline', judged, { quiet: true });
		// A redelivery that can run an event again: an attempt cut by a kill (dropped, timed out or
		// answered 5xx while in flight at it, or carrying a job the killed worker took as it died),
		// not merely a second attempt.
		const redelivered = (id: string) => (verdict.cutAttempts[id]?.length ?? 0) > 0;
		const attempts = deliveries.flatMap((d) => d.result?.attempts ?? []);
		// What each kill proved: the events it cut that then ran to success. The webhook process's
		// kill cuts attempts in flight at it (their runs go on, or stay `new`); a worker's kill cuts
		// the runs it had started (rule 1 of hardKillJudge.ts). A kill that cut nothing proved nothing.
		const succeededLater = (workflowId: string, id: string | null, after: number) =>
			rows.some(
				(r) =>
					r.workflowId === workflowId &&
					r.deliveryId === id &&
					r.status === 'success' &&
					(times.get(r.id)?.startedAt ?? 0) > after,
			);
		const provedPerKill = kills.map((k) => {
			if (k.process === 'webhook') {
				return deliveries.filter(
					(d) =>
						cutAttempts(d.result?.attempts ?? [], [k]).length > 0 &&
						expected.some((p) => p.id === d.id && succeededLater(p.workflowId, d.id, k.killedAt)),
				).length;
			}
			const explained = notSucceeded.filter(
				(r) => r.status !== 'new' && verdict.unexplainedRuns.every((u) => u.id !== r.id),
			);
			return explained.filter((r) =>
				succeededLater(r.workflowId, r.deliveryId ?? createdFor[r.id] ?? null, k.killedAt),
			).length;
		});
		report('queue-hard-kill', {
			deliveries: deliveries.length,
			pairs: expected.length,
			complete,
			kills: kills.map((k) => ({
				process: k.process,
				atSeconds: k.atSeconds,
				downMs: k.downMs,
				killedAt: k.killedAt,
				backAt: k.backAt,
			})),
			attempts: attempts.reduce<Record<string, number>>(
				(n, a) => ({ ...n, [a.status ?? a.outcome]: (n[a.status ?? a.outcome] ?? 0) + 1 }),
				{},
			),
			executions: rows.reduce<Record<string, number>>(
				(n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }),
				{},
			),
			lost: lost.length,
			lostSample: lost.slice(0, 10).map((p) => ({
				...p,
				runs: byPair(p).map((r) => r.status),
				attempts: deliveries.find((d) => d.id === p.id)?.result?.attempts,
			})),
			ranTwice: ranTwice.length,
			ranTwiceRuns: ranTwice.map(
				(p) =>
					`${p.workflowId === reply ? 'reply' : 'logger'} ${p.id}: ${byPair(p)
						.map((r) => `${r.id} ${r.status}`)
						.join(',')}; cut attempts ${(verdict.cutAttempts[p.id] ?? [])
						.map((a) => a.status ?? a.outcome)
						.join(',')}`,
			),
			notSucceeded: notSucceeded.map((r) => ({
				...r,
				createdFor: createdFor[r.id] ?? null,
				...times.get(r.id),
			})),
			// Runs a kill cut (0: this run proved nothing about a cut run).
			runsCutByAKill: notSucceeded.filter((r) =>
				verdict.unexplainedRuns.every((u) => u.id !== r.id),
			).length,
			// Per kill, the events it cut that then ran to success (asserted above 0).
			provedPerKill: kills.map((k, i) => ({ process: k.process, cutThenRan: provedPerKill[i] })),
			notSucceededOutcomes: storedOutcomes(notSucceeded.map((r) => r.id)),
			attemptsOfDeliveriesThatFailedOnce: deliveries
				.filter((d) => d.result?.attempts.some((a) => a.status !== 200))
				.map((d) => ({ id: d.id, attempts: d.result?.attempts })),
			// Jobs worker1 took as it died (hardKillJudge.ts, tookAsItDied): what that rule excused.
			takenAsItDied: verdict.takenAsItDied,
			failuresAfterBack: verdict.failuresAfterBack,
			unexplainedRuns: verdict.unexplainedRuns,
			extraRunsUnexplained: verdict.extraRunsUnexplained,
			failuresNotAtAKill: verdict.failuresNotAtAKill,
		});

		expect(deliveries.filter((d) => d.result?.status !== 200).map((d) => d.id)).toEqual([]);
		expect(lost).toEqual([]);
		// Every run that did not succeed was cut by a kill (crashed, left running, or failed by
		// bull as stalled, on the worker killed after it started it; or created and not yet
		// queued by the killed webhook process): a node's error retried by the sender fails here.
		expect(verdict.unexplainedRuns).toEqual([]);
		// Only a delivery the service sent again because a kill cut an attempt can have run twice,
		// one extra run per cut attempt. (That bounds them by what was in flight at the two kills,
		// 4 deliveries of 2 workflows each: no assertion of its own, it cannot fail on its own.)
		expect(ranTwice.filter((p) => !redelivered(p.id))).toEqual([]);
		expect(verdict.extraRunsUnexplained).toEqual([]);
		// The service saw failures only around the kills, each tied to one (hardKillJudge.ts, rule 3,
		// whose windows end at the bound after n8n is back: a later failure is tied to none and fails
		// here; the figures per kill are reported, not asserted again).
		expect(verdict.failuresNotAtAKill).toEqual([]);
		expect(kills.map((k) => k.process)).toEqual(['webhook', 'worker1']);
		// Each kill cut something that then ran again: otherwise this run proved nothing about it.
		expect(
			provedPerKill.map((n, i) =>
				n > 0 ? 'cut and ran again' : `${kills[i].process}: proved nothing`,
			),
		).toEqual(['cut and ran again', 'cut and ran again']);
		for (const id of ids) await mainApi.api('POST', `/workflows/${id}/deactivate`);
	}, 900_000);

	test('Send and Wait for Reply: the question is asked on a worker, the answer reaches the webhook process through the balancer, and the run resumes on a worker', async () => {
		const credential = await relayCredential(mainApi, 'wait queue account', {
			baseUrl: info.simUrl,
			apiKey: 'sim-key-wait-queue',
		});
		const appointment = exampleForSimulator('appointment-confirmation.json');
		const { id } = await importExample(mainApi, appointment, { messagingRelayApi: credential });
		await mainApi.api('POST', `/workflows/${id}/activate`);
		try {
			const since = Date.now();
			const chat = '4917620000001@c.us';
			const question = (
				appointment.nodes.find((n) => n.name === 'Ask to confirm')!.parameters as IDataObject
			).message as string;
			const sentHere = async () =>
				(await simulator.requests(since))
					.filter(
						(r) =>
							r.path === '/v1/messages' &&
							r.account === 'acct_wait_queue' &&
							(r.body as IDataObject).to === chat,
					)
					.map((r) => (r.body as IDataObject).text);
			const deliverText = async (text: string) =>
				await deliver(simulator, receivedIn(chat, { text }), { account: 'acct_wait_queue' });

			expect((await deliverText('A table tomorrow?')).status).toBe(200);
			await waitUntil(
				'the question',
				async () => ((await sentHere()).length >= 1 ? true : undefined),
				{ intervalMs: 300 },
			);
			const [waiting] = await waitUntil(
				'the run to wait',
				() => {
					const rows = executions([id]).filter((r) => r.status === 'waiting');
					return rows.length > 0 ? rows : undefined;
				},
				{ intervalMs: 300 },
			);

			const answer = await deliverText('1');
			expect(answer).toMatchObject({ status: 200 });
			expect(JSON.parse(answer.body as string)).toEqual({
				received: true,
				answered: 'a waiting run',
			});
			await waitUntil(
				'the booking',
				async () => ((await sentHere()).length >= 2 ? true : undefined),
				{ intervalMs: 300 },
			);
			await queueSettled(Number(waiting.id) - 1);
			expect(await sentHere()).toEqual([question, 'Booked: see you tomorrow at 19:00!']);
			expect(executions([id]).map((r) => [r.id, r.status])).toEqual([[waiting.id, 'success']]);
			// Both parts of the run were enqueued by the webhook process and run by workers (the
			// question, then the resume), never by main.
			const started = [...startedBy('worker1'), ...startedBy('worker2')].filter(
				(x) => x === waiting.id,
			);
			expect(started).toHaveLength(2);
			expect(enqueuedBy('webhook').filter((x) => x === waiting.id).length).toBeGreaterThanOrEqual(
				1,
			);
			expect(readLog('main')).not.toMatch(new RegExp(`started execution ${waiting.id} \\(job`));
		} finally {
			await mainApi.api('POST', `/workflows/${id}/deactivate`).catch(() => undefined);
		}
	}, 180_000);
});
