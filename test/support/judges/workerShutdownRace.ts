/**
 * The one race the queue soak excuses: a job n8n 2.41.1 itself loses while it stops a worker.
 *
 * Why n8n takes such a job at all: on SIGTERM the worker pauses its queue locally with
 * `queue.pause(true, true)` (n8n/dist/scaling/scaling.service.js:214, 226), which only aborts a
 * *blocking* wait for a job (bull/lib/queue.js:905-909). Under load the queue is never drained,
 * so bull fetches the next job with a non-blocking `moveToActive()` (queue.js:1262-1263) that the
 * pause does not stop. n8n's drain loop counts only jobs that have reached
 * `runningJobs` (scaling.service.js:230, job-processor.js:274), so it shuts down while that job is
 * still loading its execution; "Stopping worker..." then closes the database connection
 * (commands/worker.js:39-48 → base-command.js:211-216, `dataSource.destroy()`), the job's next
 * query after "Worker started execution N" (job-processor.js:113; `setRunning`, :121) is refused
 * by the closed pool, the job processor throws, n8n logs "Worker errored while running execution
 * N" (scaling.service.js:181) and does not retry (`maxStalledCount: 0`, scaling.service.js:120).
 * The webhook process, which had answered the delivery 200, gets the job's failure from bull
 * (`new Error(failedReason)`, bull/lib/job.js:494, :518) and overwrites the execution's data with
 * it and nothing else (workflow-runner.js:210-230: `runData: {}`): the event is lost in n8n, whatever
 * node the workflow starts with. Seen once, in the CI run of da1caf4 (execution 1035; that worker
 * log is test/judges/fixtures/worker-stopped-under-load.log).
 *
 * A run is excused only when all of these hold (judgeFailedRuns):
 *   1. log:   a worker started it after its "Received SIGTERM" (same life) and logged "Worker
 *             errored while running execution N": the job processor failed, not a node (a node's
 *             error ends the run with status error and "Worker finished execution N",
 *             job-processor.js:298);
 *   2. text:  its stored error is the closed database's refusal (CLOSED_DATABASE), carried by
 *             bull (its stack starts in bull/lib/job.js), with no node and no node run: not a
 *             node's error text (NodeApiError, NodeOperationError) and not any other failure;
 *   3. loss:  the delivery its execution was created for (the trigger data as enqueued, kept by
 *             recordEnqueuedDeliveries because n8n overwrites it) is one its workflow lost, and no
 *             other excused run claims that delivery. Every lost delivery must be claimed so.
 *             With triggers that answer when the workflow finishes (version 3's default) the
 *             service is answered the failure and delivers the event again, so nothing is lost:
 *             then (`attempts` given) the delivery must instead have run to success exactly once
 *             in that workflow, and the service must have got a failed run's answer for it: n8n's
 *             500 "Error in workflow" (webhook-helpers.js, lastNode) for the holder's own run, or
 *             the holder's 503 "could not take the event yet" for a member's (`redelivered`).
 *
 * The same fetch has a second ending, seen once, in the CI run of stop 22 (execution 1039; the
 * logs are test/judges/fixtures/worker-stopped-job-never-started.log and
 * webhook-job-stalled.log): the worker exits while the job it fetched is still loading its
 * execution, before "Worker started execution N" (job-processor.js:98-113). Nothing fails in the
 * worker; the job stays active under the dead worker's lock until bull's stall check on the other
 * worker fails it with "job stalled more than maxStalledCount" (maxStalledCount 0,
 * scaling.service.js:120). The webhook process wraps that in MaxStalledCountError
 * (workflow-runner.js:524-533) and, the execution never having run, stores that error with
 * `runData: {}` (processError, :106-214). Excused only when all of these hold:
 *   1. log:   a worker received SIGTERM and stopped ("Stopping worker...") in the soak; no worker
 *             ever logged "Worker started execution N"; the webhook process logged "job stalled
 *             more than maxStalledCount (execution N)" with bull's stack (bull/lib/job.js);
 *   2. fetch: the stopped worker fetched it within its stop window: when that worker's process
 *             had exited, bull still listed N's job as active under the lock of the stopped
 *             worker's life (its queue token, seen on jobs that life started), fetched
 *             (processedOn) between the SIGTERM and the exit (StopWindow, bullJobs.ts). A job
 *             another worker fetched, or fetched before the SIGTERM (which the drain would have
 *             waited for), or that no stop saw, is not this race;
 *   3. text:  its stored error is exactly MaxStalledCountError's, with no node and no node run;
 *   4. loss:  as above.
 *
 * The same fetch has a third ending, seen once in a local run of 2026-11-25 (execution 1035, delivery
 * qd-1650; that worker log is test/judges/fixtures/worker-stopped-run-not-saved.log): the job
 * got past `setRunning` (job-processor.js:121) before the database closed, so nothing failed at
 * the start; the drain loop had still counted it as not running (it is added to `runningJobs`
 * only at :274, after loading the workflow), so "Stopping worker..." closed the database while
 * it ran. The run went through its nodes and the worker logged "Worker finished execution N",
 * but saving its end failed on the closed database (hookFunctionsSaveWorker's
 * updateExistingExecution, execution-lifecycle-hooks.js:488-534; the failure is only logged,
 * n8n-core workflow-execute.js:1482-1486), so the row stayed "running". The worker's next life
 * found it unfinished and marked it crashed from its event log (message-event-bus.js:192-224,
 * execution-recovery.service.js:115-168: the nodes that logged start and finish get artificial
 * successful run data, no error). Nothing is lost (the run happened, once); only its record says
 * crashed. Such a run counts as its delivery's one run, and its status is excused, only when all
 * of these hold (notSaved in the verdict):
 *   1. log:   in one worker life: "Received SIGTERM", then "Worker started execution N", then
 *             "Stopping worker...", then the closed database's refusal logged for a
 *             "workflowExecuteAfter" hook, then "Worker finished execution N"; and after that,
 *             in its next life, "Found unfinished executions: ..." naming N;
 *   2. row:   status crashed; its stored data holds no error and the nodes that ran (a node that
 *             started and never finished would have left WorkflowCrashedError);
 *   3. once:  no other run of that workflow was created for its delivery.
 *
 * The third ending has a sequel, seen once in a local run of 2026-11-29 (execution 1037; worker1's
 * log is test/judges/fixtures/worker-stopped-ran-then-stalled.log): the worker sent the run's
 * "job-finished" message (the webhook process logged "Execution N (job N) finished",
 * scaling.service.js:400-425) but exited before bull moved the job to completed, so the job stayed
 * active under its lock. Bull's stall check failed it a minute later, and the webhook process, still
 * waiting in `job.finished()` (workflow-runner.js:523-533), overwrote the row with the stalled-job
 * error and `runData: {}` (processError). Its nodes had run; n8n then said the run failed, so the
 * trigger answered the service as failed, and the event ran a second time from the redelivery.
 * Excused only as all of the third ending's log (1) and all of these, and reported apart
 * (`ranFirst`):
 *   2. webhook: the webhook process logged the job's stall with bull's stack;
 *   3. fetch:  the stopped worker fetched the job within its stop window, as for the second ending;
 *   4. text:   its stored error is exactly n8n's stalled-job error, no node, no node run;
 *   5. again:  its delivery was answered as failed, delivered again and ran to success once more
 *              (rule 3, with the attempts); without a redelivery it is not excused.
 */

