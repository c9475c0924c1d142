import { CLOSED_DATABASE, failedWhileStopping, judgeFailedRuns, neverStartedByAStoppedWorker, STALLED_JOB, storedOutcome, unflatten } from './workerShutdownRace';
import { readText } from '../support/repo';

/**
 * The queue soak excuses a lost event only when n8n itself failed its execution while stopping a
 * worker (test/e2e-queue/workerShutdownRace.ts says why n8n does, and the rule). These pin what
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
const ciLog = readText('test', 'fixtures', 'queue-logs', 'worker-stopped-under-load.log');
const jobFailure = storedOutcome(readText('test', 'fixtures', 'queue-logs', 'stored-data-job-failed-while-worker-stopped.json'));
const nodeFailure = storedOutcome(readText('test', 'fixtures', 'queue-logs', 'stored-data-node-failed.json'));
const AUTO_REPLY = 'wf-auto-reply';
const ALERT = 'wf-alert';
/** The CI run as the suite sees it: execution 1035 of the auto-reply, created for delivery qd-1201, which has no run. */
const ciRun = {
	runs: [
		{ id: '1033', workflowId: ALERT, status: 'success' },
		{ id: '1035', workflowId: AUTO_REPLY, status: 'error' },
	],
	workerLogs: [ciLog, 'n8n worker is now ready\nWorker started execution 1034 (job 1034)\nWorker finished execution 1034 (job 1034)\n'],
	outcomes: { '1035': jobFailure },
	enqueued: { '1033': 'qd-1200', '1035': 'qd-1201' },
	lost: { [AUTO_REPLY]: ['qd-1201'], [ALERT]: [] },
};

/**
 * The second ending, from the CI run of stop 22 (excerpts of its logs): worker1 fetched job 1039
 * after SIGTERM and exited before starting it; bull failed it as stalled a minute later. Its stored
 * data is built by make-stalled-job-data.cjs with n8n's own code (that row was not kept either).
 */
const stoppedLog = readText('test', 'fixtures', 'queue-logs', 'worker-stopped-job-never-started.log');
const stalledWebhookLog = readText('test', 'fixtures', 'queue-logs', 'webhook-job-stalled.log');
const stalledJob = storedOutcome(readText('test', 'fixtures', 'queue-logs', 'stored-data-job-stalled.json'));
const otherWorkerLog = 'n8n worker is now ready\nWorker started execution 1038 (job 1038)\nWorker finished execution 1038 (job 1038)\n';
const stalledRun = {
	runs: [
		{ id: '1038', workflowId: ALERT, status: 'success' },
		{ id: '1039', workflowId: AUTO_REPLY, status: 'error' },
	],
	workerLogs: [stoppedLog, otherWorkerLog],
	webhookLog: stalledWebhookLog,
	outcomes: { '1039': stalledJob },
	enqueued: { '1038': 'qd-1655', '1039': 'qd-1656' },
	lost: { [AUTO_REPLY]: ['qd-1656'], [ALERT]: [] },
};

describe('executions n8n fails while it stops a worker', () => {
	test('the CI run\'s worker log: the job taken after SIGTERM and failed by the job processor', () => {
		expect(failedWhileStopping(ciLog)).toEqual(['1035']);
	});

	test('a job processor failure before SIGTERM is not excused', () => {
		const log = ciLog.replace(
			'Worker finished execution 1029 (job 1029)',
			'Worker errored while running execution 1029 (job 1029)',
		);
		expect(failedWhileStopping(log)).toEqual(['1035']);
	});

	test('a failure in the worker\'s next life is not excused, even for a job started while stopping', () => {
		const log = ciLog.replace('Worker errored while running execution 1035 (job 1035)\n', '') +
			'Worker errored while running execution 1035 (job 1035)\n';
		expect(failedWhileStopping(log)).toEqual([]);
	});

	test('a job started while stopping that finished is not a failure', () => {
		expect(failedWhileStopping(ciLog.replace('Worker errored while running execution 1035', 'Worker finished execution 1035'))).toEqual([]);
	});
});

