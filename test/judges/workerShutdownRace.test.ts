import { parseActiveJobs } from '../support/judges/activeJobs';
import {
	CLOSED_DATABASE,
	failedWhileStopping,
	finishedButNotSaved,
	judgeFailedRuns,
	neverStartedByAStoppedWorker,
	STALLED_JOB,
	storedOutcome,
	unflatten,
	type StopWindow,
} from '../support/judges/workerShutdownRace';
import { readText } from '../support/repo';

/**
 * The queue soak excuses a lost event only when n8n itself failed its execution while stopping a
 * worker (test/support/judges/workerShutdownRace.ts says why n8n does, and the rule). These pin what
 * counts as that, on the worker log of the CI run where it happened, so nothing else can hide
 * behind it.
 *
 * The stored data next to the log is built with n8n's own code, as each process stores a run
 * (createRunExecutionData + flatted, as n8n 2.41.1 writes execution_data): the job failure as the
 * webhook process stores it (workflow-runner.js:210-230, the error bull hands it, bull/lib/job.js:518),
 * and a run whose node failed as the worker stores it (workflow-execute.js:1015, :1573; the
 * node's error is this package's real NodeApiError for a 503 after retries). The CI run's own row
 * was not kept.
 */
const ciLog = readText('test', 'judges', 'fixtures', 'worker-stopped-under-load.log');
const jobFailure = storedOutcome(
	readText('test', 'judges', 'fixtures', 'stored-data-job-failed-while-worker-stopped.json'),
);
const nodeFailure = storedOutcome(
	readText('test', 'judges', 'fixtures', 'stored-data-node-failed.json'),
);
const AUTO_REPLY = 'wf-auto-reply';
const ALERT = 'wf-alert';
/** The CI run as the suite sees it: execution 1035 of the auto-reply, created for delivery qd-1201, which has no run. */
const ciRun = {
	runs: [
		{ id: '1033', workflowId: ALERT, status: 'success' },
		{ id: '1035', workflowId: AUTO_REPLY, status: 'error' },
	],
	workerLogs: [
		ciLog,
		'n8n worker is now ready\nWorker started execution 1034 (job 1034)\nWorker finished execution 1034 (job 1034)\n',
	],
	outcomes: { '1035': jobFailure },
	enqueued: { '1033': 'qd-1200', '1035': 'qd-1201' },
	lost: { [AUTO_REPLY]: ['qd-1201'], [ALERT]: [] },
};

/**
 * The second ending, from the CI run of stop 22 (excerpts of its logs): worker1 fetched job 1039
 * after SIGTERM and exited before starting it; bull failed it as stalled a minute later. Its stored
 * data is built by make-stalled-job-data.cjs with n8n's own code (that row was not kept either).
 */
const stoppedLog = readText('test', 'judges', 'fixtures', 'worker-stopped-job-never-started.log');
const stalledWebhookLog = readText('test', 'judges', 'fixtures', 'webhook-job-stalled.log');
const stalledJob = storedOutcome(
	readText('test', 'judges', 'fixtures', 'stored-data-job-stalled.json'),
);
const otherWorkerLog =
	'n8n worker is now ready\nWorker started execution 1038 (job 1038)\nWorker finished execution 1038 (job 1038)\n';
/**
 * Worker1's stop as the soak now watches it in Redis (bullJobs.ts): SIGTERM sent at 1,000 ms, the
 * process gone at 3,000; job 1039 still active under worker1's lock (the token seen on the jobs
 * that life started), fetched at 2,500, inside the window. That CI run did not record Redis: the
 * tokens and times are made up, the shape is the soak's. 1041 is worker2's, fetched meanwhile.
 */
const W1 = 'f0c5a1d2-worker1-life1';
const W2 = 'a9e4b7c3-worker2-life1';
const stop: StopWindow = {
	signalledAt: 1_000,
	exitedAt: 3_000,
	activeAtExit: [
		{ jobId: '1039', lockToken: W1, processedOn: 2_500 },
		{ jobId: '1041', lockToken: W2, processedOn: 2_600 },
	],
	tokens: [W1],
};
const stalledRun = {
	runs: [
		{ id: '1038', workflowId: ALERT, status: 'success' },
		{ id: '1039', workflowId: AUTO_REPLY, status: 'error' },
	],
	workerLogs: [stoppedLog, otherWorkerLog],
	webhookLog: stalledWebhookLog,
	stops: [stop],
	outcomes: { '1039': stalledJob },
	enqueued: { '1038': 'qd-1655', '1039': 'qd-1656' },
	lost: { [AUTO_REPLY]: ['qd-1656'], [ALERT]: [] },
};

