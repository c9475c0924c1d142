/**
 * A workflow of a shared account broken on purpose, in the real n8n (2.41.1 and 1.123.81; docs/shared-webhook.md,
 * "A member that cannot take events for long"). Two workflows share acct_setaside: a logger of every
 * event (the holder) and a disconnect alert whose trigger fails every event it selects for a while
 * (its Numbers filter is an expression that fails until a given time, as a broken expression
 * would). Both triggers are version 3 (Acknowledge Events: When the Workflow Finishes), the
 * default for new nodes: the holder starts its own run only at the delivery it answers 2xx. A
 * sender that retries like a delivery service keeps 4 deliveries in flight through the balancer (a
 * closed loop: at a fixed 2 a second every 503 piles up another retry, and n8n on SQLite collapsed
 * into write-lock time-outs, docs/design §3). What must hold:
 *   - the service gets its 2xx for every event and the logger runs each exactly once;
 *   - the service sees 503s only until the alert has failed 3 hand-offs over 2 minutes, then none;
 *   - the alert runs every event it selects exactly once, except those the holder recorded as
 *     missed while it was set aside; once it answers again its registration check reports exactly
 *     those as a failed execution of its workflow (on 1.x a line of n8n's log), id for id (the ids
 *     in the reports' descriptions).
 * The failing-workflow soaks below run at the same time on accounts of their own (failingSoaks).
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { sample } from '../fixtures/events';
import {
	deliverWithRetries,
	SERVICE_SCHEDULE,
	type DeliveryResult,
} from '../fixtures/retrying-sender';
import {
	allExecutions,
	api,
	checksSince,
	currentWebhook,
	eventually,
	executionsSettled,
	info,
	nodeItems,
	productionUrl,
	readN8nLog,
	report,
	sim,
	triggerWorkflow,
	viaBalancer,
} from '../support/e2e';
import { missedEventsIn } from '../support/missedEvents';

/** n8n 1.123 reports a trigger's failure in its log, not as a failed execution (missedReportsOf). */
const onN8n1 = Number(info.n8nVersion.split('.')[0]) === 1;

const ACCOUNT = 'acct_setaside';
const API_KEY = 'sim-key-setaside';
/** The shipped bound (memberHealth.ts, setAsideLimits): 3 failed hand-offs spanning 2 minutes. */
const BOUND_MS = 120_000;
/** The alert's trigger fails for this long from the start of the sending… */
const BROKEN_MS = 140_000;
/** …while events keep coming for SENDING_MS, CONCURRENCY deliveries in flight at once. */
const SENDING_MS = 165_000;
const CONCURRENCY = 4;

let logger = '';
let alert = '';

/** Delivery ids each workflow ran, with how many times. */
async function runsOf(workflowId: string): Promise<Map<string, number>> {
	const runs = new Map<string, number>();
	for (const execution of await allExecutions(workflowId)) {
		if (execution.status === 'error') continue;
		const id = (nodeItems(execution, 'Relay Trigger')[0]?.event as IDataObject | undefined)
			?.deliveryId as string | undefined;
		if (id) runs.set(id, (runs.get(id) ?? 0) + 1);
	}
	return runs;
}

afterAll(async () => {
	for (const id of [logger, alert])
		if (id) await api('POST', `/workflows/${id}/deactivate`).catch(() => undefined);
});

/**
 * The failing-workflow soaks (the second test) start with the first, on accounts of their own, all
 * three under full load together. "At most 8 failed runs per event" holds by construction: the
 * set-aside is decided when a delivery arrives once the bound is met (memberHealth.ts,
 * setAsideIfDue), and the bound is measured from the first failed attempt's arrival, so a verdict
 * that n8n answers late under load no longer lets an event's 8th attempt (2 minutes and a few
 * seconds after its first) run and fail a 9th time at its offer. Started 55 s apart, as they were
 * before (CI of 721aa86 had met that 9th run), the file took 220 s; together it takes less.
 * The second test awaits them (it starts them itself when run alone).
 */
let failingSoaksRun: Promise<Array<Awaited<ReturnType<typeof failingSoak>>>> | undefined;
const failingSoaks = () => (failingSoaksRun ??= Promise.all(FAILING_SOAKS.map(failingSoak)));
beforeAll(() => {
	// Their outcome is the second test's: a failure is reported there, not as unhandled here.
	failingSoaks().catch(() => undefined);
});

