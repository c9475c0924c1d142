/**
 * What the queue suite's SIGKILL test accepts, per event (queue.e2e.ts, "SIGKILL of the webhook
 * process, then of a worker"). The sender retries like a service, so a run that failed for any
 * reason is followed by a retry that succeeds: "nothing lost" alone would absorb an intermittent
 * node error as "cut and run again". Hence:
 *
 *   1. Every run that did not succeed is explained by a kill of a worker, event by event: that
 *      worker life logged "Worker started execution N" before it was killed (its log as it stood
 *      at the kill), no worker ever logged "Worker finished execution N", n8n's row says it
 *      started (startedAt) no later than the kill, and how it ended is a cut run's, never a
 *      node's error: `crashed` (the worker's next life found it unfinished and marked it from its
 *      event log, n8n/dist/eventbus/message-event-bus/message-event-bus.js:192-224, with
 *      WorkflowCrashedError for a node that started and never finished,
 *      executions/execution-recovery.service.js:153-157), `running` (the row nobody finished: the
 *      recovery amends only runs with node events in the log), or `error` with n8n's stalled-job
 *      error and no node (bull fails the job once the dead worker's lock has expired,
 *      maxStalledCount 0, scaling/scaling.service.js:120; workflow-runner.js:524-533). The one
 *      run a kill of the webhook process can cut is one it created and had not yet queued
 *      (`new`, notCutBeforeEnqueue).
 *   2. A delivery runs more than once in a workflow only after the service sent it again because
 *      an attempt was cut by a kill: an attempt in flight when a process was killed
 *      (`at` <= kill <= `at` + ms) that was dropped, timed out or answered 5xx. Each run is tied to
 *      the attempt that carried it: the one in flight when n8n created the execution (its
 *      `createdAt`; a member's run is created inside the holder's request, so within the service's
 *      attempt too). Every run but one must be carried by a cut attempt, no attempt carries two
 *      runs, and a run created outside every attempt is unexplained. One more attempt counts as
 *      cut: one that failed carrying a run that rule 1 explains as a job the killed worker took as
 *      it died (tookAsItDied): SIGKILL is sent before the process is gone, and its blocked take
 *      from the queue can still be served meanwhile, so that attempt may start after the signal
 *      (CI 2026-11-29: sent 19 ms after it, its run created 37 ms after it).
 *   3. The service sees failures only around a kill, each tied to it by what it was, and for a
 *      bounded time after n8n is back. A failed attempt belongs to a kill when it was in flight at
 *      it (a process died under it). Else, by its answer: HAProxy's own 503 page ("No server is
 *      available", test/support/stack/balancer.ts), sent while the killed webhook process was down
 *      (up to BALANCER_GRACE_MS after it answered ready: HAProxy checks readiness every 500 ms);
 *      never for a worker's kill, when the webhook process goes on serving. Else the trigger's own
 *      503 for an event a workflow still runs ("still running the event", or the holder's "could not
 *      take the event yet" for a member that still runs it), for a worker's kill that cut an earlier
 *      attempt of the same delivery, sent within CUT_JOB_FAILED_WITHIN_MS of the kill: the member's
 *      forward waits for the job the killed worker held, which bull fails only once that worker's lock
 *      has expired and a stall check ran (docs/design/n8n-internals.md and the constant below).
 *      Else, as in rule 2, a worker's kill whose dying worker took the job the attempt carried.
 *      Anything else fails. The figures per kill (the last failure sent and seen, after the process
 *      was back) are reported.
 */
import type { DeliveryAttempt } from '../../fixtures/retrying-sender';
import { STALLED_JOB, type StoredOutcome } from './workerShutdownRace';

export interface Kill {
	process: string;
	/** When SIGKILL was sent and when the new process answered its readiness URL (ms since epoch). */
	killedAt: number;
	backAt: number;
	/** The killed process's log as it stood at the kill, from its last start. */
	killedLife: string;
}

export interface KillRun {
	id: string;
	workflowId: string;
	deliveryId: string | null;
	status: string;
	/** n8n's startedAt (ms since epoch), null when never set. */
	startedAt: number | null;
	/** n8n's createdAt (ms since epoch): when the webhook process created the execution. */
	createdAt?: number | null;
}