describe('executions n8n fails while it stops a worker', () => {
	test("the CI run's worker log: the job taken after SIGTERM and failed by the job processor", () => {
		expect(failedWhileStopping(ciLog)).toEqual(['1035']);
	});

	test('a query already on a connection the close ends (pg\'s "Connection terminated", local run of 2026-11-28): the same race, excused as redelivered', () => {
		const log = readText('test', 'judges', 'fixtures', 'worker-stopped-connection-terminated.log');
		expect(failedWhileStopping(log)).toEqual(['1050']);
		const terminated = {
			...jobFailure,
			error: {
				...jobFailure.error!,
				message: 'Connection terminated',
				stack: jobFailure.error!.stack!.replace(CLOSED_DATABASE[0], 'Connection terminated'),
			},
		};
		// Execution 1050 as the soak saw it, with the stored error given.
		const judged = (outcome: typeof jobFailure) =>
			judgeFailedRuns({
				runs: [{ id: '1050', workflowId: AUTO_REPLY, status: 'error' }],
				workerLogs: [log],
				outcomes: { '1050': outcome },
				enqueued: { '1050': 'qd-1201' },
				lost: { [AUTO_REPLY]: ['qd-1201'] },
			}).excused.map((e) => [e.executionId, e.message]);
		expect(judged(terminated)).toEqual([['1050', 'Connection terminated']]);
		// pg's other text, for a connection the server dropped, is not the close: not excused.
		const dropped = {
			...terminated,
			error: { ...terminated.error, message: 'Connection terminated unexpectedly' },
		};
		expect(judged(dropped)).toEqual([]);
	});

	test('a job processor failure before SIGTERM is not excused', () => {
		const log = ciLog.replace(
			'Worker finished execution 1029 (job 1029)',
			'Worker errored while running execution 1029 (job 1029)',
		);
		expect(failedWhileStopping(log)).toEqual(['1035']);
	});

	test("a failure in the worker's next life is not excused, even for a job started while stopping", () => {
		const log =
			ciLog.replace('Worker errored while running execution 1035 (job 1035)\n', '') +
			'Worker errored while running execution 1035 (job 1035)\n';
		expect(failedWhileStopping(log)).toEqual([]);
	});

	test('a job started while stopping that finished is not a failure', () => {
		expect(
			failedWhileStopping(
				ciLog.replace(
					'Worker errored while running execution 1035',
					'Worker finished execution 1035',
				),
			),
		).toEqual([]);
	});
});

describe("what a failed run's stored data says", () => {
	test("n8n's flatted form is read back whole", () => {
		expect(unflatten('[{"a":"1","b":2,"c":"2","d":"3"},"text",[true,"1"],{"back":"0"}]')).toEqual(
			expect.objectContaining({ a: 'text', b: 2, c: [true, 'text'] }),
		);
		const root = unflatten('[{"self":"0"}]') as { self: unknown };
		expect(root.self).toBe(root);
	});

	test("the job failure: the closed database's refusal as bull hands it over, no node, nothing ran", () => {
		expect(jobFailure).toEqual({
			error: {
				message: CLOSED_DATABASE[0],
				node: null,
				name: null,
				stack: expect.stringContaining('bull/lib/job.js:518'),
			},
			ranNodes: [],
		});
	});

	test("a node's failure: its NodeApiError text, the node, and the nodes that ran", () => {
		expect(nodeFailure).toEqual({
			error: {
				message: 'The Messaging Relay service failed on POST /v1/messages (503) after 3 tries',
				node: 'Reply on the same chat',
				name: 'NodeApiError',
				stack: expect.any(String),
			},
			ranNodes: ['On inbound message', 'Reply on the same chat'],
		});
	});
});

