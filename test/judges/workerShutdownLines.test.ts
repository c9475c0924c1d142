import {
	failedWhileStopping,
	finishedButNotSaved,
	judgeFailedRuns,
	neverStartedByAStoppedWorker,
	STALLED_JOB,
	unflatten,
	type StopWindow,
	type StoredOutcome,
} from '../support/judges/workerShutdownRace';

/**
 * The worker-stop judge (test/support/judges/workerShutdownRace.ts) reads n8n's logs line by line
 * and excuses a failed run only on the exact shape of n8n's own race. These pin the edges its
 * CI-run fixtures (workerShutdownRace.test.ts) do not reach, each a mutant that lived (issue 42):
 * a phrase of n8n's that a workflow or another message quotes in the middle of its own line, a
 * worker's next life that starts from nothing, a stop with no SIGTERM, and the exact reason
 * each refusal gives.
 */
const SIGTERM = 'Received SIGTERM. Shutting down...';
const READY = 'n8n worker is now ready';
const STOPPING = 'Stopping worker...';
const END_REFUSED =
	'There was a problem running hook "workflowExecuteAfter" TypeORMError: Driver not Connected';
const started = (id: string) => `Worker started execution ${id} (job ${id})`;
const errored = (id: string) => `Worker errored while running execution ${id} (job ${id})`;
const finished = (id: string) => `Worker finished execution ${id} (job ${id})`;
const unfinished = (ids: string) => `Found unfinished executions: ${ids}`;
/** How a workflow's own log line can hold n8n's words (a Code node echoing what it was sent). */
const quoted = (line: string) => `[Code] echo: ${line}`;
const log = (...lines: string[]) => lines.join('\n') + '\n';

describe("n8n's phrases count only where they start a line", () => {
	test('a quoted SIGTERM does not make the worker stopping', () => {
		expect(failedWhileStopping(log(READY, quoted(SIGTERM), started('7'), errored('7')))).toEqual(
			[],
		);
	});

	test('a quoted start or error is not the worker starting or failing the run', () => {
		expect(failedWhileStopping(log(READY, SIGTERM, quoted(started('7')), errored('7')))).toEqual(
			[],
		);
		expect(failedWhileStopping(log(READY, SIGTERM, started('7'), quoted(errored('7'))))).toEqual(
			[],
		);
	});

	test('a quoted "worker is now ready" does not start a new life', () => {
		expect(
			failedWhileStopping(log(READY, SIGTERM, quoted(READY), started('7'), errored('7'))),
		).toEqual(['7']);
	});

	const notSaved = [READY, SIGTERM, started('9'), STOPPING, END_REFUSED, finished('9'), READY];
	test('the run-not-saved ending needs each of its lines at the start of a line', () => {
		expect(finishedButNotSaved(log(...notSaved, unfinished('9')))).toEqual(['9']);
		expect(finishedButNotSaved(log(...notSaved, quoted(unfinished('9'))))).toEqual([]);
		const swap = (from: string, to: string) =>
			finishedButNotSaved(log(...notSaved.map((l) => (l === from ? to : l)), unfinished('9')));
		expect(swap(STOPPING, quoted(STOPPING))).toEqual([]);
		expect(swap(finished('9'), quoted(finished('9')))).toEqual([]);
	});

	test('"Found unfinished executions" is read as a whole line of ids, each trimmed', () => {
		expect(finishedButNotSaved(log(...notSaved, unfinished('8, 9')))).toEqual(['9']);
		expect(finishedButNotSaved(log(...notSaved, `${unfinished('9')} (and more)`))).toEqual([]);
	});
});