/** How long after the killed process answered ready the balancer may still send elsewhere (two of its 500 ms checks). */
export const BALANCER_GRACE_MS = 1_000;

/**
 * How long after a worker's kill bull can take to fail a job that worker held. Its lock
 * (lockDuration 60 s, renewed every 10 s, @n8n/config/dist/configs/scaling-mode.config.js:169-171)
 * expires at most 60 s after the kill; the job is failed by the first stall check after that
 * (maxStalledCount 0, n8n/dist/scaling/scaling.service.js:120). Checks run on every worker's
 * timer every stalledInterval (30 s, bull/lib/queue.js:1088-1094), but only one per interval across
 * the queue: a check sets the `stalled-check` key for 30 s from when it runs
 * (bull/lib/commands/moveStalledJobsToWait-7.lua:54-58), so a timer firing just before that key
 * expires skips its turn, and checks come 30 to 60 s apart. Hence lockDuration + 2 x
 * stalledInterval: 120 s. (A first bound of 60 + 30 s, without the skipped turn, was refuted by a
 * run of the test: the member's 503 "still running" was still sent 100.8 s after the kill.)
 */
export const CUT_JOB_FAILED_WITHIN_MS = 60_000 + 2 * 30_000;

/** HAProxy's own answer while no server behind it is ready (its default 503 page). */
const BALANCER_503 = /No server is available to handle this request/;
/** A trigger's 503 for an event a workflow of the account still runs (triggerVersion.ts, step 4). */
const STILL_RUNNING_503 = /still running the event|could not take the event yet/;

const failed = (a: DeliveryAttempt) => a.outcome !== 'status' || (a.status as number) >= 300;
const end = (a: DeliveryAttempt) => a.at + a.ms;

/** How an attempt ends when a process dies under it: dropped, timed out or answered 5xx. */
const endedAsCut = (a: DeliveryAttempt) =>
	a.outcome === 'dropped' ||
	a.outcome === 'timeout' ||
	(a.outcome === 'status' && (a.status as number) >= 500);

/** Attempts cut by a kill: in flight when it came, and dropped, timed out or answered 5xx. */
export function cutAttempts(attempts: DeliveryAttempt[], kills: Kill[]): DeliveryAttempt[] {
	return attempts.filter(
		(a) => endedAsCut(a) && kills.some((k) => a.at <= k.killedAt && k.killedAt <= end(a)),
	);
}

/** Why a run that did not succeed is not one a worker's kill cut (null when it is). */
export function notCutByAKill(
	run: KillRun,
	outcome: StoredOutcome | undefined,
	kills: Kill[],
	workerLogs: string[],
	webhookLogs: string[] = [],
): string | null {
	if (outcome?.error?.node)
		return `the node "${outcome.error.node}" failed: ${outcome.error.message}`;
	if (tookAsItDied(run, outcome, kills, workerLogs, webhookLogs)) return null;
	if (run.status === 'new') return notCutBeforeEnqueue(run, kills, workerLogs);
	const startedIn = (log: string) =>
		new RegExp(`^Worker started execution ${run.id} \\(job`, 'm').test(log);
	const kill = kills.find((k) => k.process.startsWith('worker') && startedIn(k.killedLife));
	if (!kill) return 'no killed worker had started it';
	if (
		workerLogs.some((log) =>
			new RegExp(`^Worker finished execution ${run.id} \\(job`, 'm').test(log),
		)
	)
		return 'a worker finished it';
	if (run.startedAt === null || run.startedAt > kill.killedAt)
		return `it started after the kill of ${kill.process}`;
	const error = outcome?.error ?? null;
	if (run.status === 'crashed')
		return error === null || error.name === 'WorkflowCrashedError'
			? null
			: `crashed with ${error.message}`;
	if (run.status === 'running') return error === null ? null : `running with ${error.message}`;
	if (run.status === 'error')
		return error?.message === STALLED_JOB
			? null
			: `failed with ${error?.message ?? 'no error stored'}`;
	return `status ${run.status}`;
}