describe("judging the soak's failed runs and lost deliveries", () => {
	test('the CI run: execution 1035 is excused, and it accounts for the one delivery it lost', () => {
		expect(judgeFailedRuns(ciRun)).toEqual({
			excused: [
				{
					executionId: '1035',
					workflowId: AUTO_REPLY,
					deliveryId: 'qd-1201',
					message: CLOSED_DATABASE[0],
				},
			],
			notSaved: [],
			unexcused: [],
			unexplainedLosses: [],
		});
	});

	test("a node that fails the run while its worker stops fails the suite (worker log: finished, row: the node's error)", () => {
		// The run went through its nodes (the worker logs "finished"), the Reply node failed; its
		// data still holds the trigger item, so its delivery has a run and is not lost.
		const verdict = judgeFailedRuns({
			...ciRun,
			workerLogs: [
				ciLog.replace(
					'Worker errored while running execution 1035',
					'Worker finished execution 1035',
				),
			],
			outcomes: { '1035': nodeFailure },
			lost: { [AUTO_REPLY]: [], [ALERT]: [] },
		});
		expect(verdict.excused).toEqual([]);
		expect(verdict.unexcused).toEqual([
			{
				executionId: '1035',
				workflowId: AUTO_REPLY,
				status: 'error',
				why: 'no worker started it after SIGTERM and failed it in its job processor',
			},
		]);
	});

	test('a node error text is not excused even with the worker-stop timing in the log', () => {
		const verdict = judgeFailedRuns({ ...ciRun, outcomes: { '1035': nodeFailure } });
		expect(verdict.excused).toEqual([]);
		expect(verdict.unexcused).toEqual([
			{
				executionId: '1035',
				workflowId: AUTO_REPLY,
				status: 'error',
				why: 'the node "Reply on the same chat" failed: The Messaging Relay service failed on POST /v1/messages (503) after 3 tries',
			},
		]);
		expect(verdict.unexplainedLosses).toEqual([{ workflowId: AUTO_REPLY, deliveryId: 'qd-1201' }]);
	});

	test("the same text without the node is still not excused: only the closed database's refusal is", () => {
		const failure = {
			...jobFailure,
			error: {
				...jobFailure.error!,
				message: 'The Messaging Relay service failed on POST /v1/messages (503) after 3 tries',
			},
		};
		expect(judgeFailedRuns({ ...ciRun, outcomes: { '1035': failure } }).unexcused[0].why).toBe(
			'not the closed database: The Messaging Relay service failed on POST /v1/messages (503) after 3 tries',
		);
		const otherJobFailure = {
			...jobFailure,
			error: {
				...jobFailure.error!,
				message: 'Worker failed to find data for execution 1035 (job 1035)',
			},
		};
		expect(judgeFailedRuns({ ...ciRun, outcomes: { '1035': otherJobFailure } }).excused).toEqual(
			[],
		);
	});

	test("the closed database's text from somewhere other than the job (not bull's error), or with nodes run, is not excused", () => {
		const notFromBull = {
			...jobFailure,
			error: {
				...jobFailure.error!,
				stack: `Error: ${CLOSED_DATABASE[0]}\n    at PostgresDriver.obtainMasterConnection (x.js:1:1)`,
			},
		};
		expect(judgeFailedRuns({ ...ciRun, outcomes: { '1035': notFromBull } }).excused).toEqual([]);
		const nodesRan = { ...jobFailure, ranNodes: ['On inbound message'] };
		expect(judgeFailedRuns({ ...ciRun, outcomes: { '1035': nodesRan } }).excused).toEqual([]);
	});

	test('no count-only matching: the failed run must have been created for the delivery that was lost', () => {
		// One lost delivery and one excusable failure in the same workflow, but the failure was
		// created for another delivery: the counts match, the deliveries do not.
		const verdict = judgeFailedRuns({ ...ciRun, enqueued: { '1035': 'qd-1199' } });
		expect(verdict.excused).toEqual([]);
		expect(verdict.unexcused[0].why).toBe('its delivery qd-1199 was not lost');
		expect(verdict.unexplainedLosses).toEqual([{ workflowId: AUTO_REPLY, deliveryId: 'qd-1201' }]);
		// Without the enqueued trigger data nothing says which delivery it was.
		expect(judgeFailedRuns({ ...ciRun, enqueued: {} }).unexcused[0].why).toBe(
			'no delivery id in the data it was enqueued with',
		);
	});

	test('one lost delivery is accounted for by one run only; a second loss stays unexplained', () => {
		const log = `${ciLog}Received SIGTERM. Shutting down...\nWorker started execution 1037 (job 1037)\nWorker errored while running execution 1037 (job 1037)\n`;
		const verdict = judgeFailedRuns({
			...ciRun,
			runs: [...ciRun.runs, { id: '1037', workflowId: AUTO_REPLY, status: 'error' }],
			workerLogs: [log],
			outcomes: { '1035': jobFailure, '1037': jobFailure },
			enqueued: { '1035': 'qd-1201', '1037': 'qd-1201' },
			lost: { [AUTO_REPLY]: ['qd-1201', 'qd-1203'] },
		});
		expect(verdict.excused.map((e) => e.executionId)).toEqual(['1035']);
		expect(verdict.unexcused).toEqual([
			{
				executionId: '1037',
				workflowId: AUTO_REPLY,
				status: 'error',
				why: 'its delivery qd-1201 is already accounted for by another run',
			},
		]);
		expect(verdict.unexplainedLosses).toEqual([{ workflowId: AUTO_REPLY, deliveryId: 'qd-1203' }]);
	});

	test("a loss in another workflow is not accounted for by this one's failure", () => {
		const verdict = judgeFailedRuns({ ...ciRun, lost: { [AUTO_REPLY]: [], [ALERT]: ['qd-1201'] } });
		expect(verdict.excused).toEqual([]);
		expect(verdict.unexplainedLosses).toEqual([{ workflowId: ALERT, deliveryId: 'qd-1201' }]);
	});
});