test('a member broken for longer than the bound is set aside: the service gets 2xx again, the other workflow loses nothing, the misses are reported in the broken workflow', async () => {
	const start = Date.now();
	const healedAt = start + BROKEN_MS;
	({ workflowId: alert } = await triggerWorkflow({
		name: 'e2e: set aside disconnect-alert',
		apiKey: API_KEY,
		webhookId: 'a1e0c0de-0000-4000-8000-00000000a51d',
		events: ['number.disconnected'],
		typeVersion: 3,
		options: {
			repairInterval: '5s',
			// Fails until healedAt ("Referenced node doesn't exist": n8n answers the hand-off 500;
			// n8n's expression engine turns a plain TypeError into null, so it must be an
			// expression error), then no filter.
			channelIds: `={{ Date.now() < ${healedAt} ? $('Broken on purpose').first().json.numbers : '' }}`,
		},
	}));
	({ workflowId: logger } = await triggerWorkflow({
		name: 'e2e: set aside logger',
		apiKey: API_KEY,
		webhookId: 'a1e0c0de-0000-4000-8000-00000000a51e',
		events: ['*'],
		typeVersion: 3,
	}));
	// The last one published holds the registration: the logger, which is not broken.
	await api('POST', `/workflows/${alert}/activate`);
	await api('POST', `/workflows/${logger}/activate`);
	const webhook = (await currentWebhook(ACCOUNT))!;
	expect(new URL(webhook.url).pathname).toBe(
		new URL(productionUrl('a1e0c0de-0000-4000-8000-00000000a51e')).pathname,
	);

	const deliveries: Array<{ id: string; type: string; result?: DeliveryResult }> = [];
	let next = 0;
	const sending = Array.from({ length: CONCURRENCY }, async () => {
		while (Date.now() < start + SENDING_MS) {
			const i = next++;
			const type = i % 2 === 0 ? 'number.disconnected' : 'message.received';
			const body = { ...(sample(type) as unknown as IDataObject), deliveryId: `set-aside-${i}` };
			const delivery: (typeof deliveries)[number] = { id: body.deliveryId, type };
			deliveries.push(delivery);
			delivery.result = await deliverWithRetries(
				viaBalancer(webhook.url),
				JSON.stringify(body),
				webhook.secret,
				{ deadlineMs: 200_000 },
			);
		}
	});
	await Promise.all(sending);

	// Every event was taken (2xx) and the logger ran each once.
	const notTaken = deliveries
		.filter((d) => d.result?.status !== 200)
		.map((d) => ({ id: d.id, attempts: d.result?.attempts }));
	if (notTaken.length > 0)
		report('set-aside-n8n-log-tail', {
			notTaken: notTaken.length,
			log: readN8nLog().split('\n').slice(-150),
		});
	expect(notTaken).toEqual([]);
	let loggerRuns = new Map<string, number>();
	await eventually(async () => {
		loggerRuns = await runsOf(logger);
		return loggerRuns.size >= deliveries.length;
	}, 60_000).catch(() => undefined);
	const loggerMissing = deliveries
		.filter((d) => !loggerRuns.has(d.id))
		.map((d) => ({ id: d.id, type: d.type, attempts: d.result?.attempts }));
	if (loggerMissing.length > 0)
		report('set-aside-logger-missing', {
			missing: loggerMissing.slice(0, 10),
			count: loggerMissing.length,
			ran: loggerRuns.size,
		});
	expect(loggerMissing.map((d) => d.id)).toEqual([]);
	expect([...loggerRuns.entries()].filter(([, n]) => n !== 1)).toEqual([]);

	// 503s only until the bound: they span about 2 minutes (never less), then stop.
	const answered503 = deliveries.flatMap((d) =>
		d.result!.attempts.filter((a) => a.status === 503).map((a) => a.at + a.ms),
	);
	const first503 = Math.min(...answered503);
	const last503 = Math.max(...answered503);
	const after503 = deliveries.flatMap((d) =>
		d.result!.attempts.filter((a) => a.at > last503 && a.at < healedAt).map((a) => a.status),
	);

	// The alert ran each disconnect once, except the ones it missed while set aside.
	await executionsSettled([alert, logger]);
	const alertRuns = await runsOf(alert);
	const disconnects = deliveries.filter((d) => d.type === 'number.disconnected');
	const missed = disconnects.filter((d) => !alertRuns.has(d.id));
	const ranTwice = [...alertRuns.entries()].filter(([, n]) => n > 1);

	const figures = {
		deliveries: deliveries.length,
		disconnects: disconnects.length,
		attempts: deliveries.reduce((n, d) => n + d.result!.attempts.length, 0),
		answered503: answered503.length,
		// Who said 503, and when (seconds after the start): the member's failure, or n8n's save lagging
		// (answerAfterSave.ts), so that a 503 past the bound says which it was.
		answers503ByText: Object.entries(
			deliveries
				.flatMap((d) => d.result!.attempts.filter((a) => a.status === 503))
				.reduce<Record<string, number[]>>((byText, a) => {
					(byText[a.answer ?? ''] ??= []).push(Math.round((a.at + a.ms - start) / 100) / 10);
					return byText;
				}, {}),
		).map(([answer, at]) => ({
			answer,
			count: at.length,
			firstS: Math.min(...at),
			lastS: Math.max(...at),
		})),
		firstTo503LastSeconds: (last503 - first503) / 1000,
		last503AfterStartSeconds: (last503 - start) / 1000,
		healedAfterStartSeconds: BROKEN_MS / 1000,
		answersBetweenSetAsideAndHealed: after503.length,
		alertRan: alertRuns.size,
		missed: missed.length,
		ranTwice,
	};
	report('set-aside', figures);

	// Its registration check (every 5 s here) reports what it missed since the last report, as a
	// failed execution each time (docs/shared-webhook.md: "at each registration check"): every
	// missed event is in exactly one report.
	// Every execution of the workflow, page after page: each hand-off the alert failed is an error
	// execution too (webhook-helpers.js:541-575 runs the workflow with the webhook's error), and
	// checks report while it is still broken, so the first report can be older than the newest 250
	// (CI of bd26ff2 read one page and missed it).
	const reportsOf = async () => (await missedReportsOf(alert)).map((r) => r.message);
	const countOf = (message: string) =>
		Number(/^This workflow missed (\d+) event/.exec(message)?.[1] ?? NaN);
	const reportedCount = async () => (await reportsOf()).reduce((n, m) => n + countOf(m), 0);
	await eventually(async () => (await reportedCount()) >= missed.length, 60_000).catch(() => {
		report('set-aside-n8n-log', {
			log: readN8nLog()
				.split('\n')
				.filter((l) => /Messaging Relay|set aside|missed|Failed to record/i.test(l))
				.slice(-60),
		});
	});
	const reports = await missedReportsOf(alert);
	const messages = reports.map((r) => r.message);
	// The events the reports name (registrationRepair.ts): all of them together, id for id.
	const listedInReports = reports.map((r) => missedEventsIn(r.description));
	const listedIds = listedInReports.flatMap((l) => l?.events.map((e) => e.id) ?? []);
	const loggerFailed = (await allExecutions(logger))
		.filter((e) => e.status !== 'success')
		.map((e) => `${e.id}: ${e.status}`);
	report('set-aside-logger-failed', { loggerFailed });
	// Where the reports sit in the list n8n shows (newest first): why one page is not enough.
	const listed = await allExecutions(alert);
	const reportPositions = listed.flatMap((e, i) =>
		JSON.stringify(e.data?.resultData.error ?? {}).includes('This workflow missed') ? [i + 1] : [],
	);
	report('set-aside-reports', {
		reports: messages.length,
		messages,
		alertExecutions: listed.length,
		alertErrorExecutions: listed.filter((e) => e.status === 'error').length,
		reportPositionsNewestFirst: reportPositions,
		listedIds: listedIds.length,
		missedNotListed: missed.map((d) => d.id).filter((id) => !listedIds.includes(id)),
		listedNotMissed: listedIds.filter((id) => !missed.some((d) => d.id === id)),
	});

	expect(answered503.length).toBeGreaterThan(0);
	expect(last503 - first503).toBeGreaterThanOrEqual(BOUND_MS - 10_000);
	expect(last503 - first503).toBeLessThanOrEqual(BOUND_MS + 15_000);
	// Between the set-aside and the repair the service only got 2xx.
	expect(after503.length).toBeGreaterThan(0);
	expect(after503.filter((s) => s !== 200)).toEqual([]);
	expect(ranTwice).toEqual([]);
	expect(missed.length).toBeGreaterThan(0);
	// Those it missed were answered while it was set aside, before it was healed.
	expect(
		missed.filter((d) => d.result!.attempts.at(-1)!.at > healedAt + 5_000).map((d) => d.id),
	).toEqual([]);
	expect(messages.length).toBeGreaterThan(0);
	for (const message of messages) {
		const n = countOf(message);
		expect(message).toMatch(
			new RegExp(
				`^This workflow missed ${n} event\\(s\\) while it could not take them \\(\\S+ to \\S+\\): number\\.disconnected × ${n}$`,
			),
		);
	}
	expect(messages.reduce((n, m) => n + countOf(m), 0)).toBe(missed.length);
	// Each report lists every event it counts (fewer than setAsideLimits.missedKept), each a
	// disconnect; together they are the deliveries it missed, each in exactly one report.
	expect(
		listedInReports.map((l) => [
			l?.notKept,
			l?.events.length,
			l?.events.filter((e) => e.type !== 'number.disconnected').length,
		]),
	).toEqual(messages.map((m) => [0, countOf(m), 0]));
	expect([...listedIds].sort()).toEqual(missed.map((d) => d.id).sort());
	// The healthy logger has no failed run at all (a failed run retried to success is no excuse).
	expect(loggerFailed).toEqual([]);
	// Nothing is reported twice: once all are reported, later checks report nothing more. Three
	// checks of the account: the logger checks every 5 minutes, so at least two are the alert's.
	await checksSince(ACCOUNT, Date.now(), 3);
	expect(await reportsOf()).toHaveLength(messages.length);
}, 600_000);