describe("a worker's next life starts from nothing", () => {
	test('a start and a refused end of the life before do not carry over', () => {
		// Life 1 began stopping and its database closed; life 2 ran 9 to its end.
		const lives = log(READY, SIGTERM, started('9'), STOPPING, END_REFUSED, READY, finished('9'));
		expect(finishedButNotSaved(lives + log(READY, unfinished('9')))).toEqual([]);
	});

	test('life 2 is not stopping because life 1 was', () => {
		const lives = log(READY, SIGTERM, READY, started('9'), STOPPING, END_REFUSED, finished('9'));
		expect(finishedButNotSaved(lives + log(READY, unfinished('9')))).toEqual([]);
		expect(failedWhileStopping(log(READY, SIGTERM, READY, started('7'), errored('7')))).toEqual([]);
	});

	test("life 2's database is open and its ends are not refused until it says so", () => {
		const life2 = [SIGTERM, started('9'), STOPPING, END_REFUSED, finished('9'), READY];
		const life1 = [READY, SIGTERM, STOPPING, END_REFUSED];
		expect(finishedButNotSaved(log(...life1, READY, ...life2, unfinished('9')))).toEqual(['9']);
		// Without its own refused end, life 2's run is not this ending, whatever life 1 logged.
		const life2Saved = life2.filter((l) => l !== END_REFUSED);
		expect(finishedButNotSaved(log(...life1, READY, ...life2Saved, unfinished('9')))).toEqual([]);
	});

	test('a log that does not begin with SIGTERM is not stopping', () => {
		expect(failedWhileStopping(log(started('7'), errored('7')))).toEqual([]);
	});
});

/** A worker fetched job 1039 after SIGTERM and exited before starting it (workerShutdownRace.test.ts). */
const W1 = 'worker1-life1';
const stop: StopWindow = {
	signalledAt: 1_000,
	exitedAt: 3_000,
	activeAtExit: [{ jobId: '1039', lockToken: W1, processedOn: 2_500 }],
	tokens: [W1],
};
const stalled = (id: string) =>
	`job stalled more than maxStalledCount (execution ${id})\nError: job stalled more than maxStalledCount\n    at Queue.onFailed (/n8n/node_modules/bull/lib/job.js:516:18)`;
const enqueued = (id: string) => `Enqueued execution ${id} (job ${id})`;
const stoppedWorker = log(READY, SIGTERM, STOPPING);

describe('a stalled job that no worker started', () => {
	test('counted only from the webhook log lines that start with its words', () => {
		const webhookLog = log(enqueued('1039'), stalled('1039'));
		expect(neverStartedByAStoppedWorker([stoppedWorker], webhookLog, [stop])).toEqual(['1039']);
		const quotedStall = log(enqueued('1039'), quoted(stalled('1039')));
		expect(neverStartedByAStoppedWorker([stoppedWorker], quotedStall, [stop])).toEqual([]);
		const quotedEnqueue = log(quoted(enqueued('1039')), stalled('1039'));
		expect(neverStartedByAStoppedWorker([stoppedWorker], quotedEnqueue, [stop])).toEqual([]);
	});

	test('"Stopping worker..." counts only after a SIGTERM of the same life', () => {
		const webhookLog = log(enqueued('1039'), stalled('1039'));
		expect(neverStartedByAStoppedWorker([log(READY, STOPPING)], webhookLog, [stop])).toEqual([]);
		expect(neverStartedByAStoppedWorker([log(STOPPING)], webhookLog, [stop])).toEqual([]);
		const stoppedLifeBefore = log(READY, SIGTERM, READY, STOPPING);
		expect(neverStartedByAStoppedWorker([stoppedLifeBefore], webhookLog, [stop])).toEqual([]);
	});

	test('the reasons of every stop are given, one after the other', () => {
		const stalledRun = {
			runs: [{ id: '1039', workflowId: 'wf', status: 'error' }],
			workerLogs: [stoppedWorker],
			webhookLog: log(enqueued('1039'), stalled('1039')),
			stops: [
				{ ...stop, activeAtExit: [] },
				{ ...stop, activeAtExit: [{ jobId: '1039', lockToken: 'other', processedOn: 2_500 }] },
			],
			outcomes: {},
			enqueued: { '1039': 'qd-1' },
			lost: { wf: ['qd-1'] },
		};
		expect(judgeFailedRuns(stalledRun).unexcused[0].why).toBe(
			'job 1039 not active when the stopped worker exited; locked by another worker, not the stopped one',
		);
	});
});