describe('answered when the workflow finishes: the failed run is answered as failed and its event delivered again', () => {
	// The CI run's execution 1035, had its trigger answered at the run's end: nothing lost, the
	// service got the failure and delivered qd-1201 again, which ran (execution 1040).
	const redelivered = {
		...ciRun,
		runs: [...ciRun.runs, { id: '1040', workflowId: AUTO_REPLY, status: 'success' }],
		enqueued: { ...ciRun.enqueued, '1040': 'qd-1201' },
		lost: { [AUTO_REPLY]: [], [ALERT]: [] },
	};
	const holderBusy = {
		status: 503,
		answer: '{"error":"A workflow sharing this webhook could not take the event yet"}',
	};
	const n8nFailed = { status: 500, answer: '{"message":"Error in workflow"}' };

	test("excused as redelivered with n8n's 500 or the holder's 503 for it, then one run to success", () => {
		for (const failure of [n8nFailed, holderBusy]) {
			const verdict = judgeFailedRuns({
				...redelivered,
				attempts: { 'qd-1201': [failure, { status: 200 }] },
			});
			expect(verdict.excused).toEqual([
				{
					executionId: '1035',
					workflowId: AUTO_REPLY,
					deliveryId: 'qd-1201',
					message: CLOSED_DATABASE[0],
					redelivered: true,
				},
			]);
			expect(verdict.unexcused).toEqual([]);
			expect(verdict.unexplainedLosses).toEqual([]);
		}
	});

	test("not excused when the service never got a failed run's answer (a 2xx, a drop, another 5xx)", () => {
		for (const seen of [
			[{ status: 200 }],
			[{ status: 502, answer: '<html>502 Bad Gateway</html>' }, { status: 200 }],
			[{ status: 500, answer: '{"message":"Workflow did not return data"}' }],
		]) {
			const verdict = judgeFailedRuns({ ...redelivered, attempts: { 'qd-1201': seen } });
			expect(verdict.excused).toEqual([]);
			expect(verdict.unexcused[0].why).toBe(
				"its delivery qd-1201 was not lost, and the service never got a failed run's answer for it",
			);
		}
	});

	test('not excused when the event then ran twice, or never, to success', () => {
		const twice = judgeFailedRuns({
			...redelivered,
			runs: [...redelivered.runs, { id: '1041', workflowId: AUTO_REPLY, status: 'success' }],
			enqueued: { ...redelivered.enqueued, '1041': 'qd-1201' },
			attempts: { 'qd-1201': [n8nFailed, { status: 200 }] },
		});
		expect(twice.unexcused[0].why).toBe(
			'its delivery qd-1201 was not lost, and ran to success 2 times',
		);
		const never = judgeFailedRuns({
			...ciRun,
			lost: { [AUTO_REPLY]: [], [ALERT]: [] },
			attempts: { 'qd-1201': [n8nFailed] },
		});
		expect(never.unexcused[0].why).toBe(
			'its delivery qd-1201 was not lost, and ran to success 0 times',
		);
	});

	test('without the attempts (answered at the start) a failed run whose event was not lost stays unexcused', () => {
		expect(judgeFailedRuns(redelivered).unexcused[0].why).toBe('its delivery qd-1201 was not lost');
	});
});