/**
 * Issue 26's two soaks, side by side in one stack (two accounts): three version-3 workflows each,
 * A (every event), B (number.disconnected) and C (message.received and group.updated, then a
 * node that always fails, as one with a revoked credential does: every run ends in an error and
 * n8n answers "Error in workflow"). On one account the webhook points at B (C is a member), on the
 * other at C (published last). One new event every 3 s on each, each retried like a service (2, 4, 8, 16,
 * then every 30 s, up to 7 minutes: SERVICE_SCHEDULE). What must hold on both:
 *   - every event gets its 2xx; A and B run each event they select exactly once (lost 0, no
 *     duplicates);
 *   - the service's failures stop within the bound (3 failed runs spanning 2 minutes), plus the
 *     time the runs and one retry interval take;
 *   - C's failed runs of one event, over all of them: at most 8 (issue 26 measured about 16:
 *     each forward was tried three times);
 *   - C's registration check reports what it missed, naming each event in one report only,
 *     matched id for id: every event it selects (it runs none of them to success), as a member and
 *     as the holder (but for an own run that outlasted its offer, which n8n's log names).
 */
const FAILING_SENDING_MS = 135_000;
/**
 * A new event every 3 s on each account: at one a second on each (twice the rate in all),
 * n8n on SQLite, on 2 cores shared with other jobs, ran into write-lock time-outs ("Timeout waiting
 * for lock SqliteWriteConnectionMutex", 738 in one run), answered the sender after its 30 s, and
 * the healthy members failed too. The bound is a time, so fewer events prove the same.
 */