export interface StoredOutcome {
	error: {
		message: string | null;
		node: string | null;
		name: string | null;
		stack: string | null;
	} | null;
	ranNodes: string[];
}

export interface Verdict {
	/**
	 * `redelivered`: the event was not lost but delivered again and run once (rule 3, answered at
	 * the run's end). `ranFirst`: its nodes had run before n8n failed it (the third ending's
	 * sequel), so the event ran twice in effect.
	 */
	excused: Array<{
		executionId: string;
		workflowId: string;
		deliveryId: string;
		message: string;
		redelivered?: true;
		ranFirst?: true;
	}>;
	/** Runs that happened while the worker stopped, whose end n8n could not save (marked crashed at its next start): each is its delivery's one run. */
	notSaved: Array<{ executionId: string; workflowId: string; deliveryId: string }>;
	unexcused: Array<{ executionId: string; workflowId: string; status: string; why: string }>;
	unexplainedLosses: Array<{ workflowId: string; deliveryId: string }>;
}

/**
 * A worker the soak stopped with SIGTERM, as Redis and the clock saw it (bullJobs.ts): when the
 * signal was sent, when its process had exited, the jobs bull listed as active at that moment
 * (with their lock's token and fetch time), and the queue token(s) of the life it stopped (the
 * lock tokens seen on jobs that life logged as started).
 */
export interface StopWindow {
	signalledAt: number;
	exitedAt: number;
	activeAtExit: Array<{ jobId: string; lockToken: string | null; processedOn: number | null }>;
	tokens: string[];
}