/**
 * How far from a worker's SIGKILL a job can be created and still be taken by that worker as it
 * dies, for a run that left no trace but its enqueuing. A live worker logs its start within 146 ms
 * of the run's creation (the largest of 1,412 runs in 10 runs of the soak, 2026-11-28/29), and a
 * killed one is gone within tens of ms (CI 2026-11-29: a job created 37 ms after the signal was
 * still taken). The rules with a stalled-job error or line need no such bound: that is the trace.
 */
export const TAKEN_AROUND_KILL_MS = 1_000;

/**
 * The killed worker that took this run's job as it died, before it logged starting it (null when
 * none did). Only a worker that died can leave a job it took unrun, and a live one logs every
 * start; so no worker's log may say it started it, and the run was created before that worker was
 * back (`backAt`: after its death it takes nothing). Then one of three ends, each seen in a run:
 *   - Bull failed the job as stalled and n8n stored its stalled-job error (`error`; CI 2026-11-26:
 *     a delivery sent 19 ms before the kill; CI 2026-11-29: created 37 ms after it);
 *   - the row stayed `new`, and the webhook process that queued it logged "job stalled more than
 *     maxStalledCount (execution N)" (2026-11-28: enqueued 13 ms before the kill);
 *   - the row stayed `new`, the webhook process logged enqueuing it and nothing after, neither
 *     the stall nor the end (2026-11-29, 19:48: created 9 ms before the kill, Bull's lists empty
 *     70 s later); created within TAKEN_AROUND_KILL_MS of the kill.
 */
export function tookAsItDied(
	run: KillRun,
	outcome: StoredOutcome | undefined,
	kills: Kill[],
	workerLogs: string[],
	webhookLogs: string[],
): Kill | null {
	const created = run.createdAt;
	if (created == null) return null;
	const kill = kills.find((k) => k.process.startsWith('worker') && created <= k.backAt);
	if (!kill) return null;
	const said = (logs: string[], line: string) =>
		logs.some((log) => new RegExp(line, 'm').test(log));
	if (said(workerLogs, `^Worker started execution ${run.id} \\(job`)) return null;
	if (run.status === 'error') return outcome?.error?.message === STALLED_JOB ? kill : null;
	if (run.status !== 'new' || run.startedAt !== null) return null;
	if (said(webhookLogs, `^job stalled more than maxStalledCount \\(execution ${run.id}\\)$`))
		return kill;
	const leftNoTrace =
		said(webhookLogs, `^Enqueued execution ${run.id} \\(job`) &&
		!said(webhookLogs, `\\(execution ${run.id}\\)$|^Execution ${run.id} \\(job`);
	return leftNoTrace && Math.abs(created - kill.killedAt) <= TAKEN_AROUND_KILL_MS ? kill : null;
}

/**
 * A run the webhook process's kill cut before it was queued: the process creates the execution
 * (`new`, active-executions.js via workflow-runner.js:288) and then adds its job
 * (workflow-runner.js:504, which logs "Enqueued execution N"); killed in between, the row stays
 * `new` and nothing runs it. Explained only when it was created no later than that kill, the
 * killed life never logged enqueuing it and no worker started it.
 */
function notCutBeforeEnqueue(run: KillRun, kills: Kill[], workerLogs: string[]): string | null {
	const enqueuedIn = (log: string) =>
		new RegExp(`^Enqueued execution ${run.id} \\(job`, 'm').test(log);
	const kill = kills.find(
		(k) => k.process.startsWith('webhook') && run.createdAt != null && run.createdAt <= k.killedAt,
	);
	if (!kill) return 'new, and not created before a kill of the webhook process';
	if (enqueuedIn(kill.killedLife)) return 'new, but the killed webhook process had queued it';
	if (
		workerLogs.some((log) =>
			new RegExp(`^Worker started execution ${run.id} \\(job`, 'm').test(log),
		)
	)
		return 'new, but a worker started it';
	return null;
}

/** The attempt that carried a run: the one in flight when n8n created it. */
function carrierOf(run: KillRun, attempts: DeliveryAttempt[]): DeliveryAttempt | undefined {
	const created = run.createdAt;
	return created == null ? undefined : attempts.find((a) => a.at <= created && created <= end(a));
}

/**
 * Rule 2 for one workflow's runs of one delivery: each run's carrier is the attempt in flight when
 * n8n created it; every run but one must have a cut carrier of its own. Null when that holds.
 */