const FAILING_EVERY_MS = 3_000;
const FAILING_SOAKS = [
	{
		name: 'member',
		apiKey: 'sim-key-failing-member',
		account: 'acct_failing_member',
		ids: ['b1', 'b2', 'b3'],
		holder: 'B',
	},
	{
		name: 'holder',
		apiKey: 'sim-key-failing-holder',
		account: 'acct_failing_holder',
		ids: ['c1', 'c2', 'c3'],
		holder: 'C',
	},
] as const;
const FAILING_TYPES = [
	'message.received',
	'number.disconnected',
	'group.updated',
	'number.disconnected',
] as const;
const C_SELECTS = new Set<string>(['message.received', 'group.updated']);
const failingWorkflows: string[] = [];

afterAll(async () => {
	for (const id of failingWorkflows)
		await api('POST', `/workflows/${id}/deactivate`).catch(() => undefined);
});

async function failingSoak(soak: (typeof FAILING_SOAKS)[number]) {
	const webhookId = (suffix: string) => `a1e0c0de-0000-4000-8000-0000000f${suffix}00`;
	const make = async (letter: string, suffix: string, events: string[], broken: boolean) => {
		const { workflowId } = await triggerWorkflow({
			name: `e2e: failing ${soak.name} ${letter}`,
			apiKey: soak.apiKey,
			webhookId: webhookId(suffix),
			events,
			typeVersion: 3,
			...(broken
				? {
						waitSeconds: 0,
						thenFail: 'Broken on purpose (a revoked credential)',
						options: { repairInterval: '5s' },
					}
				: {}),
		});
		failingWorkflows.push(workflowId);
		return workflowId;
	};
	const [a, b, c] = [
		await make('A', soak.ids[0], ['*'], false),
		await make('B', soak.ids[1], ['number.disconnected'], false),
		await make('C', soak.ids[2], [...C_SELECTS], true),
	];
	// The last one published holds the webhook.
	const order = soak.holder === 'B' ? [c, a, b] : [a, b, c];
	for (const id of order) await api('POST', `/workflows/${id}/activate`);
	const webhook = (
		(await sim('GET', '/webhooks')) as Record<string, { url: string; secret: string } | null>
	)[soak.account]!;
	expect(new URL(webhook.url).pathname).toBe(
		new URL(productionUrl(webhookId(soak.holder === 'B' ? soak.ids[1] : soak.ids[2]))).pathname,
	);

	const start = Date.now();
	const deliveries: Array<{ id: string; type: string; result?: DeliveryResult }> = [];
	const sending: Array<Promise<void>> = [];
	for (let i = 0; Date.now() < start + FAILING_SENDING_MS; i++) {
		const type = FAILING_TYPES[i % FAILING_TYPES.length];
		const body = {
			...(sample(type) as unknown as IDataObject),
			deliveryId: `failing-${soak.name}-${i}`,
		};
		const delivery: (typeof deliveries)[number] = { id: body.deliveryId, type };
		deliveries.push(delivery);
		sending.push(
			(async () => {
				delivery.result = await deliverWithRetries(
					viaBalancer(webhook.url),
					JSON.stringify(body),
					webhook.secret,
					SERVICE_SCHEDULE,
				);
			})(),
		);
		await sleep(Math.max(0, start + (i + 1) * FAILING_EVERY_MS - Date.now()));
	}
	await Promise.all(sending);
	return { soak, start, deliveries, workflows: { a, b, c } };
}