const closed = (message: string, stack: string | null): StoredOutcome => ({
	error: { message, node: null, name: 'Error', stack },
	ranNodes: [],
});
const fromBull = (message: string) =>
	`${message}\n    at Job.moveToFailed (/n8n/node_modules/bull/lib/job.js:494:20)`;

describe('the reason a failed run is not excused', () => {
	/** Run 7 a stopping worker failed in its job processor; run 1039 a stalled job it never started. */
	const base = {
		runs: [
			{ id: '7', workflowId: 'wf', status: 'error' },
			{ id: '1039', workflowId: 'wf', status: 'error' },
		],
		workerLogs: [log(READY, SIGTERM, started('7'), errored('7'), STOPPING)],
		webhookLog: log(enqueued('1039'), stalled('1039')),
		stops: [stop],
		enqueued: { '7': 'qd-7', '1039': 'qd-1039' },
		lost: { wf: ['qd-7', 'qd-1039'] },
	};
	const whyOf = (
		outcomes: Record<string, StoredOutcome>,
		runs: Array<{ id: string; workflowId: string; status: string }> = base.runs,
	) =>
		Object.fromEntries(
			judgeFailedRuns({ ...base, runs, outcomes }).unexcused.map((u) => [u.executionId, u.why]),
		);

	test('both excused when each stored what n8n stores', () => {
		const verdict = judgeFailedRuns({
			...base,
			outcomes: {
				'7': closed('Driver not Connected', fromBull('Error: Driver not Connected')),
				'1039': closed(STALLED_JOB, null),
			},
		});
		expect(verdict.unexcused).toEqual([]);
		expect(verdict.excused.map((e) => e.executionId)).toEqual(['7', '1039']);
	});

	test('no error stored', () => {
		expect(whyOf({})).toEqual({ '7': 'no error stored', '1039': 'no error stored' });
	});

	test('a node failed, or nodes ran: named, in order', () => {
		const nodeFailed: StoredOutcome = {
			error: { message: 'Bad gateway', node: 'Reply', name: 'NodeApiError', stack: null },
			ranNodes: [],
		};
		expect(whyOf({ '7': nodeFailed, '1039': nodeFailed })).toEqual({
			'7': 'the node "Reply" failed: Bad gateway',
			'1039': 'the node "Reply" failed: Bad gateway',
		});
		const ran = { ...closed(STALLED_JOB, null), ranNodes: ['Trigger', 'Reply'] };
		expect(whyOf({ '7': ran, '1039': ran })).toEqual({
			'7': `nodes ran (Trigger, Reply): ${STALLED_JOB}`,
			'1039': `nodes ran (Trigger, Reply): ${STALLED_JOB}`,
		});
	});

	test("a closed database's error with a stack that bull did not write", () => {
		const typeError = closed('Driver not Connected', fromBull('TypeError: Driver not Connected'));
		expect(whyOf({ '7': typeError, '1039': closed(STALLED_JOB, null) })).toEqual({
			'7': "not the job's failure as bull reports it: Driver not Connected",
		});
	});

	test('a status other than error', () => {
		const crashed = base.runs.map((r) => ({ ...r, status: 'crashed' }));
		const outcomes = {
			'7': closed('Driver not Connected', fromBull('Error: Driver not Connected')),
			'1039': closed(STALLED_JOB, null),
		};
		expect(whyOf(outcomes, crashed)).toEqual({ '7': 'status crashed', '1039': 'status crashed' });
	});
});