describe('a job the stopping worker fetched and never started (bull fails it as stalled)', () => {
	test('the CI run: 1039 stalled, no worker started it, and worker1 was stopped', () => {
		expect(neverStartedByAStoppedWorker(stalledRun.workerLogs, stalledWebhookLog, [stop])).toEqual([
			'1039',
		]);
		// The job processor never failed it: the first ending's rule does not see it.
		expect(failedWhileStopping(stoppedLog)).toEqual([]);
	});

	test("its stored data: n8n's stalled-job error, no node, nothing ran", () => {
		expect(stalledJob).toEqual({
			error: { message: STALLED_JOB, node: null, name: null, stack: expect.any(String) },
			ranNodes: [],
		});
	});

	test('judged: excused, accounting for the one delivery it lost', () => {
		expect(judgeFailedRuns(stalledRun)).toEqual({
			excused: [
				{
					executionId: '1039',
					workflowId: AUTO_REPLY,
					deliveryId: 'qd-1656',
					message: STALLED_JOB,
				},
			],
			notSaved: [],
			unexcused: [],
			unexplainedLosses: [],
		});
	});

	test('not excused when no worker was stopped (a worker that died or hung stalls jobs too)', () => {
		const notStopped = stoppedLog.replace('Stopping worker...\n', '');
		expect(
			neverStartedByAStoppedWorker([notStopped, otherWorkerLog], stalledWebhookLog, [stop]),
		).toEqual([]);
		const verdict = judgeFailedRuns({ ...stalledRun, workerLogs: [notStopped, otherWorkerLog] });
		expect(verdict.excused).toEqual([]);
		expect(verdict.unexplainedLosses).toEqual([{ workflowId: AUTO_REPLY, deliveryId: 'qd-1656' }]);
	});

	test('not excused when a worker had started it: a run that stalled mid-way is not this race', () => {
		const started = `${otherWorkerLog}Worker started execution 1039 (job 1039)\n`;
		expect(judgeFailedRuns({ ...stalledRun, workerLogs: [stoppedLog, started] }).excused).toEqual(
			[],
		);
	});

	test("not excused without bull's stall in the webhook process's log, or with another stored error", () => {
		const noStack = stalledWebhookLog.replace(
			/\nError: job stalled more than maxStalledCount\n/,
			'\n',
		);
		expect(judgeFailedRuns({ ...stalledRun, webhookLog: noStack }).excused).toEqual([]);
		expect(judgeFailedRuns({ ...stalledRun, webhookLog: '' }).excused).toEqual([]);
		const other = {
			...stalledJob,
			error: {
				...stalledJob.error!,
				message: 'Worker failed to find data for execution 1039 (job 1039)',
			},
		};
		expect(judgeFailedRuns({ ...stalledRun, outcomes: { '1039': other } }).unexcused[0].why).toBe(
			"not n8n's stalled-job error: Worker failed to find data for execution 1039 (job 1039)",
		);
		const nodesRan = { ...stalledJob, ranNodes: ['On inbound message'] };
		expect(judgeFailedRuns({ ...stalledRun, outcomes: { '1039': nodesRan } }).excused).toEqual([]);
	});

	test('no count-only matching: the stalled run must have been created for the delivery that was lost', () => {
		const verdict = judgeFailedRuns({ ...stalledRun, enqueued: { '1039': 'qd-1650' } });
		expect(verdict.excused).toEqual([]);
		expect(verdict.unexcused[0].why).toBe('its delivery qd-1650 was not lost');
		expect(verdict.unexplainedLosses).toEqual([{ workflowId: AUTO_REPLY, deliveryId: 'qd-1656' }]);
	});
});

describe('the stalled job is excused only when the stopped worker fetched it, within its stop window', () => {
	const judged = (changes: Partial<StopWindow> | null) =>
		judgeFailedRuns({ ...stalledRun, stops: changes === null ? [] : [{ ...stop, ...changes }] });

	test('no stop watched in Redis: not excused', () => {
		expect(judged(null).unexcused[0].why).toBe(
			'job 1039: no stop of a worker was watched in Redis',
		);
		expect(judged(null).unexplainedLosses).toEqual([
			{ workflowId: AUTO_REPLY, deliveryId: 'qd-1656' },
		]);
	});

	test('not active when the stopped worker had exited (finished, failed or never fetched then): not excused', () => {
		expect(
			judged({ activeAtExit: stop.activeAtExit.filter((j) => j.jobId !== '1039') }).unexcused[0]
				.why,
		).toBe('job 1039 not active when the stopped worker exited');
	});

	test('locked by the other worker (it fetched it), or the lock gone: not excused', () => {
		const other = judged({ activeAtExit: [{ jobId: '1039', lockToken: W2, processedOn: 2_500 }] });
		expect(other.excused).toEqual([]);
		expect(other.unexcused[0].why).toBe('job 1039 locked by another worker, not the stopped one');
		expect(
			judged({ activeAtExit: [{ jobId: '1039', lockToken: null, processedOn: 2_500 }] }).excused,
		).toEqual([]);
		// Nothing says which life was stopped: not excused.
		expect(judged({ tokens: [] }).excused).toEqual([]);
	});

	test('fetched before the SIGTERM (the drain counts it) or after the exit: not excused', () => {
		expect(
			judged({ activeAtExit: [{ jobId: '1039', lockToken: W1, processedOn: 999 }] }).unexcused[0]
				.why,
		).toBe("job 1039 fetched outside the stopped worker's stop window");
		expect(
			judged({ activeAtExit: [{ jobId: '1039', lockToken: W1, processedOn: 3_001 }] }).excused,
		).toEqual([]);
		expect(
			judged({ activeAtExit: [{ jobId: '1039', lockToken: W1, processedOn: null }] }).excused,
		).toEqual([]);
	});

	test("the window's edges are inside it", () => {
		expect(
			judged({ activeAtExit: [{ jobId: '1039', lockToken: W1, processedOn: 1_000 }] }).excused,
		).toHaveLength(1);
		expect(
			judged({ activeAtExit: [{ jobId: '1039', lockToken: W1, processedOn: 3_000 }] }).excused,
		).toHaveLength(1);
	});

	test('the webhook process must have logged enqueuing it (the job id comes from there)', () => {
		const noEnqueue = stalledWebhookLog.replace('Enqueued execution 1039 (job 1039)\n', '');
		expect(judgeFailedRuns({ ...stalledRun, webhookLog: noEnqueue }).unexcused[0].why).toBe(
			'the webhook process never logged enqueuing it',
		);
	});

	test("redis-cli's answer is read as the jobs it lists", () => {
		expect(parseActiveJobs(`1) "1039|${W1}|2500"\n2) "1041||"`)).toEqual([
			{ jobId: '1039', lockToken: W1, processedOn: 2_500 },
			{ jobId: '1041', lockToken: null, processedOn: null },
		]);
		expect(parseActiveJobs('(empty array)')).toEqual([]);
	});
});