export function notCarried(
	runs: KillRun[],
	attempts: DeliveryAttempt[],
	cut: Set<DeliveryAttempt>,
): string | null {
	const used = new Set<DeliveryAttempt>();
	let notCut = 0;
	for (const run of runs) {
		const carrier = carrierOf(run, attempts);
		if (!carrier) return `run ${run.id} was created outside every attempt of its delivery`;
		if (used.has(carrier)) return `runs of one attempt: ${run.id} and another`;
		used.add(carrier);
		if (!cut.has(carrier)) notCut++;
	}
	return notCut > 1 ? `${notCut} runs carried by attempts no kill cut` : null;
}

export interface HardKillVerdict {
	/** Runs that did not succeed, and why no kill explains them. */
	unexplainedRuns: Array<{
		id: string;
		workflowId: string;
		deliveryId: string | null;
		status: string;
		why: string;
	}>;
	/** Deliveries a workflow ran more than once where a run is not carried by its own cut attempt (rule 2). */
	extraRunsUnexplained: Array<{
		workflowId: string;
		deliveryId: string;
		runs: number;
		cutAttempts: number;
		why: string;
	}>;
	/** Failed attempts that were neither in flight at a kill nor sent while the killed process was down. */
	failuresNotAtAKill: Array<{ deliveryId: string; attempt: DeliveryAttempt }>;
	/** Per delivery with any, the attempts a kill cut (rule 2): what let the service deliver it again. */
	cutAttempts: Record<string, DeliveryAttempt[]>;
	/** Runs whose job a killed worker took as it died (tookAsItDied), reported with how far from the kill they were created. */
	takenAsItDied: Array<{
		id: string;
		deliveryId: string | null;
		status: string;
		process: string;
		createdAfterKillMs: number;
		carrier: string | null;
	}>;
	/** Per kill: how long after the process was back the last failure tied to it was sent and seen, and the bound on sending. */
	failuresAfterBack: Array<{
		process: string;
		lastFailureSentAfterBackMs: number | null;
		lastFailureSeenAfterBackMs: number | null;
		boundSentAfterBackMs: number;
	}>;
}