const STARTED = /^Worker started execution (\d+) \(job/;
const ERRORED = /^Worker errored while running execution (\d+) \(job/;
const SIGTERM = /^Received SIGTERM\. Shutting down\.\.\./;
const READY = /^n8n worker is now ready/;

/**
 * What a query gets once the worker has begun closing its database connection: pg-pool after
 * `end()` (pg-pool/index.js:192), TypeORM once the pool is gone (@n8n/typeorm/dist/driver/
 * postgres/PostgresDriver.js:868), and pg's client for a query already on a connection the close
 * ends (`this._ending`, pg/lib/client.js:193): seen in a local cold CI run of 2026-11-28, job
 * 1050's `setRunning` (fixtures/worker-stopped-connection-terminated.log).
 */
export const CLOSED_DATABASE = [
	'Cannot use a pool after calling end on the pool',
	'Driver not Connected',
	'Connection terminated',
];
/** The job's failure as bull hands it to the process that enqueued it (bull/lib/job.js:494, :518). */
const FROM_BULL = /^Error: [^\n]*\n\s+at [^\n]*bull[\\/]lib[\\/]job\.js:\d+/;

const STOPPED = /^Stopping worker\.\.\./;
const FINISHED = /^Worker finished execution (\d+) \(job/;
/** The run's end not saved: the hook that saves it refused by the closed database (workflow-execute.js:1485). */
const END_NOT_SAVED = new RegExp(
	`^There was a problem running hook "workflowExecuteAfter" \\w*Error: (${CLOSED_DATABASE.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`,
);
/** The worker's next life finding runs its previous life left running (message-event-bus.js:224). */
const UNFINISHED = /^Found unfinished executions: ([\d, ]+)$/;
/** The webhook process's "Enqueued execution N (job J)" (scaling.service.js:296). */
const ENQUEUED = /^Enqueued execution (\d+) \(job (\d+)\)/gm;
/** The webhook process's log of a job bull failed as stalled, then bull's own stack. */
const STALLED =
	/^job stalled more than maxStalledCount \(execution (\d+)\)\nError: job stalled more than maxStalledCount\n\s+at [^\n]*bull[\\/]lib[\\/]job\.js:\d+/gm;

/** What n8n stores for a job bull failed as stalled (n8n/dist/errors/max-stalled-count.error.js:7). */
export const STALLED_JOB =
	'This execution failed to be processed too many times and will no longer retry. To allow this execution to complete, please break down your workflow or scale up your workers or adjust your worker settings.';

/**
 * Ids of executions bull failed as stalled (the webhook process's log) that no worker ever
 * started and that a worker stopped with SIGTERM in the soak had fetched within its stop window:
 * at its exit bull still held the job under that worker life's lock, fetched between the SIGTERM
 * and the exit. None when no worker was stopped (judgeFailedRuns reports which condition each
 * stalled execution left out failed).
 */
export function neverStartedByAStoppedWorker(
	workerLogs: string[],
	webhookLog: string,
	stops: StopWindow[] = [],
): string[] {
	return stalledNeverStarted(workerLogs, webhookLog, stops)
		.filter((s) => s.why === null)
		.map((s) => s.executionId);
}

function stalledNeverStarted(
	workerLogs: string[],
	webhookLog: string,
	stops: StopWindow[],
): Array<{ executionId: string; why: string | null }> {
	const stopped = workerLogs.some((log) => {
		let sigterm = false;
		for (const line of log.split('\n')) {
			if (SIGTERM.test(line)) sigterm = true;
			else if (READY.test(line)) sigterm = false;
			else if (sigterm && STOPPED.test(line)) return true;
		}
		return false;
	});
	const started = new Set(
		workerLogs.flatMap((log) =>
			log
				.split('\n')
				.map((line) => STARTED.exec(line)?.[1])
				.filter((id): id is string => id !== undefined),
		),
	);
	const jobOf = jobsEnqueued(webhookLog);
	return [...webhookLog.matchAll(STALLED)]
		.map((m) => m[1])
		.filter((id) => !started.has(id))
		.map((executionId) => {
			if (!stopped) return { executionId, why: 'no worker was stopped with SIGTERM' };
			const jobId = jobOf.get(executionId);
			if (jobId === undefined)
				return { executionId, why: 'the webhook process never logged enqueuing it' };
			return { executionId, why: notFetchedByAStoppedWorker(jobId, stops) };
		});
}

/** Execution id → job id, as the webhook process logged enqueuing each. */
function jobsEnqueued(webhookLog: string): Map<string, string> {
	return new Map([...webhookLog.matchAll(ENQUEUED)].map((m) => [m[1], m[2]]));
}

/** Why job `jobId` was not fetched by a stopped worker within its stop window (null when it was). */
function notFetchedByAStoppedWorker(jobId: string, stops: StopWindow[]): string | null {
	const reasons: string[] = [];
	for (const stop of stops) {
		const job = stop.activeAtExit.find((j) => j.jobId === jobId);
		if (!job) reasons.push('not active when the stopped worker exited');
		else if (job.lockToken === null || !stop.tokens.includes(job.lockToken))
			reasons.push('locked by another worker, not the stopped one');
		else if (
			job.processedOn === null ||
			job.processedOn < stop.signalledAt ||
			job.processedOn > stop.exitedAt
		)
			reasons.push("fetched outside the stopped worker's stop window");
		else return null;
	}
	return reasons.length > 0
		? `job ${jobId} ${reasons.join('; ')}`
		: `job ${jobId}: no stop of a worker was watched in Redis`;
}

/**
 * The third ending: ids of runs a worker started after its SIGTERM, that went on past "Stopping
 * worker..." (the database closed), whose end-saving hook the closed database refused, that the
 * worker logged finished, and that its next life found unfinished.
 */
export function finishedButNotSaved(logText: string): string[] {
	let stopping = false;
	let closed = false;
	let endRefused = false;
	const startedWhileStopping = new Set<string>();
	const finishedUnsaved: string[] = [];
	const found: string[] = [];
	for (const line of logText.split('\n')) {
		if (SIGTERM.test(line)) stopping = true;
		else if (READY.test(line)) {
			[stopping, closed, endRefused] = [false, false, false];
			startedWhileStopping.clear();
		} else if (stopping && !closed && STARTED.test(line))
			startedWhileStopping.add((STARTED.exec(line) as RegExpExecArray)[1]);
		else if (stopping && STOPPED.test(line)) closed = true;
		else if (closed && END_NOT_SAVED.test(line)) endRefused = true;
		else if (closed && endRefused && FINISHED.test(line)) {
			const id = (FINISHED.exec(line) as RegExpExecArray)[1];
			if (startedWhileStopping.has(id)) finishedUnsaved.push(id);
		} else if (UNFINISHED.test(line)) {
			const ids = (UNFINISHED.exec(line) as RegExpExecArray)[1].split(',').map((x) => x.trim());
			found.push(...finishedUnsaved.filter((id) => ids.includes(id)));
		}
	}
	return found;
}

/** Why a crashed run's stored outcome is not a run that went through its nodes (null when it is). */
function notARunThatFinished(outcome: StoredOutcome | undefined): string | null {
	if (!outcome) return 'no data stored';
	if (outcome.error) return `an error is stored: ${outcome.error.message}`;
	if (outcome.ranNodes.length === 0) return 'no node ran';
	return null;
}

/** Ids of executions a worker started after it had received SIGTERM (in the same life) and then failed in its job processor. */
export function failedWhileStopping(logText: string): string[] {
	let stopping = false;
	const startedWhileStopping = new Set<string>();
	const failed: string[] = [];
	for (const line of logText.split('\n')) {
		if (SIGTERM.test(line)) stopping = true;
		else if (READY.test(line)) {
			stopping = false;
			startedWhileStopping.clear();
		} else if (stopping && STARTED.test(line))
			startedWhileStopping.add((STARTED.exec(line) as RegExpExecArray)[1]);
		else if (ERRORED.test(line)) {
			const id = (ERRORED.exec(line) as RegExpExecArray)[1];
			if (startedWhileStopping.has(id)) failed.push(id);
		}
	}
	return failed;
}

/**
 * n8n keeps execution data with `flatted` (n8n/dist/executions/execution-persistence.js:441): a
 * JSON array whose first entry is the root and whose strings inside objects are indexes.
 */
export function unflatten(text: string): unknown {
	const table = JSON.parse(text) as Array<Record<string, unknown> | unknown[]>;
	const built = new Map<number, unknown>();
	const build = (index: number): unknown => {
		if (built.has(index)) return built.get(index);
		const source = table[index];
		const copy: Record<string, unknown> = Array.isArray(source)
			? ([] as unknown as Record<string, unknown>)
			: {};
		built.set(index, copy);
		for (const [key, value] of Object.entries(source)) {
			if (typeof value !== 'string') copy[key] = value;
			else {
				const target = table[Number(value)];
				copy[key] = typeof target === 'object' && target !== null ? build(Number(value)) : target;
			}
		}
		return copy;
	};
	return build(0);
}

/** What a run's stored data says about how it ended: its error (message, node, stack) and the nodes that ran. */
export function storedOutcome(dataText: string): StoredOutcome {
	type Stored = {
		resultData?: {
			error?: { message?: string; node?: { name?: string }; name?: string; stack?: string };
			runData?: Record<string, unknown>;
		};
	};
	const { resultData = {} } = unflatten(dataText) as Stored;
	const error = resultData.error;
	return {
		error: error
			? {
					message: error.message ?? null,
					node: error.node?.name ?? null,
					name: error.name ?? null,
					stack: error.stack ?? null,
				}
			: null,
		ranNodes: Object.keys(resultData.runData ?? {}),
	};
}

/** Why a failed run's stored outcome is not the worker-stop failure (null when it is). */
function notAWorkerStopFailure(outcome: StoredOutcome | undefined): string | null {
	if (!outcome?.error) return 'no error stored';
	const { error, ranNodes } = outcome;
	if (error.node) return `the node "${error.node}" failed: ${error.message}`;
	if (ranNodes.length > 0) return `nodes ran (${ranNodes.join(', ')}): ${error.message}`;
	if (!CLOSED_DATABASE.includes(error.message as string))
		return `not the closed database: ${error.message}`;
	if (!FROM_BULL.test(error.stack ?? ''))
		return `not the job's failure as bull reports it: ${error.message}`;
	return null;
}

/** Why a failed run's stored outcome is not what n8n stores for a job bull failed as stalled (null when it is). */
function notAStalledJobRecord(outcome: StoredOutcome | undefined): string | null {
	if (!outcome?.error) return 'no error stored';
	const { error, ranNodes } = outcome;
	if (error.node) return `the node "${error.node}" failed: ${error.message}`;
	if (ranNodes.length > 0) return `nodes ran (${ranNodes.join(', ')}): ${error.message}`;
	if (error.message !== STALLED_JOB) return `not n8n's stalled-job error: ${error.message}`;
	return null;
}

/**
 * Judges every run of the soak that did not succeed, and every delivery a workflow lost.
 * runs: [{ id, workflowId, status }]; workerLogs: each worker's log text; webhookLog: the webhook
 * process's log (for jobs bull failed as stalled); outcomes: executionId →
 * storedOutcome (for each run that did not succeed); enqueued: executionId → the delivery id its
 * execution was created for; lost: workflowId → delivery ids expected there that have no run.
 * Returns { excused: [{ executionId, workflowId, deliveryId, message }], unexcused: [{ executionId,
 * workflowId, status, why }], unexplainedLosses: [{ workflowId, deliveryId }] }.
 */
export function judgeFailedRuns({
	runs,
	workerLogs,
	webhookLog = '',
	stops = [],
	outcomes,
	enqueued,
	lost,
	attempts,
}: {
	runs: Array<{ id: string; workflowId: string; status: string }>;
	workerLogs: string[];
	webhookLog?: string;
	/** Each worker the soak stopped with SIGTERM, as Redis saw it at its exit (bullJobs.ts). */
	stops?: StopWindow[];
	outcomes: Record<string, StoredOutcome>;
	enqueued: Record<string, string>;
	lost: Record<string, string[]>;
	/** The service's attempts per delivery id, for triggers that answer when the workflow finishes (rule 3). */
	attempts?: Record<string, Array<{ status?: number; answer?: string }>>;
}): Verdict {
	const failedInJobProcessor = new Set(workerLogs.flatMap(failedWhileStopping));
	const stalled = new Map(
		stalledNeverStarted(workerLogs, webhookLog, stops).map((s) => [s.executionId, s.why]),
	);
	const unsaved = new Set(workerLogs.flatMap(finishedButNotSaved));
	const stalledJobs = new Set([...webhookLog.matchAll(STALLED)].map((m) => m[1]));
	const jobOf = jobsEnqueued(webhookLog);
	const claimed = new Set<string>();
	const excused: Verdict['excused'] = [];
	const notSaved: Verdict['notSaved'] = [];
	const unexcused: Verdict['unexcused'] = [];
	for (const run of runs.filter((r) => r.status !== 'success')) {
		const deliveryId = enqueued[run.id] ?? null;
		const lostHere = lost[run.workflowId] ?? [];
		let why: string | null = null;
		let ranFirst = false;
		if (unsaved.has(run.id) && run.status !== 'error') {
			why =
				run.status !== 'crashed' ? `status ${run.status}` : notARunThatFinished(outcomes[run.id]);
			if (!why && !deliveryId) why = 'no delivery id in the data it was enqueued with';
			const others = runs.filter(
				(r) => r.id !== run.id && r.workflowId === run.workflowId && enqueued[r.id] === deliveryId,
			);
			if (!why && others.length > 0)
				why = `its delivery ${deliveryId} ran again (execution ${others.map((r) => r.id).join(', ')})`;
			if (why)
				unexcused.push({
					executionId: run.id,
					workflowId: run.workflowId,
					status: run.status,
					why,
				});
			else
				notSaved.push({
					executionId: run.id,
					workflowId: run.workflowId,
					deliveryId: deliveryId as string,
				});
			continue;
		}
		if (unsaved.has(run.id)) {
			// The third ending's sequel: the run finished, then bull failed its job as stalled.
			const jobId = jobOf.get(run.id);
			why = !stalledJobs.has(run.id)
				? 'status error, and the webhook process logged no stall of its job'
				: jobId === undefined
					? 'the webhook process never logged enqueuing it'
					: (notFetchedByAStoppedWorker(jobId, stops) ?? notAStalledJobRecord(outcomes[run.id]));
			ranFirst = true;
		} else if (failedInJobProcessor.has(run.id))
			why =
				run.status !== 'error' ? `status ${run.status}` : notAWorkerStopFailure(outcomes[run.id]);
		else if (stalled.has(run.id))
			why =
				stalled.get(run.id) ??
				(run.status !== 'error' ? `status ${run.status}` : notAStalledJobRecord(outcomes[run.id]));
		else why = 'no worker started it after SIGTERM and failed it in its job processor';
		if (!why && !deliveryId) why = 'no delivery id in the data it was enqueued with';
		let redelivered = false;
		if (!why && ranFirst && lostHere.includes(deliveryId as string))
			why = `its nodes ran, and its delivery ${deliveryId} was not delivered again`;
		if (!why && !lostHere.includes(deliveryId as string)) {
			why = attempts
				? notRedelivered(run, deliveryId as string, runs, enqueued, attempts[deliveryId as string])
				: `its delivery ${deliveryId} was not lost`;
			redelivered = !why;
		}
		if (!why && claimed.has(`${run.workflowId} ${deliveryId}`))
			why = `its delivery ${deliveryId} is already accounted for by another run`;
		if (why) {
			unexcused.push({ executionId: run.id, workflowId: run.workflowId, status: run.status, why });
			continue;
		}
		claimed.add(`${run.workflowId} ${deliveryId}`);
		excused.push({
			executionId: run.id,
			workflowId: run.workflowId,
			deliveryId: deliveryId as string,
			message: outcomes[run.id].error?.message as string,
			...(redelivered ? { redelivered: true as const } : {}),
			...(ranFirst ? { ranFirst: true as const } : {}),
		});
	}
	const unexplainedLosses = Object.entries(lost).flatMap(([workflowId, ids]) =>
		ids
			.filter((id) => !claimed.has(`${workflowId} ${id}`))
			.map((deliveryId) => ({ workflowId, deliveryId })),
	);
	return { excused, notSaved, unexcused, unexplainedLosses };
}

/** What the service is answered for a run that failed: n8n's own (lastNode), or the holder's for a member's failed forward. */
const FAILED_RUN_ANSWER = [/^\{"message":"Error in workflow"\}/, /could not take the event yet/];

/**
 * Rule 3 when the trigger answers at the run's end: why the failed run's delivery does not show
 * "answered as failed, delivered again, run once", or null when it does.
 */
function notRedelivered(
	run: { id: string; workflowId: string },
	deliveryId: string,
	runs: Array<{ id: string; workflowId: string; status: string }>,
	enqueued: Record<string, string>,
	attempts: Array<{ status?: number; answer?: string }> = [],
): string | null {
	const succeeded = runs.filter(
		(r) =>
			r.workflowId === run.workflowId && enqueued[r.id] === deliveryId && r.status === 'success',
	).length;
	if (succeeded !== 1)
		return `its delivery ${deliveryId} was not lost, and ran to success ${succeeded} times`;
	const answered = attempts.some(
		(a) =>
			(a.status === 500 || a.status === 503) &&
			FAILED_RUN_ANSWER.some((text) => text.test(a.answer ?? '')),
	);
	return answered
		? null
		: `its delivery ${deliveryId} was not lost, and the service never got a failed run's answer for it`;
}