/**
 * The third ending, from a local run of 2026-11-25 (worker1's log, test/judges/fixtures/
 * worker-stopped-run-not-saved.log): execution 1035 (delivery qd-1650 of the disconnect alert)
 * started after SIGTERM, ran on past "Stopping worker...", its end could not be saved, and
 * worker1's next life marked it crashed. Its stored data is what execution-recovery.service.js
 * :115-168 writes for two nodes that logged start and finish (that row was not kept): no error,
 * both nodes ran.
 */
const notSavedLog = readText('test', 'judges', 'fixtures', 'worker-stopped-run-not-saved.log');
const recovered = { error: null, ranNodes: ['On number disconnected', 'Alert the operator'] };
const notSavedRun = {
	runs: [
		{ id: '1033', workflowId: ALERT, status: 'success' },
		{ id: '1035', workflowId: ALERT, status: 'crashed' },
	],
	workerLogs: [notSavedLog, otherWorkerLog],
	outcomes: { '1035': recovered },
	enqueued: { '1033': 'qd-1649', '1035': 'qd-1650' },
	lost: { [AUTO_REPLY]: [], [ALERT]: [] },
};

describe('a run that finished while its worker stopped, whose end n8n could not save (crashed at the next start)', () => {
	test('the run\'s worker log: started after SIGTERM, finished after "Stopping worker..." with its end refused, found unfinished next life', () => {
		expect(finishedButNotSaved(notSavedLog)).toEqual(['1035']);
		// Neither of the other endings' rules sees it.
		expect(failedWhileStopping(notSavedLog)).toEqual([]);
	});

	test("judged: its status is excused and it is its delivery's one run, nothing lost", () => {
		expect(judgeFailedRuns(notSavedRun)).toEqual({
			excused: [],
			notSaved: [{ executionId: '1035', workflowId: ALERT, deliveryId: 'qd-1650' }],
			unexcused: [],
			unexplainedLosses: [],
		});
	});

	test('each log condition bites', () => {
		const without = (text: string) => finishedButNotSaved(notSavedLog.replace(text, ''));
		// Started before SIGTERM: the drain waited for it, not this race.
		expect(
			finishedButNotSaved(
				notSavedLog
					.replace('Worker started execution 1035 (job 1035)\n', '')
					.replace(
						'Received SIGTERM.',
						'Worker started execution 1035 (job 1035)\nReceived SIGTERM.',
					),
			),
		).toEqual([]);
		// The database was never closed under it.
		expect(without('Stopping worker...\n')).toEqual([]);
		// Its end was not refused by the closed database.
		expect(without('There was a problem running hook "workflowExecuteAfter" ')).toEqual([]);
		// It never finished.
		expect(without('Worker finished execution 1035 (job 1035)\n')).toEqual([]);
		// The next life did not find it unfinished.
		expect(without('Found unfinished executions: 1035\n')).toEqual([]);
		expect(
			finishedButNotSaved(
				notSavedLog.replace(
					'Found unfinished executions: 1035',
					'Found unfinished executions: 1036, 10350',
				),
			),
		).toEqual([]);
		// Finished before "Stopping worker...": its end was saved; a crash then is something else.
		const savedFirst = notSavedLog
			.replace('Stopping worker...\n', '')
			.replace(
				'Worker finished execution 1035 (job 1035)\n',
				'Worker finished execution 1035 (job 1035)\nStopping worker...\n',
			);
		expect(finishedButNotSaved(savedFirst)).toEqual([]);
	});

	test('each stored-data condition bites', () => {
		const why = (changes: object) =>
			judgeFailedRuns({ ...notSavedRun, ...changes }).unexcused[0]?.why;
		// `error` is the sequel's status (below), which needs bull's stall in the webhook process's log.
		expect(why({ runs: [notSavedRun.runs[0], { ...notSavedRun.runs[1], status: 'error' }] })).toBe(
			'status error, and the webhook process logged no stall of its job',
		);
		expect(
			why({ runs: [notSavedRun.runs[0], { ...notSavedRun.runs[1], status: 'running' }] }),
		).toBe('status running');
		expect(
			why({
				outcomes: {
					'1035': {
						...recovered,
						error: {
							message: 'Workflow did not finish, possible out-of-memory issue',
							node: null,
							name: null,
							stack: null,
						},
					},
				},
			}),
		).toBe('an error is stored: Workflow did not finish, possible out-of-memory issue');
		expect(why({ outcomes: { '1035': { error: null, ranNodes: [] } } })).toBe('no node ran');
		expect(why({ outcomes: {} })).toBe('no data stored');
		expect(why({ enqueued: { '1033': 'qd-1649' } })).toBe(
			'no delivery id in the data it was enqueued with',
		);
	});

	test('a second run of its delivery in that workflow is not excused: the event would have run twice', () => {
		const verdict = judgeFailedRuns({
			...notSavedRun,
			runs: [...notSavedRun.runs, { id: '1090', workflowId: ALERT, status: 'success' }],
			enqueued: { ...notSavedRun.enqueued, '1090': 'qd-1650' },
		});
		expect(verdict.notSaved).toEqual([]);
		expect(verdict.unexcused).toEqual([
			{
				executionId: '1035',
				workflowId: ALERT,
				status: 'crashed',
				why: 'its delivery qd-1650 ran again (execution 1090)',
			},
		]);
	});

	test('a crashed run the log does not tie to a worker stop stays unexcused, as on main', () => {
		expect(judgeFailedRuns({ ...notSavedRun, workerLogs: [otherWorkerLog] }).unexcused[0].why).toBe(
			'no worker started it after SIGTERM and failed it in its job processor',
		);
	});
});