describe('what a failed run\'s stored data says', () => {
	test('n8n\'s flatted form is read back whole', () => {
		expect(unflatten('[{"a":"1","b":2,"c":"2","d":"3"},"text",[true,"1"],{"back":"0"}]')).toEqual(
			expect.objectContaining({ a: 'text', b: 2, c: [true, 'text'] }),
		);
		const root = unflatten('[{"self":"0"}]') as { self: unknown };
		expect(root.self).toBe(root);
	});

	test('the job failure: the closed database\'s refusal as bull hands it over, no node, nothing ran', () => {
		expect(jobFailure).toEqual({
			error: { message: CLOSED_DATABASE[0], node: null, name: null, stack: expect.stringContaining('bull/lib/job.js:518') },
			ranNodes: [],
		});
	});

	test('a node\'s failure: its NodeApiError text, the node, and the nodes that ran', () => {
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

describe('judging the soak\'s failed runs and lost deliveries', () => {
	test('the CI run: execution 1035 is excused, and it accounts for the one delivery it lost', () => {
		expect(judgeFailedRuns(ciRun)).toEqual({
			excused: [{ executionId: '1035', workflowId: AUTO_REPLY, deliveryId: 'qd-1201', message: CLOSED_DATABASE[0] }],
			unexcused: [],
			unexplainedLosses: [],
		});
	});

	test('a node that fails the run while its worker stops fails the suite (worker log: finished, row: the node\'s error)', () => {
		// The run went through its nodes (the worker logs "finished"), the Reply node failed; its
		// data still holds the trigger item, so its delivery has a run and is not lost.
		const verdict = judgeFailedRuns({
			...ciRun,
			workerLogs: [ciLog.replace('Worker errored while running execution 1035', 'Worker finished execution 1035')],
			outcomes: { '1035': nodeFailure },
			lost: { [AUTO_REPLY]: [], [ALERT]: [] },
		});
		expect(verdict.excused).toEqual([]);
		expect(verdict.unexcused).toEqual([
			{ executionId: '1035', workflowId: AUTO_REPLY, status: 'error', why: 'no worker started it after SIGTERM and failed it in its job processor' },
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

	test('the same text without the node is still not excused: only the closed database\'s refusal is', () => {
		const failure = { ...jobFailure, error: { ...jobFailure.error!, message: 'The Messaging Relay service failed on POST /v1/messages (503) after 3 tries' } };
		expect(judgeFailedRuns({ ...ciRun, outcomes: { '1035': failure } }).unexcused[0].why).toBe(
			'not the closed database: The Messaging Relay service failed on POST /v1/messages (503) after 3 tries',
		);
		const otherJobFailure = { ...jobFailure, error: { ...jobFailure.error!, message: 'Worker failed to find data for execution 1035 (job 1035)' } };
		expect(judgeFailedRuns({ ...ciRun, outcomes: { '1035': otherJobFailure } }).excused).toEqual([]);
	});

	test('the closed database\'s text from somewhere other than the job (not bull\'s error), or with nodes run, is not excused', () => {
		const notFromBull = { ...jobFailure, error: { ...jobFailure.error!, stack: `Error: ${CLOSED_DATABASE[0]}\n    at PostgresDriver.obtainMasterConnection (x.js:1:1)` } };
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
		expect(judgeFailedRuns({ ...ciRun, enqueued: {} }).unexcused[0].why).toBe('no delivery id in the data it was enqueued with');
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
			{ executionId: '1037', workflowId: AUTO_REPLY, status: 'error', why: 'its delivery qd-1201 is already accounted for by another run' },
		]);
		expect(verdict.unexplainedLosses).toEqual([{ workflowId: AUTO_REPLY, deliveryId: 'qd-1203' }]);
	});

	test('a loss in another workflow is not accounted for by this one\'s failure', () => {
		const verdict = judgeFailedRuns({ ...ciRun, lost: { [AUTO_REPLY]: [], [ALERT]: ['qd-1201'] } });
		expect(verdict.excused).toEqual([]);
		expect(verdict.unexplainedLosses).toEqual([{ workflowId: ALERT, deliveryId: 'qd-1201' }]);
	});
});

describe('a job the stopping worker fetched and never started (bull fails it as stalled)', () => {
	test('the CI run: 1039 stalled, no worker started it, and worker1 was stopped', () => {
		expect(neverStartedByAStoppedWorker(stalledRun.workerLogs, stalledWebhookLog)).toEqual(['1039']);
		// The job processor never failed it: the first ending's rule does not see it.
		expect(failedWhileStopping(stoppedLog)).toEqual([]);
	});

	test('its stored data: n8n\'s stalled-job error, no node, nothing ran', () => {
		expect(stalledJob).toEqual({ error: { message: STALLED_JOB, node: null, name: null, stack: expect.any(String) }, ranNodes: [] });
	});

	test('judged: excused, accounting for the one delivery it lost', () => {
		expect(judgeFailedRuns(stalledRun)).toEqual({
			excused: [{ executionId: '1039', workflowId: AUTO_REPLY, deliveryId: 'qd-1656', message: STALLED_JOB }],
			unexcused: [],
			unexplainedLosses: [],
		});
	});

	test('not excused when no worker was stopped (a worker that died or hung stalls jobs too)', () => {
		const notStopped = stoppedLog.replace('Stopping worker...\n', '');
		expect(neverStartedByAStoppedWorker([notStopped, otherWorkerLog], stalledWebhookLog)).toEqual([]);
		const verdict = judgeFailedRuns({ ...stalledRun, workerLogs: [notStopped, otherWorkerLog] });
		expect(verdict.excused).toEqual([]);
		expect(verdict.unexplainedLosses).toEqual([{ workflowId: AUTO_REPLY, deliveryId: 'qd-1656' }]);
	});

	test('not excused when a worker had started it: a run that stalled mid-way is not this race', () => {
		const started = `${otherWorkerLog}Worker started execution 1039 (job 1039)\n`;
		expect(judgeFailedRuns({ ...stalledRun, workerLogs: [stoppedLog, started] }).excused).toEqual([]);
	});

	test('not excused without bull\'s stall in the webhook process\'s log, or with another stored error', () => {
		const noStack = stalledWebhookLog.replace(/\nError: job stalled more than maxStalledCount\n/, '\n');
		expect(judgeFailedRuns({ ...stalledRun, webhookLog: noStack }).excused).toEqual([]);
		expect(judgeFailedRuns({ ...stalledRun, webhookLog: '' }).excused).toEqual([]);
		const other = { ...stalledJob, error: { ...stalledJob.error!, message: 'Worker failed to find data for execution 1039 (job 1039)' } };
		expect(judgeFailedRuns({ ...stalledRun, outcomes: { '1039': other } }).unexcused[0].why).toBe(
			'not n8n\'s stalled-job error: Worker failed to find data for execution 1039 (job 1039)',
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