/**
 * A workflow's "This workflow missed …" reports (registrationRepair.ts): the error's message and
 * description. On n8n 2.x each is a failed execution of the workflow; n8n 1.123 has no failed
 * execution for a published trigger, so there each is a line of n8n's log at level error, the same
 * words with the description after " | " (n8n/capabilities.ts, saveFailedExecution).
 */
async function missedReportsOf(workflowId: string) {
	if (onN8n1) {
		const { name } = await api('GET', `/workflows/${workflowId}`);
		const prefix = `Messaging Relay Trigger "Relay Trigger" of workflow "${String(name)}": `;
		return readN8nLog()
			.split('\n')
			.filter((line) => line.startsWith(`${prefix}This workflow missed`))
			.map((line) => {
				const [message, ...description] = line.slice(prefix.length).split(' | ');
				return { message, description: description.join(' | ') };
			});
	}
	return (await allExecutions(workflowId))
		.filter(
			(e) =>
				e.status === 'error' &&
				JSON.stringify(e.data?.resultData.error ?? {}).includes('This workflow missed'),
		)
		.map(
			(e) =>
				e.data?.resultData.error as { message?: string; description?: string | null } | undefined,
		)
		.map((error) => ({ message: error?.message ?? '', description: error?.description ?? '' }));
}