describe('a run whose end was not saved and whose delivery ran again', () => {
	test('names every other run of the same workflow and delivery, and only those', () => {
		const lines = [READY, SIGTERM, started('9'), STOPPING, END_REFUSED, finished('9'), READY];
		const verdict = judgeFailedRuns({
			runs: [
				{ id: '9', workflowId: 'wf', status: 'crashed' },
				{ id: '10', workflowId: 'wf', status: 'success' },
				{ id: '11', workflowId: 'wf', status: 'success' },
				{ id: '12', workflowId: 'other-wf', status: 'success' },
			],
			workerLogs: [log(...lines, unfinished('9'))],
			outcomes: { '9': { error: null, ranNodes: ['Trigger'] } },
			enqueued: { '9': 'qd-9', '10': 'qd-9', '11': 'qd-9', '12': 'qd-9' },
			lost: { wf: [] },
		});
		expect(verdict.unexcused).toEqual([
			{
				executionId: '9',
				workflowId: 'wf',
				status: 'crashed',
				why: 'its delivery qd-9 ran again (execution 10, 11)',
			},
		]);
	});
});

describe('answered when the workflow finishes: delivered again and run once', () => {
	const failedOnce = (
		runs: Array<{ id: string; workflowId: string; status: string }>,
		enqueuedFor: Record<string, string>,
		attempts: Array<{ status?: number; answer?: string }>,
	) =>
		judgeFailedRuns({
			runs,
			workerLogs: [log(READY, SIGTERM, started('7'), errored('7'), STOPPING)],
			outcomes: { '7': closed('Driver not Connected', fromBull('Error: Driver not Connected')) },
			enqueued: enqueuedFor,
			lost: { wf: [] },
			attempts: { 'qd-7': attempts },
		});
	const failedRun = { id: '7', workflowId: 'wf', status: 'error' };
	const answeredAsFailed = [{ status: 500, answer: '{"message":"Error in workflow"}' }, {}];

	test('excused when the one success is of its workflow and its delivery', () => {
		const verdict = failedOnce(
			[failedRun, { id: '8', workflowId: 'wf', status: 'success' }],
			{ '7': 'qd-7', '8': 'qd-7' },
			answeredAsFailed,
		);
		expect(verdict.excused).toEqual([
			expect.objectContaining({ executionId: '7', redelivered: true }),
		]);
	});

	test("another workflow's or another delivery's success is not its one run", () => {
		const otherWorkflow = failedOnce(
			[failedRun, { id: '8', workflowId: 'other-wf', status: 'success' }],
			{ '7': 'qd-7', '8': 'qd-7' },
			answeredAsFailed,
		);
		expect(otherWorkflow.unexcused[0].why).toBe(
			'its delivery qd-7 was not lost, and ran to success 0 times',
		);
		const otherDelivery = failedOnce(
			[failedRun, { id: '8', workflowId: 'wf', status: 'success' }],
			{ '7': 'qd-7', '8': 'qd-8' },
			answeredAsFailed,
		);
		expect(otherDelivery.unexcused[0].why).toBe(
			'its delivery qd-7 was not lost, and ran to success 0 times',
		);
	});

	test("n8n's failed-run answer counts only as a 500 or 503 that starts with it", () => {
		const runs = [failedRun, { id: '8', workflowId: 'wf', status: 'success' }];
		const both = { '7': 'qd-7', '8': 'qd-7' };
		const never =
			"its delivery qd-7 was not lost, and the service never got a failed run's answer for it";
		const okAnswer = [{ status: 200, answer: '{"message":"Error in workflow"}' }];
		expect(failedOnce(runs, both, okAnswer).unexcused[0].why).toBe(never);
		const quotedAnswer = [{ status: 500, answer: 'proxy: {"message":"Error in workflow"}' }];
		expect(failedOnce(runs, both, quotedAnswer).unexcused[0].why).toBe(never);
	});
});

describe("n8n's flatted execution data", () => {
	test('an index that points at null is null, not an object to build', () => {
		expect(unflatten('[{"a":"1","b":"2"},null,"text"]')).toEqual({ a: null, b: 'text' });
	});
});