/**
 * The third ending's sequel, from a local run of 2026-11-29 16:28 (excerpts of its logs): worker1
 * started execution 1037 after SIGTERM and ran it past "Stopping worker...", its end was refused,
 * it logged it finished and the webhook process got its "job-finished" message; but bull still
 * held the job under worker1's lock at its exit, failed it as stalled a minute later, and the
 * webhook process overwrote the row with the stalled-job error. The stop is as Redis saw it then
 * (queue-soak.json: SIGTERM 1,229 ms before the exit, 1037 fetched 399 ms after the SIGTERM under
 * the stopped life's lock, 1040 under worker2's). Not kept: 1037's delivery and its redelivery's
 * run. qd-1653 is the one delivery of that soak whose attempts match (timed out 1.6 s before the
 * SIGTERM, then the holder's 503 "could not take the event yet" for 93 s, then 200); 1401 stands
 * for its redelivery's run.
 */
const ranThenStalledLog = readText(
	'test',
	'judges',
	'fixtures',
	'worker-stopped-ran-then-stalled.log',
);
const ranThenStalledWebhookLog = readText(
	'test',
	'judges',
	'fixtures',
	'webhook-ran-then-stalled.log',
);
const STOPPED_LIFE = '28018a32-f900-4227-af9f-c074abf639d4';
const WORKER2_LIFE = '42472aee-26b9-40eb-9bd1-165d33aa9769';
const stop1037: StopWindow = {
	signalledAt: 1795969304409,
	exitedAt: 1795969305638,
	activeAtExit: [
		{
			jobId: '1040',
			lockToken: WORKER2_LIFE,
			processedOn: 1795969305594,
		},
		{ jobId: '1037', lockToken: STOPPED_LIFE, processedOn: 1795969304808 },
	],
	tokens: [STOPPED_LIFE],
};
const holderBusy = {
	status: 503,
	answer: '{"error":"A workflow sharing this webhook could not take the event yet"}',
};
const ranThenStalled = {
	runs: [
		{ id: '1037', workflowId: AUTO_REPLY, status: 'error' },
		{ id: '1401', workflowId: AUTO_REPLY, status: 'success' },
	],
	workerLogs: [ranThenStalledLog, otherWorkerLog],
	webhookLog: ranThenStalledWebhookLog,
	stops: [stop1037],
	outcomes: { '1037': stalledJob },
	enqueued: { '1037': 'qd-1653', '1401': 'qd-1653' },
	lost: { [AUTO_REPLY]: [], [ALERT]: [] },
	attempts: { 'qd-1653': [{}, ...Array.from({ length: 9 }, () => holderBusy), { status: 200 }] },
};

