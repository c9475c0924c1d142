/**
 * The SIGKILL judges (hardKillRules.ts for the single-process soak, hardKillJudge.ts for the queue
 * test) at the edges of each rule, on small made-up timelines: every bound is inclusive or not as its
 * rule states it ("in flight at the kill": `at` <= kill <= `at` + ms; a cut run started at most
 * CUT_RUN_MS before the kill; 5xx from 500; a failure from 300), and each condition of a rule is
 * needed. hardKillRules.test.ts and hardKillJudge.test.ts pin the rules on real runs.
 */
import type { DeliveryAttempt } from '../fixtures/retrying-sender';
import {
	BALANCER_GRACE_MS,
	CUT_JOB_FAILED_WITHIN_MS,
	cutAttempts,
	judgeHardKill,
	notCarried,
	notCutByAKill,
	type Kill,
	type KillRun,
} from '../support/judges/hardKillJudge';
import {
	CUT_RUN_MS,
	doubleRunVerdict,
	failuresSecondsAfterBack,
	killBeforeBootRun,
	killThatCut,
	type KillTime,
	type RunTimes,
} from '../support/judges/hardKillRules';
import { STALLED_JOB, type StoredOutcome } from '../support/judges/workerShutdownRace';

const T = Date.parse('2026-11-26T03:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const dropped = (at: number, ms: number): DeliveryAttempt => ({ outcome: 'dropped', at, ms });
const answered = (at: number, ms: number, status: number, answer?: string): DeliveryAttempt => ({
	outcome: 'status',
	status,
	at,
	ms,
	...(answer === undefined ? {} : { answer }),
});

describe('hardKillRules.ts (the single-process soak)', () => {
	const KILL = T + 60_000;
	const kills: KillTime[] = [{ at: KILL, backAfterMs: 20_000 }];
	const success = (id: string, from: number, to: number): RunTimes => ({
		id,
		status: 'success',
		startedAt: iso(from),
		stoppedAt: iso(to),
	});
	/** A run that ended 500 ms before the kill, and its second run after n8n was back. */
	const twice = (first: RunTimes = success('1', KILL - 2_000, KILL - 500)) => [
		first,
		success('2', KILL + 30_000, KILL + 31_000),
	];

	test('a run created at the kill and started after it was started by the next n8n; one started at the kill was not', () => {
		const boot = (created: number, started: number): RunTimes => ({
			id: 'b',
			status: 'success',
			createdAt: iso(created),
			startedAt: iso(started),
		});
		expect(killBeforeBootRun(boot(KILL, KILL + 1), kills)).toBe(kills[0]);
		expect(killBeforeBootRun(boot(KILL + 1, KILL + 2), kills)).toBeUndefined();
		expect(killBeforeBootRun(boot(KILL - 5, KILL), kills)).toBeUndefined();
	});

	test('a crashed run was cut when it started at the kill or at most 10 s before it', () => {
		expect(CUT_RUN_MS).toBe(10_000);
		const crashed = (started: number): RunTimes => ({
			id: 'c',
			status: 'crashed',
			startedAt: iso(started),
		});
		expect(killThatCut(crashed(KILL), kills)).toBe(kills[0]);
		expect(killThatCut(crashed(KILL - 10_000), kills)).toBe(kills[0]);
		expect(killThatCut(crashed(KILL - 10_001), kills)).toBeUndefined();
		expect(killThatCut(crashed(KILL + 1), kills)).toBeUndefined();
	});

	test('an attempt cut by the kill: in flight from its start at the kill to its end at the kill', () => {
		const verdict = (a: DeliveryAttempt, runs = twice()) => doubleRunVerdict(runs, [a], kills).why;
		expect(verdict(dropped(KILL - 3_000, 3_000))).toBeNull();
		expect(verdict(dropped(KILL - 3_000, 2_999))).toMatch(
			/carried by no attempt that a later kill cut/,
		);
		// Sent exactly when the run started (and the kill came as it was sent): it carried the run.
		const quick = twice(success('1', KILL, KILL + 100));
		expect(verdict(dropped(KILL, 1_000), quick)).toBeNull();
		// Sent after the kill, it was not cut by it, even carrying a run that started later still.
		const afterKill = twice(success('1', KILL + 50, KILL + 100));
		expect(verdict(dropped(KILL + 10, 1_000), afterKill)).toMatch(
			/carried by no attempt that a later kill cut/,
		);
	});

	test('an attempt in flight at the kill is cut by it when it got no answer or a 5xx (from 500), not a 499', () => {
		const verdict = (status: number) =>
			doubleRunVerdict(twice(), [answered(KILL - 3_000, 4_000, status)], kills).why;
		expect(verdict(500)).toBeNull();
		expect(verdict(502)).toBeNull();
		expect(verdict(499)).toMatch(/carried by no attempt that a later kill cut/);
		expect(verdict(200)).toMatch(/carried by no attempt that a later kill cut/);
	});

	test('a kill counts for a run that ended up to 200 ms after it (n8n stores its end after its own work), not 201 ms', () => {
		const endedAfter = (ms: number) => twice(success('1', KILL - 2_000, KILL + ms));
		const cut = dropped(KILL - 3_000, 4_000);
		expect(doubleRunVerdict(endedAfter(200), [cut], kills).why).toBeNull();
		expect(doubleRunVerdict(endedAfter(201), [cut], kills).why).toBe(
			`its run 1 ended at ${iso(KILL + 201)}, after the last kill`,
		);
		// With no cut attempt, the reason names a kill that came late enough.
		expect(doubleRunVerdict(endedAfter(200), [], kills).why).toBe(
			`its run 1 (ended ${iso(KILL + 200)}) was carried by no attempt that a later kill cut`,
		);
	});

	test('the boot run: its own attempt, sent no later than the execution was created, cut by that kill', () => {
		const created = KILL - 1_000;
		const bootRun: RunTimes = {
			id: 'b',
			status: 'success',
			createdAt: iso(created),
			startedAt: iso(KILL + 25_000),
			stoppedAt: iso(KILL + 26_000),
		};
		const runs = [bootRun, success('2', KILL + 30_000, KILL + 31_000)];
		expect(doubleRunVerdict(runs, [dropped(created, 2_000)], kills)).toEqual({
			why: null,
			endedBeforeKillSeconds: [],
			startedAtBoot: ['b'],
		});
		expect(doubleRunVerdict(runs, [dropped(created + 1, 2_000)], kills).why).toMatch(
			/^its run b \(created before a kill, started by n8n after it\) was carried by no attempt that kill cut$/,
		);
	});

	test("rule 3: a failure belongs to the kill until the next one; one ending at the next kill is the next one's", () => {
		const two: KillTime[] = [
			{ at: KILL, backAfterMs: 10_000 },
			{ at: KILL + 30_000, backAfterMs: 10_000 },
		];
		const back = KILL + 10_000;
		// A failure sent before n8n was back that ended after it is measured to its end.
		expect(failuresSecondsAfterBack([answered(back - 100, 500, 503)], two)).toEqual([0.4, 0]);
		// Ending exactly at the next kill: that kill's, not this one's.
		expect(failuresSecondsAfterBack([answered(back + 1_000, 19_000, 503)], two)).toEqual([0, 0]);
		expect(failuresSecondsAfterBack([answered(back + 1_000, 18_999, 503)], two)).toEqual([
			19.999, 0,
		]);
		// A failure is anything but a 2xx: 300 counts, 299 does not; an attempt with no answer counts.
		expect(failuresSecondsAfterBack([answered(back + 1_000, 1_000, 300)], two)[0]).toBe(2);
		expect(failuresSecondsAfterBack([answered(back + 1_000, 1_000, 299)], two)[0]).toBe(0);
		expect(failuresSecondsAfterBack([dropped(back + 1_000, 1_000)], two)[0]).toBe(2);
	});
});

describe('hardKillJudge.ts (the queue test)', () => {
	const WEBHOOK_KILL = T + 15_000;
	const WORKER_KILL = T + 35_000;
	const BALANCER_PAGE = 'No server is available to handle this request.';
	const STILL_RUNNING = '{"error":"A workflow sharing this webhook could not take the event yet"}';
	const webhookKill: Kill = {
		process: 'webhook',
		killedAt: WEBHOOK_KILL,
		backAt: WEBHOOK_KILL + 20_000,
		killedLife: 'Enqueued execution 7 (job 7)\n',
	};
	const workerKill = (life = ''): Kill => ({
		process: 'worker1',
		killedAt: WORKER_KILL,
		backAt: WORKER_KILL + 5_000,
		killedLife: life,
	});
	const started = (id: string) => `Worker started execution ${id} (job ${id})\n`;
	const finished = (id: string) => `Worker finished execution ${id} (job ${id})\n`;
	const runOf = (fields: Partial<KillRun>): KillRun => ({
		id: '9',
		workflowId: 'wf',
		deliveryId: 'd1',
		status: 'crashed',
		startedAt: WORKER_KILL - 1_000,
		createdAt: WORKER_KILL - 1_100,
		...fields,
	});
	const error = (
		message: string | null,
		fields: Partial<NonNullable<StoredOutcome['error']>> = {},
	) =>
		({
			error: { message, node: null, name: null, stack: null, ...fields },
			ranNodes: [],
		}) as StoredOutcome;

	describe('which attempts a kill cut (cutAttempts)', () => {
		test('in flight from its start at the kill to its end at it; dropped, timed out or 5xx from 500', () => {
			const kill = [workerKill()];
			const cut = (a: DeliveryAttempt) => cutAttempts([a], kill).length === 1;
			expect(cut(dropped(WORKER_KILL, 10))).toBe(true);
			expect(cut(dropped(WORKER_KILL - 10, 10))).toBe(true);
			expect(cut(dropped(WORKER_KILL + 1, 10))).toBe(false);
			expect(cut(dropped(WORKER_KILL - 11, 10))).toBe(false);
			expect(cut({ outcome: 'timeout', at: WORKER_KILL - 5, ms: 10 })).toBe(true);
			expect(cut(answered(WORKER_KILL - 5, 10, 500))).toBe(true);
			expect(cut(answered(WORKER_KILL - 5, 10, 503))).toBe(true);
			expect(cut(answered(WORKER_KILL - 5, 10, 499))).toBe(false);
			expect(cut(answered(WORKER_KILL - 5, 10, 200))).toBe(false);
			// Refused: nothing was sent.
			expect(cut({ outcome: 'refused', code: 'ECONNREFUSED', at: WORKER_KILL - 5, ms: 10 })).toBe(
				false,
			);
		});
	});

	describe('why a run that did not succeed is not one a kill cut (notCutByAKill)', () => {
		test('a worker log is read line by line: its "started" and "finished" lines anywhere in it', () => {
			const life = `other line\n${started('9')}`;
			expect(notCutByAKill(runOf({}), undefined, [workerKill(life)], [life])).toBeNull();
			expect(
				notCutByAKill(runOf({}), undefined, [workerKill(life)], [`${life}${finished('9')}`]),
			).toBe('a worker finished it');
		});

		test('started at the kill is started before it; a millisecond after is not', () => {
			const kill = [workerKill(started('9'))];
			expect(notCutByAKill(runOf({ startedAt: WORKER_KILL }), undefined, kill, [])).toBeNull();
			expect(notCutByAKill(runOf({ startedAt: WORKER_KILL + 1 }), undefined, kill, [])).toBe(
				'it started after the kill of worker1',
			);
		});

		test('an `error` run with nothing stored is not excused, and says so', () => {
			const kill = [workerKill(started('9'))];
			expect(notCutByAKill(runOf({ status: 'error' }), undefined, kill, [])).toBe(
				'failed with no error stored',
			);
			expect(notCutByAKill(runOf({ status: 'error' }), error(STALLED_JOB), kill, [])).toBeNull();
		});

		test("the stalled job a worker took before it logged starting it: only `error`, only a worker's kill, created before that worker was back", () => {
			const stalled = error(STALLED_JOB);
			const before = runOf({ status: 'error', startedAt: null, createdAt: WORKER_KILL });
			const back = workerKill().backAt;
			expect(notCutByAKill(before, stalled, [workerKill()], [])).toBeNull();
			expect(notCutByAKill({ ...before, createdAt: back }, stalled, [workerKill()], [])).toBeNull();
			expect(notCutByAKill({ ...before, createdAt: back + 1 }, stalled, [workerKill()], [])).toBe(
				'no killed worker had started it',
			);
			expect(notCutByAKill({ ...before, status: 'crashed' }, stalled, [workerKill()], [])).toBe(
				'no killed worker had started it',
			);
			// The webhook process's kill stalls no job.
			expect(notCutByAKill(before, stalled, [{ ...webhookKill, killedAt: WORKER_KILL }], [])).toBe(
				'no killed worker had started it',
			);
		});

		test('a run left `new`: created at the kill of a webhook process (any of them) at the latest, never queued nor started', () => {
			const fresh = runOf({ id: '8', status: 'new', startedAt: null, createdAt: WEBHOOK_KILL });
			expect(notCutByAKill(fresh, undefined, [webhookKill], [])).toBeNull();
			expect(
				notCutByAKill(fresh, undefined, [{ ...webhookKill, process: 'webhook2' }], []),
			).toBeNull();
			expect(
				notCutByAKill({ ...fresh, createdAt: WEBHOOK_KILL + 1 }, undefined, [webhookKill], []),
			).toBe('new, and not created before a kill of the webhook process');
			expect(notCutByAKill({ ...fresh, id: '7' }, undefined, [webhookKill], [])).toBe(
				'new, but the killed webhook process had queued it',
			);
			expect(
				notCutByAKill(fresh, undefined, [webhookKill], [`a line before\n${started('8')}`]),
			).toBe('new, but a worker started it');
		});
	});

	describe('which attempt carried a run (notCarried)', () => {
		const attempt = dropped(T, 1_000);
		test('the attempt in flight when n8n created the run: from its start to its end, inclusive', () => {
			const cut = new Set([attempt]);
			for (const createdAt of [T, T + 500, T + 1_000])
				expect(notCarried([runOf({ createdAt })], [attempt], cut)).toBeNull();
			for (const createdAt of [T - 1, T + 1_001])
				expect(notCarried([runOf({ createdAt })], [attempt], cut)).toBe(
					'run 9 was created outside every attempt of its delivery',
				);
		});
	});

	describe('judgeHardKill', () => {
		const judged = (fields: Partial<Parameters<typeof judgeHardKill>[0]>) =>
			judgeHardKill({
				runs: [],
				outcomes: {},
				deliveries: [],
				kills: [webhookKill, workerKill()],
				workerLogs: [],
				...fields,
			});

		test('only a delivery run more than once in a workflow is checked; runs with no delivery id are not a delivery', () => {
			const once = runOf({ id: '1', status: 'success', createdAt: T - 50_000 });
			const noId = [
				runOf({ id: '2', status: 'success', deliveryId: null }),
				runOf({ id: '3', status: 'success', deliveryId: null }),
			];
			expect(judged({ runs: [once, ...noId] }).extraRunsUnexplained).toEqual([]);
			const twice = [once, runOf({ id: '4', status: 'success', createdAt: T - 40_000 })];
			expect(judged({ runs: twice }).extraRunsUnexplained).toEqual([
				{
					workflowId: 'wf',
					deliveryId: 'd1',
					runs: 2,
					cutAttempts: 0,
					why: 'run 1 was created outside every attempt of its delivery',
				},
			]);
		});

		test("HAProxy's 503 page sent from a webhook process's kill until 1 s after it was back: that kill's; not another status", () => {
			expect(BALANCER_GRACE_MS).toBe(1_000);
			const failures = (a: DeliveryAttempt, kill: Kill = webhookKill) =>
				judged({ kills: [kill], deliveries: [{ id: 'd1', attempts: [a] }] }).failuresNotAtAKill
					.length;
			const back = webhookKill.backAt;
			expect(failures(answered(WEBHOOK_KILL, 5, 503, BALANCER_PAGE))).toBe(0);
			expect(failures(answered(back + 1_000, 5, 503, BALANCER_PAGE))).toBe(0);
			expect(failures(answered(back + 1_001, 5, 503, BALANCER_PAGE))).toBe(1);
			expect(failures(answered(WEBHOOK_KILL - 10, 5, 503, BALANCER_PAGE))).toBe(1);
			expect(failures(answered(WEBHOOK_KILL + 10, 5, 502, BALANCER_PAGE))).toBe(1);
			expect(failures(answered(WEBHOOK_KILL + 10, 5, 503))).toBe(1);
			expect(
				failures(answered(WEBHOOK_KILL + 10, 5, 503, BALANCER_PAGE), {
					...webhookKill,
					process: 'webhook2',
				}),
			).toBe(0);
			// Any failure in flight at the kill is that kill's, from its start at it to its end at it.
			expect(failures(answered(WEBHOOK_KILL, 5, 500))).toBe(0);
			expect(failures(answered(WEBHOOK_KILL - 5, 5, 500))).toBe(0);
			expect(failures(answered(WEBHOOK_KILL - 6, 5, 500))).toBe(1);
			// A failure is anything but a 2xx, an attempt without an answer included.
			expect(failures(answered(T, 5, 300))).toBe(1);
			expect(failures(answered(T, 5, 299))).toBe(0);
			expect(failures(dropped(T, 5))).toBe(1);
		});

		test("the trigger's 503 for a run still going, after a worker's kill that cut an earlier attempt, until 121 s after the kill", () => {
			expect(CUT_JOB_FAILED_WITHIN_MS).toBe(120_000);
			const cut = dropped(WORKER_KILL - 100, 200);
			const failures = (a: DeliveryAttempt, earlier: DeliveryAttempt[] = [cut]) =>
				judged({
					kills: [workerKill()],
					deliveries: [{ id: 'd1', attempts: [...earlier, a] }],
				}).failuresNotAtAKill.map((f) => f.attempt);
			const last = WORKER_KILL + CUT_JOB_FAILED_WITHIN_MS + BALANCER_GRACE_MS;
			const still = (at: number, status = 503, answer = STILL_RUNNING) =>
				answered(at, 5, status, answer);
			expect(failures(still(WORKER_KILL + 200))).toEqual([]);
			expect(failures(still(last))).toEqual([]);
			expect(failures(still(last + 1))).toHaveLength(1);
			expect(failures(still(WORKER_KILL + 200, 500))).toHaveLength(1);
			expect(failures(still(WORKER_KILL + 200, 503, '{"error":"other"}'))).toHaveLength(1);
			// Without an attempt that kill cut, it is not excused.
			expect(failures(still(WORKER_KILL + 200), [])).toHaveLength(1);
			// Before the kill, it is not that kill's.
			expect(failures(still(WORKER_KILL - 500), [dropped(WORKER_KILL - 900, 1_000)])).toHaveLength(
				1,
			);
			// Sent at the kill itself, after a cut attempt of an earlier kill's... the one it is sent at.
			expect(failures(still(WORKER_KILL), [dropped(WORKER_KILL - 300, 300)])).toEqual([]);
		});

		test("an attempt in flight at two kills is the later one's; a kill with no failure reports none", () => {
			const first: Kill = { ...workerKill(), killedAt: WORKER_KILL, backAt: WORKER_KILL + 5_000 };
			const second: Kill = {
				...workerKill(),
				process: 'worker2',
				killedAt: WORKER_KILL + 10_000,
				backAt: WORKER_KILL + 15_000,
			};
			const long = { outcome: 'timeout', at: WORKER_KILL - 1_000, ms: 20_000 } as DeliveryAttempt;
			const verdict = judged({
				kills: [first, second],
				deliveries: [{ id: 'd1', attempts: [long] }],
			});
			expect(verdict.failuresAfterBack).toEqual([
				{
					process: 'worker1',
					lastFailureSentAfterBackMs: null,
					lastFailureSeenAfterBackMs: null,
					boundSentAfterBackMs:
						WORKER_KILL + CUT_JOB_FAILED_WITHIN_MS + BALANCER_GRACE_MS - first.backAt,
				},
				{
					process: 'worker2',
					lastFailureSentAfterBackMs: long.at - second.backAt,
					lastFailureSeenAfterBackMs: long.at + long.ms - second.backAt,
					boundSentAfterBackMs:
						second.killedAt + CUT_JOB_FAILED_WITHIN_MS + BALANCER_GRACE_MS - second.backAt,
				},
			]);
		});
	});
});