export function judgeHardKill({
	runs,
	outcomes,
	deliveries,
	kills,
	workerLogs,
	webhookLogs = [],
}: {
	runs: KillRun[];
	outcomes: Record<string, StoredOutcome>;
	deliveries: Array<{ id: string; attempts: DeliveryAttempt[] }>;
	kills: Kill[];
	workerLogs: string[];
	/** The webhook processes' logs (every life): where n8n says a job stalled. */
	webhookLogs?: string[];
}): HardKillVerdict {
	const unexplainedRuns = runs
		.filter((r) => r.status !== 'success')
		.map((r) => ({
			id: r.id,
			workflowId: r.workflowId,
			deliveryId: r.deliveryId,
			status: r.status,
			why: notCutByAKill(r, outcomes[r.id], kills, workerLogs, webhookLogs),
		}))
		.filter((r): r is typeof r & { why: string } => r.why !== null);

	const attemptsOf = new Map(deliveries.map((d) => [d.id, d.attempts]));
	// Rule 2's second way to be cut: the failed attempt that carried a job a worker took as it died.
	const taken = runs.flatMap((run) => {
		const kill = tookAsItDied(run, outcomes[run.id], kills, workerLogs, webhookLogs);
		const carrier = carrierOf(run, attemptsOf.get(run.deliveryId ?? '') ?? []);
		return kill ? [{ run, kill, carrier }] : [];
	});
	const diedWith = (a: DeliveryAttempt): Kill | undefined =>
		endedAsCut(a) ? taken.find((t) => t.carrier === a)?.kill : undefined;
	const cutBy = (a: DeliveryAttempt, k: Kill) =>
		cutAttempts([a], [k]).length > 0 || diedWith(a) === k;
	const cutOf = (attempts: DeliveryAttempt[]) =>
		attempts.filter((a) => kills.some((k) => cutBy(a, k)));
	const runsPerPair = new Map<string, { workflowId: string; deliveryId: string; runs: number }>();
	for (const r of runs.filter((x) => x.deliveryId !== null)) {
		const key = `${r.workflowId} ${r.deliveryId}`;
		const pair = runsPerPair.get(key) ?? {
			workflowId: r.workflowId,
			deliveryId: r.deliveryId as string,
			runs: 0,
		};
		pair.runs++;
		runsPerPair.set(key, pair);
	}
	const extraRunsUnexplained = [...runsPerPair.values()]
		.filter((p) => p.runs > 1)
		.map((p) => {
			const attempts = attemptsOf.get(p.deliveryId) ?? [];
			const cut = new Set(cutOf(attempts));
			const ofPair = runs.filter(
				(r) => r.workflowId === p.workflowId && r.deliveryId === p.deliveryId,
			);
			return { ...p, cutAttempts: cut.size, why: notCarried(ofPair, attempts, cut) };
		})
		.filter((p): p is typeof p & { why: string } => p.why !== null);

	// Each failed attempt belongs to one kill: the last one it was in flight at, else the one
	// during whose downtime it was sent, else a worker's kill that cut an earlier attempt of the
	// same delivery, while bull had not yet failed the job it cut; or the worker's kill whose
	// dying worker took the job the attempt carried.
	const whileDown = (a: DeliveryAttempt, k: Kill) =>
		k.process.startsWith('webhook') &&
		a.status === 503 &&
		BALANCER_503.test(a.answer ?? '') &&
		k.killedAt <= a.at &&
		a.at <= k.backAt + BALANCER_GRACE_MS;
	const inFlightAt = (a: DeliveryAttempt, k: Kill) => a.at <= k.killedAt && k.killedAt <= end(a);
	const stillRunning = (a: DeliveryAttempt, k: Kill, all: DeliveryAttempt[]) =>
		k.process.startsWith('worker') &&
		a.status === 503 &&
		STILL_RUNNING_503.test(a.answer ?? '') &&
		k.killedAt <= a.at &&
		a.at <= k.killedAt + CUT_JOB_FAILED_WITHIN_MS + BALANCER_GRACE_MS &&
		all.some((x) => x.at < a.at && cutBy(x, k));
	const latest = [...kills].reverse();
	const killOf = (a: DeliveryAttempt, all: DeliveryAttempt[]) =>
		latest.find((k) => inFlightAt(a, k)) ??
		latest.find((k) => whileDown(a, k)) ??
		diedWith(a) ??
		latest.find((k) => stillRunning(a, k, all));
	const failures = deliveries.flatMap((d) =>
		d.attempts
			.filter(failed)
			.map((attempt) => ({ deliveryId: d.id, attempt, kill: killOf(attempt, d.attempts) })),
	);
	const failuresNotAtAKill = failures
		.filter((f) => f.kill === undefined)
		.map(({ deliveryId, attempt }) => ({ deliveryId, attempt }));
	const failuresAfterBack = kills.map((k) => {
		const tied = failures.filter((f) => f.kill === k).map((f) => f.attempt);
		const lastSent = tied.length > 0 ? Math.max(...tied.map((a) => a.at)) : null;
		const lastSeen = tied.length > 0 ? Math.max(...tied.map(end)) : null;
		const bound =
			Math.max(
				k.backAt,
				k.process.startsWith('worker') ? k.killedAt + CUT_JOB_FAILED_WITHIN_MS : -Infinity,
			) + BALANCER_GRACE_MS;
		return {
			process: k.process,
			lastFailureSentAfterBackMs: lastSent === null ? null : lastSent - k.backAt,
			lastFailureSeenAfterBackMs: lastSeen === null ? null : lastSeen - k.backAt,
			boundSentAfterBackMs: bound - k.backAt,
		};
	});
	return {
		unexplainedRuns,
		extraRunsUnexplained,
		failuresNotAtAKill,
		failuresAfterBack,
		cutAttempts: Object.fromEntries(
			deliveries.map((d) => [d.id, cutOf(d.attempts)]).filter(([, cut]) => cut.length > 0),
		),
		takenAsItDied: taken.map(({ run, kill, carrier }) => ({
			id: run.id,
			deliveryId: run.deliveryId,
			status: run.status,
			process: kill.process,
			createdAfterKillMs: (run.createdAt as number) - kill.killedAt,
			carrier: carrier ? (carrier.status?.toString() ?? carrier.outcome) : null,
		})),
	};
}