describe('a run that finished while its worker stopped, whose job bull then failed as stalled (error, redelivered)', () => {
	test("the log is the third ending's, and the webhook process logged the stall after the run's end", () => {
		expect(finishedButNotSaved(ranThenStalledLog)).toEqual(['1037']);
		expect(failedWhileStopping(ranThenStalledLog)).toEqual([]);
		// A worker started it, so the second ending (never started) does not claim it.
		expect(
			neverStartedByAStoppedWorker([ranThenStalledLog], ranThenStalledWebhookLog, [stop1037]),
		).toEqual([]);
		expect(ranThenStalledWebhookLog.indexOf('Execution 1037 (job 1037) finished')).toBeLessThan(
			ranThenStalledWebhookLog.indexOf('job stalled more than maxStalledCount (execution 1037)'),
		);
	});

	test('judged: excused as redelivered, and reported as a run whose nodes ran first', () => {
		expect(judgeFailedRuns(ranThenStalled)).toEqual({
			excused: [
				{
					executionId: '1037',
					workflowId: AUTO_REPLY,
					deliveryId: 'qd-1653',
					message: STALLED_JOB,
					redelivered: true,
					ranFirst: true,
				},
			],
			notSaved: [],
			unexcused: [],
			unexplainedLosses: [],
		});
	});

	test('each condition bites', () => {
		const why = (changes: object) =>
			judgeFailedRuns({ ...ranThenStalled, ...changes }).unexcused.map((u) => u.why);
		// No stall in the webhook process's log, or no enqueuing of it there.
		expect(
			why({
				webhookLog: ranThenStalledWebhookLog.replace(
					'maxStalledCount (execution 1037)',
					'maxStalledCount (execution 1036)',
				),
			}),
		).toEqual(['status error, and the webhook process logged no stall of its job']);
		expect(
			why({
				webhookLog: ranThenStalledWebhookLog.replace(
					'Enqueued execution 1037',
					'Enqueued execution 1036',
				),
			}),
		).toEqual(['the webhook process never logged enqueuing it']);
		// Not fetched by the stopped worker within its stop window.
		expect(why({ stops: [{ ...stop1037, tokens: ['another-life'] }] })).toEqual([
			'job 1037 locked by another worker, not the stopped one',
		]);
		expect(why({ stops: [{ ...stop1037, signalledAt: 1795969304809 }] })).toEqual([
			"job 1037 fetched outside the stopped worker's stop window",
		]);
		expect(why({ stops: [] })).toEqual(['job 1037: no stop of a worker was watched in Redis']);
		// Another stored error, a node's, or nodes that ran.
		const stored = (error: object, ranNodes: string[] = []) => ({
			outcomes: { '1037': { error: { ...stalledJob.error, ...error }, ranNodes } },
		});
		expect(why(stored({ message: 'Other' }))).toEqual(["not n8n's stalled-job error: Other"]);
		expect(why(stored({ node: 'Reply' }))).toEqual([`the node "Reply" failed: ${STALLED_JOB}`]);
		expect(why(stored({}, ['Reply']))).toEqual([`nodes ran (Reply): ${STALLED_JOB}`]);
		// Not delivered again: its nodes ran, so it is not a loss to excuse either.
		expect(
			why({ runs: [ranThenStalled.runs[0]], lost: { [AUTO_REPLY]: ['qd-1653'], [ALERT]: [] } }),
		).toEqual(['its nodes ran, and its delivery qd-1653 was not delivered again']);
		// Delivered again but run twice more, or never answered as failed.
		expect(
			why({
				runs: [...ranThenStalled.runs, { id: '1402', workflowId: AUTO_REPLY, status: 'success' }],
				enqueued: { ...ranThenStalled.enqueued, '1402': 'qd-1653' },
			}),
		).toEqual(['its delivery qd-1653 was not lost, and ran to success 2 times']);
		expect(why({ attempts: { 'qd-1653': [{}, { status: 200 }] } })).toEqual([
			"its delivery qd-1653 was not lost, and the service never got a failed run's answer for it",
		]);
		// Without the next life finding it unfinished, the log is not the third ending's.
		expect(
			why({
				workerLogs: [
					ranThenStalledLog.replace('Found unfinished executions: 1037', ''),
					otherWorkerLog,
				],
			}),
		).toEqual(['no worker started it after SIGTERM and failed it in its job processor']);
	});
});