/** Runs of each delivery id, successful and failed, with when each failed run started. */
async function runsByDelivery(workflowId: string) {
	const ok = new Map<string, number>();
	const failed = new Map<string, number[]>();
	for (const execution of await allExecutions(workflowId)) {
		const id = (nodeItems(execution, 'Relay Trigger')[0]?.event as IDataObject | undefined)
			?.deliveryId as string | undefined;
		if (!id) continue;
		if (execution.status === 'success') ok.set(id, (ok.get(id) ?? 0) + 1);
		else failed.set(id, [...(failed.get(id) ?? []), Date.parse(execution.startedAt ?? '')]);
	}
	return { ok, failed };
}

test('a workflow whose runs all fail, as a member and as the one the webhook points at: set aside within the bound, the others lose nothing, at most 8 failed runs per event before the set-aside', async () => {
	const soaks = await failingSoaks();
	// Every run counted has ended and been saved (running ones too: a run still going is counted).
	await executionsSettled(soaks.flatMap((s) => Object.values(s.workflows)));
	const figures: Record<string, unknown> = {};
	for (const { soak, start, deliveries, workflows } of soaks) {
		const failures = deliveries.flatMap((d) =>
			d
				.result!.attempts.filter((x) => x.outcome !== 'status' || x.status! >= 300)
				.map((x) => x.at + x.ms),
		);
		const firstFailure = Math.min(...failures);
		const lastFailure = Math.max(...failures);
		const notTaken = deliveries.filter((d) => d.result!.status !== 200).map((d) => d.id);
		const [runsA, runsB, runsC] = [
			await runsByDelivery(workflows.a),
			await runsByDelivery(workflows.b),
			await runsByDelivery(workflows.c),
		];
		const selects = {
			a: deliveries,
			b: deliveries.filter((d) => d.type === 'number.disconnected'),
			c: deliveries.filter((d) => C_SELECTS.has(d.type)),
		};
		const lostA = selects.a.filter((d) => !runsA.ok.has(d.id)).map((d) => d.id);
		const lostB = selects.b.filter((d) => !runsB.ok.has(d.id)).map((d) => d.id);
		const duplicates = [...runsA.ok, ...runsB.ok].filter(([, n]) => n > 1).map(([id]) => id);
		const healthyFailed = [...runsA.failed.values(), ...runsB.failed.values()].flat().length;
		// C's failed runs per event it selects, those that started before the service's last failure.
		const before = selects.c.map(
			(d) => (runsC.failed.get(d.id) ?? []).filter((at) => at <= lastFailure).length,
		);
		const all = selects.c.map((d) => (runsC.failed.get(d.id) ?? []).length);
		const reports = (await missedReportsOf(workflows.c)).map((r) =>
			Number(/^This workflow missed (\d+) event/.exec(r.message)?.[1] ?? 0),
		);
		figures[soak.name] = {
			events: deliveries.length,
			attempts: deliveries.reduce((n, d) => n + d.result!.attempts.length, 0),
			failuresSeen: failures.length,
			failureWindowSeconds: (lastFailure - firstFailure) / 1000,
			lastFailureAfterStartSeconds: (lastFailure - start) / 1000,
			notTaken: notTaken.length,
			lostA: lostA.length,
			lostB: lostB.length,
			duplicates: duplicates.length,
			healthyFailedRuns: healthyFailed,
			cEvents: selects.c.length,
			cRanOk: runsC.ok.size,
			cFailedRunsPerEventBeforeSetAside: {
				max: Math.max(...before),
				mean: Number((before.reduce((n, x) => n + x, 0) / before.length).toFixed(2)),
			},
			cFailedRunsPerEventAll: {
				max: Math.max(...all),
				mean: Number((all.reduce((n, x) => n + x, 0) / all.length).toFixed(2)),
				total: all.reduce((n, x) => n + x, 0),
			},
			missedReported: reports.reduce((n, x) => n + x, 0),
			reports: reports.length,
		};
		Object.assign(figures[soak.name] as object, {
			check: { notTaken, lostA, lostB, duplicates, healthyFailed, before, all },
		});
	}
	report(
		'failing-workflow',
		Object.fromEntries(
			Object.entries(figures).map(([k, v]) => [k, { ...(v as object), check: undefined }]),
		),
	);

	for (const { soak } of soaks) {
		const f = figures[soak.name] as {
			failureWindowSeconds: number;
			check: {
				notTaken: string[];
				lostA: string[];
				lostB: string[];
				duplicates: string[];
				healthyFailed: number;
				before: number[];
				all: number[];
			};
		};
		// At most 8 failed runs of C per event over all of them, before the set-aside and after.
		expect({
			soak: soak.name,
			...f.check,
			before: Math.max(...f.check.before) <= 8,
			all: Math.max(...f.check.all) <= 8,
		}).toEqual({
			soak: soak.name,
			notTaken: [],
			lostA: [],
			lostB: [],
			duplicates: [],
			healthyFailed: 0,
			before: true,
			all: true,
		});
		// The bound (2 minutes from the first failure), the runs of the failure that reaches it,
		// and one retry interval (30 s) of the events answered before it.
		expect(f.failureWindowSeconds).toBeGreaterThanOrEqual(BOUND_MS / 1000 - 10);
		expect(f.failureWindowSeconds).toBeLessThanOrEqual(BOUND_MS / 1000 + 40);
	}
	// Where the owner sees what it missed: C's own registration check reports it, naming the
	// events (registrationRepair.ts), within a few checks (every 5 s): every event it selects, once
	// (23 of 23 as a member and as the holder, 2026-11-26).
	const listedOf = async (workflowId: string) => {
		const reports = await missedReportsOf(workflowId);
		const listed = reports.map((r) => missedEventsIn(r.description));
		return { reports, listed, ids: listed.flatMap((l) => l?.events.map((e) => e.id) ?? []) };
	};
	// The holder's own run of an event, offered to it while set aside, that outlasted the offer is
	// not a miss (fanOut.ts): n8n's log names each such event, and only those are excused.
	const outlasted = () =>
		new Set(
			[...readN8nLog().matchAll(/its own run of event (\S+) outlasted the offer/g)].map(
				(m) => m[1],
			),
		);
	for (const { soak, deliveries, workflows } of soaks) {
		const cSelects = deliveries.filter((d) => C_SELECTS.has(d.type)).map((d) => d.id);
		// A member is offered every event it selects and fails each: it missed them all. So
		// does the holder, but for an own run that outlasted its offer (named in the log).
		const expected = () =>
			soak.name === 'member' ? cSelects : cSelects.filter((id) => !outlasted().has(id));
		let c = await listedOf(workflows.c);
		await eventually(async () => {
			c = await listedOf(workflows.c);
			return c.ids.length >= expected().length;
		}, 60_000).catch(() => undefined);
		const excused = cSelects.filter((id) => !expected().includes(id));
		report(`failing-workflow-${soak.name}-missed`, {
			reports: c.reports.length,
			listed: c.ids.length,
			cSelects: cSelects.length,
			excusedOutlastedOffer: excused,
			notSelected: c.ids.filter((id) => !cSelects.includes(id)),
			selectedNotListed: cSelects.filter((id) => !c.ids.includes(id)),
		});
		// Each excused event is not lost from sight: its own run, offered at the delivery that got
		// the service's 2xx, has its execution (failed, as C's all do). How many outlast the 3 s
		// offer depends on n8n's load alone (3 of 23 with the soaks apart, 10 with all together).
		const runsC = await runsByDelivery(workflows.c);
		const offeredRunMissing = excused.filter((id) => {
			const answered = deliveries.find((d) => d.id === id)!.result!.attempts.at(-1)!;
			const started = [...(runsC.failed.get(id) ?? [])];
			return !started.some((at) => at >= answered.at - 1_000) && !runsC.ok.has(id);
		});
		expect(offeredRunMissing).toEqual([]);
		expect(c.reports.length).toBeGreaterThan(0);
		// Each report lists every event it counts, of the types C selects.
		expect(
			c.listed.map((l) => [
				l?.notKept,
				l?.events.length,
				l?.events.every((e) => C_SELECTS.has(e.type)),
			]),
		).toEqual(
			c.reports.map((r) => [
				0,
				Number(/^This workflow missed (\d+) event/.exec(r.message)?.[1]),
				true,
			]),
		);
		// No event named twice, none that C does not select.
		expect(new Set(c.ids).size).toBe(c.ids.length);
		expect(c.ids.filter((id) => !cSelects.includes(id))).toEqual([]);
		// Matched id for id: every event it missed, and no other.
		expect([...c.ids].sort()).toEqual([...expected()].sort());
	}
}, 600_000);
