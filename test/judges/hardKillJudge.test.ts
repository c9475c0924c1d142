import type { DeliveryAttempt } from '../fixtures/retrying-sender';
import { readText } from '../support/repo';
import {
	BALANCER_GRACE_MS,
	CUT_JOB_FAILED_WITHIN_MS,
	cutAttempts,
	judgeHardKill,
	type Kill,
	type KillRun,
} from '../support/judges/hardKillJudge';
import { STALLED_JOB, type StoredOutcome } from '../support/judges/workerShutdownRace';

/**
 * The SIGKILL test's rules (hardKillJudge.ts), pinned on what a real run of it recorded
 * (fixtures/hard-kill-2026-11-25.json: the webhook process killed at 15 s, worker1 at 35 s; worker1's
 * log up to its kill), then each rule shown to bite on that run with one thing changed.
 */
const run = JSON.parse(readText('test', 'judges', 'fixtures', 'hard-kill-2026-11-25.json')) as {
	kills: Array<Omit<Kill, 'killedLife'>>;
	failedDeliveries: Array<{ id: string; attempts: DeliveryAttempt[] }>;
	runs: Array<Omit<KillRun, 'workflowId'> & { workflow: string }>;
	outcomes: Record<string, StoredOutcome>;
};
const killedLife = readText('test', 'judges', 'fixtures', 'hard-kill-worker1-killed-life.log');
const kills: Kill[] = run.kills.map((k) => ({
	...k,
	killedLife: k.process === 'worker1' ? killedLife : '',
}));
const [webhookKill, workerKill] = kills;
const runs: KillRun[] = run.runs.map(({ workflow, ...r }) => ({ ...r, workflowId: workflow }));
const input = {
	runs,
	outcomes: run.outcomes,
	deliveries: run.failedDeliveries,
	kills,
	workerLogs: [killedLife],
};
/**
 * A later run of the same test (fixtures/queue-hard-kill-2026-11-26.json), recorded with what rules 2 and 3
 * now read: every attempt's answer (HAProxy's 503 page, the holder's 503) and every run's createdAt.
 */
const run26 = JSON.parse(
	readText('test', 'judges', 'fixtures', 'queue-hard-kill-2026-11-26.json'),
) as Parameters<typeof judgeHardKill>[0];
const [webhookKill26, workerKill26] = run26.kills;
/** HAProxy's page while no webhook process is ready, and the holder's 503 for a member still running its forward. */
const BALANCER_PAGE =
	'<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>\n';
const STILL_RUNNING = '{"error":"A workflow sharing this webhook could not take the event yet"}';
const ok = (a: Partial<DeliveryAttempt> & { at: number }): DeliveryAttempt => ({
	outcome: 'status',
	status: 200,
	ms: 800,
	...a,
});

describe("the SIGKILL test's rules on its run of 2026-11-25", () => {
	test("qd-7000031 ran three times in the logger: one dropped attempt at the webhook's kill, one timed out across worker1's", () => {
		const attempts = run.failedDeliveries.find((d) => d.id === 'qd-7000031')!.attempts;
		expect(cutAttempts(attempts, kills).map((a) => a.outcome)).toEqual(['dropped', 'timeout']);
		// The balancer's 503s while the webhook process was down reached no run: they explain none.
		expect(
			cutAttempts(
				attempts.filter((a) => a.status === 503),
				kills,
			),
		).toEqual([]);
	});
});

describe("the SIGKILL test's rules on its run of 2026-11-26 (answers and creation times recorded)", () => {
	test("every run that did not succeed was cut by worker1's kill; every double run is carried by attempts cut by a kill; failures only around the kills, each by what it was", () => {
		const cut = (id: string) => run26.deliveries.find((d) => d.id === id)!.attempts.slice(0, 1);
		expect(judgeHardKill(run26)).toEqual({
			// Four attempts dropped at the webhook process's kill, two timed out across worker1's.
			cutAttempts: Object.fromEntries(
				['36', '38', '39', '40', '53', '54'].map((n) => [`qd-70000${n}`, cut(`qd-70000${n}`)]),
			),
			// No job was taken by worker1 as it died in this run.
			takenAsItDied: [],
			unexplainedRuns: [],
			extraRunsUnexplained: [],
			failuresNotAtAKill: [],
			failuresAfterBack: [
				// HAProxy's last 503 came 1.3 s before the webhook process was ready again.
				{
					process: 'webhook',
					lastFailureSentAfterBackMs: -1314,
					lastFailureSeenAfterBackMs: -1307,
					boundSentAfterBackMs: BALANCER_GRACE_MS,
				},
				// The holder's 503 for a member still running a job worker1 held: 57 s after worker1 was back.
				{
					process: 'worker1',
					lastFailureSentAfterBackMs: 57_171,
					lastFailureSeenAfterBackMs: 58_218,
					boundSentAfterBackMs:
						workerKill26.killedAt +
						CUT_JOB_FAILED_WITHIN_MS +
						BALANCER_GRACE_MS -
						workerKill26.backAt,
				},
			],
		});
	});

	const withAttempt = (
		id: string,
		change: (a: DeliveryAttempt) => DeliveryAttempt | undefined,
	) => ({
		...run26,
		deliveries: run26.deliveries.map((d) => ({
			...d,
			attempts: d.id === id ? d.attempts.map(change).filter((a) => a !== undefined) : d.attempts,
		})),
	});
	const balancer503 = run26.deliveries.flatMap((d) =>
		d.attempts.filter((a) => a.answer === BALANCER_PAGE).map((a) => ({ id: d.id, a })),
	)[0];
	const stillRunning503 = run26.deliveries.flatMap((d) =>
		d.attempts.filter((a) => a.answer === STILL_RUNNING).map((a) => ({ id: d.id, a })),
	)[0];

	test("a 503 while the webhook process is down is excused only as HAProxy's own page", () => {
		expect(balancer503.a.at).toBeGreaterThan(webhookKill26.killedAt);
		const other = withAttempt(balancer503.id, (a) =>
			a === balancer503.a ? { ...a, answer: '{"message":"Error in workflow"}' } : a,
		);
		expect(judgeHardKill(other).failuresNotAtAKill.map((f) => f.deliveryId)).toEqual([
			balancer503.id,
		]);
	});

	test("HAProxy's 503 while a worker is down is not that kill's: the webhook process went on serving", () => {
		const during = { ...balancer503.a, at: workerKill26.killedAt + 2_000, ms: 3 };
		const moved = withAttempt(balancer503.id, (a) => (a === balancer503.a ? during : a));
		expect(judgeHardKill(moved).failuresNotAtAKill).toEqual([
			{ deliveryId: balancer503.id, attempt: during },
		]);
	});

	test("after a worker's kill only the trigger's own 503 for a run still going is excused, not another failure", () => {
		const other = withAttempt(stillRunning503.id, (a) =>
			a === stillRunning503.a
				? { ...a, status: 500, answer: '{"message":"Error in workflow"}' }
				: a,
		);
		expect(judgeHardKill(other).failuresNotAtAKill.map((f) => f.deliveryId)).toEqual([
			stillRunning503.id,
		]);
	});

	test('a second run must be carried by its own cut attempt', () => {
		// qd-7000054 ran twice in one workflow: first in the attempt worker1's kill cut, then in the
		// redelivery that got its 2xx.
		const twice = run26.runs.filter(
			(r) => r.deliveryId === 'qd-7000054' && r.workflowId === 'bVEDYQpRjVgKGVSa',
		);
		expect(twice.map((r) => r.status)).toEqual(['error', 'success']);
		const extra = (change: Partial<Parameters<typeof judgeHardKill>[0]>) =>
			judgeHardKill({ ...run26, ...change }).extraRunsUnexplained.map((p) => p.why);
		// Without the cut attempt, both runs are carried by attempts no kill cut.
		const cutOnes = new Set(
			cutAttempts(run26.deliveries.find((d) => d.id === 'qd-7000054')!.attempts, run26.kills),
		);
		expect(cutOnes.size).toBe(1);
		const asIfAnswered = withAttempt('qd-7000054', (a) =>
			cutOnes.has(a) ? { ...a, outcome: 'status', status: 200, answer: undefined } : a,
		);
		expect(extra(asIfAnswered)).toEqual(['2 runs carried by attempts no kill cut']);
		// Both created within the last attempt: one attempt cannot carry two runs.
		const last = twice[1].createdAt!;
		expect(
			extra({ runs: run26.runs.map((r) => (r === twice[0] ? { ...r, createdAt: last } : r)) }),
		).toEqual([`runs of one attempt: ${twice[1].id} and another`]);
		// A run created when no attempt of its delivery was in flight.
		expect(
			extra({ runs: run26.runs.map((r) => (r === twice[0] ? { ...r, createdAt: null } : r)) }),
		).toEqual([`run ${twice[0].id} was created outside every attempt of its delivery`]);
	});
});

describe('each rule bites', () => {
	test('an intermittent node error, retried by the sender and run again, is not "cut and run again"', () => {
		// qd-7000940 got 500 (the run failed in its Wait node, nowhere near a kill), then 200.
		const at = workerKill26.backAt + 10_000;
		const verdict = judgeHardKill({
			...run26,
			runs: [
				...run26.runs,
				{
					id: '120',
					workflowId: 'logger',
					deliveryId: 'qd-7000940',
					status: 'error',
					createdAt: at + 10,
					startedAt: at,
				},
				{
					id: '121',
					workflowId: 'logger',
					deliveryId: 'qd-7000940',
					status: 'success',
					createdAt: at + 1_410,
					startedAt: at + 2_000,
				},
			],
			outcomes: {
				...run26.outcomes,
				'120': {
					error: {
						message: 'Something failed',
						node: 'Wait',
						name: 'NodeOperationError',
						stack: null,
					},
					ranNodes: ['Relay Trigger', 'Wait'],
				},
			},
			deliveries: [
				...run26.deliveries,
				{
					id: 'qd-7000940',
					attempts: [ok({ at, status: 500, ms: 1_200 }), ok({ at: at + 1_400 })],
				},
			],
		});
		expect(verdict.unexplainedRuns).toEqual([
			{
				id: '120',
				workflowId: 'logger',
				deliveryId: 'qd-7000940',
				status: 'error',
				why: 'the node "Wait" failed: Something failed',
			},
		]);
		expect(verdict.extraRunsUnexplained).toEqual([
			{
				workflowId: 'logger',
				deliveryId: 'qd-7000940',
				runs: 2,
				cutAttempts: 0,
				why: '2 runs carried by attempts no kill cut',
			},
		]);
		expect(verdict.failuresNotAtAKill).toHaveLength(1);
	});

	test("a second run after a trigger's own 503 (not across a kill) is not a redelivery", () => {
		const at = workerKill26.backAt + 20_000;
		const verdict = judgeHardKill({
			...run26,
			runs: [
				...run26.runs,
				{
					id: '130',
					workflowId: 'reply',
					deliveryId: 'qd-7000950',
					status: 'success',
					createdAt: at + 5,
					startedAt: at,
				},
				{
					id: '131',
					workflowId: 'reply',
					deliveryId: 'qd-7000950',
					status: 'success',
					createdAt: at + 5_005,
					startedAt: at + 5_000,
				},
			],
			deliveries: [
				...run26.deliveries,
				{ id: 'qd-7000950', attempts: [ok({ at, status: 503, ms: 20 }), ok({ at: at + 5_000 })] },
			],
		});
		expect(verdict.extraRunsUnexplained).toEqual([
			{
				workflowId: 'reply',
				deliveryId: 'qd-7000950',
				runs: 2,
				cutAttempts: 0,
				why: '2 runs carried by attempts no kill cut',
			},
		]);
		expect(verdict.failuresNotAtAKill.map((f) => f.deliveryId)).toEqual(['qd-7000950']);
	});

	test('one cut attempt explains one extra run, not two', () => {
		// qd-7000054 ran twice in one workflow on its run of 2026-11-26, one cut attempt: two more
		// runs of the same attempts are one too many for each.
		const pair = (r: KillRun) =>
			r.deliveryId === 'qd-7000054' && r.workflowId === 'bVEDYQpRjVgKGVSa';
		const more = run26.runs.filter(pair).map((r) => ({ ...r, id: `${r.id}-again` }));
		expect(
			judgeHardKill({ ...run26, runs: [...run26.runs, ...more] }).extraRunsUnexplained,
		).toEqual([
			{
				workflowId: 'bVEDYQpRjVgKGVSa',
				deliveryId: 'qd-7000054',
				runs: 4,
				cutAttempts: 1,
				why: `runs of one attempt: ${more[0].id} and another`,
			},
		]);
	});

	test('a crashed run is explained only when the killed worker had started it before the kill and nobody finished it', () => {
		const why = (change: Partial<Parameters<typeof judgeHardKill>[0]>) =>
			judgeHardKill({ ...input, ...change }).unexplainedRuns.map((r) => [r.id, r.why]);
		const crashedRun = runs.find((r) => r.id === '52')!;
		expect(
			why({
				runs: runs.map((r) =>
					r === crashedRun ? { ...r, startedAt: workerKill.killedAt + 1 } : r,
				),
			}),
		).toEqual([['52', 'it started after the kill of worker1']]);
		expect(
			why({
				kills: [
					webhookKill,
					{
						...workerKill,
						killedLife: killedLife.replace('Worker started execution 52 (job 52)\n', ''),
					},
				],
			}),
		).toEqual([['52', 'no killed worker had started it']]);
		expect(why({ workerLogs: [killedLife, 'Worker finished execution 52 (job 52)\n'] })).toEqual([
			['52', 'a worker finished it'],
		]);
		// Only a worker's kill cuts a run: the webhook process's kill runs nothing.
		expect(
			why({
				kills: [
					{ ...webhookKill, killedLife },
					{ ...workerKill, process: 'webhook2', killedLife: '' },
				],
			}),
		).toEqual([
			['52', 'no killed worker had started it'],
			['54', 'no killed worker had started it'],
		]);
	});

	test('a cut run ends as n8n ends one, never with another error', () => {
		const why = (id: string, status: string, outcome: StoredOutcome) =>
			judgeHardKill({
				...input,
				runs: runs.map((r) => (r.id === id ? { ...r, status } : r)),
				outcomes: { ...run.outcomes, [id]: outcome },
			}).unexplainedRuns.map((r) => r.why);
		const stalled: StoredOutcome = {
			error: { message: STALLED_JOB, node: null, name: null, stack: null },
			ranNodes: [],
		};
		expect(why('54', 'error', stalled)).toEqual([]);
		expect(
			why('54', 'error', {
				...stalled,
				error: { ...stalled.error!, message: 'Cannot use a pool after calling end on the pool' },
			}),
		).toEqual(['failed with Cannot use a pool after calling end on the pool']);
		expect(
			why('52', 'crashed', {
				error: { message: 'Out of memory', node: null, name: 'Error', stack: null },
				ranNodes: [],
			}),
		).toEqual(['crashed with Out of memory']);
		expect(why('54', 'running', stalled)).toEqual([`running with ${STALLED_JOB}`]);
		expect(why('54', 'canceled', { error: null, ranNodes: [] })).toEqual(['status canceled']);
	});

	test("a job a worker was killed with before it logged starting it: explained only by n8n's stalled-job error, created before the killed worker was back, started by no worker", () => {
		const stalled: StoredOutcome = {
			error: { message: STALLED_JOB, node: null, name: null, stack: null },
			ranNodes: [],
		};
		const unlogged: KillRun = {
			id: '3224',
			workflowId: 'reply',
			deliveryId: 'qd-7000061',
			status: 'error',
			startedAt: null,
			createdAt: workerKill.killedAt - 19,
		};
		const why = (r: KillRun, outcome: StoredOutcome, logs: string[] = [killedLife]) =>
			judgeHardKill({
				...input,
				runs: [...runs, r],
				outcomes: { ...run.outcomes, [r.id]: outcome },
				workerLogs: logs,
			}).unexplainedRuns.map((u) => [u.id, u.why]);
		expect(why(unlogged, stalled)).toEqual([]);
		// Taken while the signalled worker was still dying (2026-11-28: created 36 ms after it).
		expect(why({ ...unlogged, createdAt: workerKill.killedAt + 36 }, stalled)).toEqual([]);
		expect(why({ ...unlogged, createdAt: workerKill.backAt + 1 }, stalled)).toEqual([
			['3224', 'no killed worker had started it'],
		]);
		expect(why({ ...unlogged, createdAt: null }, stalled)).toEqual([
			['3224', 'no killed worker had started it'],
		]);
		expect(
			why(unlogged, { ...stalled, error: { ...stalled.error!, message: 'Something else' } }),
		).toEqual([['3224', 'no killed worker had started it']]);
		expect(
			why(unlogged, stalled, [killedLife, 'Worker started execution 3224 (job 3224)\n']),
		).toEqual([['3224', 'no killed worker had started it']]);
	});

	test('a run left `new` is explained only when the killed webhook process created it before the kill and never queued it', () => {
		const created = webhookKill.killedAt - 40;
		const newRun: KillRun = {
			id: '70',
			workflowId: 'reply',
			deliveryId: 'qd-7000034',
			status: 'new',
			startedAt: null,
			createdAt: created,
		};
		const judged = (r: KillRun, change: Partial<Parameters<typeof judgeHardKill>[0]> = {}) =>
			judgeHardKill({ ...input, runs: [...runs, r], ...change }).unexplainedRuns.map((x) => x.why);
		const webhookLife = 'n8n ready on 127.0.0.1, port 5822\nEnqueued execution 69 (job 69)\n';
		const withLife = { kills: [{ ...webhookKill, killedLife: webhookLife }, workerKill] };
		expect(judged(newRun, withLife)).toEqual([]);
		expect(judged({ ...newRun, createdAt: webhookKill.killedAt + 1 }, withLife)).toEqual([
			'new, and not created before a kill of the webhook process',
		]);
		expect(
			judged(newRun, {
				kills: [
					{ ...webhookKill, killedLife: `${webhookLife}Enqueued execution 70 (job 70)\n` },
					workerKill,
				],
			}),
		).toEqual(['new, but the killed webhook process had queued it']);
		expect(
			judged(newRun, {
				...withLife,
				workerLogs: [killedLife, 'Worker started execution 70 (job 70)\n'],
			}),
		).toEqual(['new, but a worker started it']);
	});

	test("a run left `new` by a worker killed as it took the job: explained only by the webhook process's stalled-job line, created before the killed worker was back, never started", () => {
		// 2026-11-28: execution 3220 enqueued 13 ms before worker1's SIGKILL; Bull failed its job as
		// stalled, the webhook process logged it (fixtures/webhook-job-stalled-never-started.log),
		// and the row stayed `new` with no start.
		const webhookLog = readText(
			'test',
			'judges',
			'fixtures',
			'webhook-job-stalled-never-started.log',
		);
		const stalledRun: KillRun = {
			id: '3220',
			workflowId: 'logger',
			deliveryId: 'qd-7000057',
			status: 'new',
			startedAt: null,
			createdAt: workerKill.killedAt - 13,
		};
		const judged = (r: KillRun, change: Partial<Parameters<typeof judgeHardKill>[0]> = {}) =>
			judgeHardKill({
				...input,
				runs: [...runs, r],
				webhookLogs: [webhookLog],
				...change,
			})
				.unexplainedRuns.filter((x) => x.id === r.id)
				.map((x) => x.why);
		expect(judged(stalledRun)).toEqual([]);
		const notIt = 'new, and not created before a kill of the webhook process';
		// Without the line, or the line of another execution: not explained.
		expect(judged(stalledRun, { webhookLogs: [] })).toEqual([notIt]);
		expect(judged({ ...stalledRun, id: '3221' })).toEqual([notIt]);
		// Created once the killed worker was back, or started, or started by a worker: not this race.
		expect(judged({ ...stalledRun, createdAt: workerKill.killedAt + 36 })).toEqual([]);
		expect(judged({ ...stalledRun, createdAt: workerKill.backAt + 1 })).toEqual([notIt]);
		expect(judged({ ...stalledRun, createdAt: null })).toEqual([notIt]);
		expect(judged({ ...stalledRun, startedAt: workerKill.killedAt - 5 })).toEqual([notIt]);
		expect(
			judged(stalledRun, {
				workerLogs: [killedLife, 'Worker started execution 3220 (job 3220)\n'],
			}),
		).toEqual([notIt]);
		// The start in the middle of a worker's log, where a real one has it.
		const midLog = 'n8n worker is now ready\nWorker started execution 3220 (job 3220)\n';
		expect(judged(stalledRun, { workerLogs: [killedLife, midLog] })).toEqual([notIt]);
		// A kill of the webhook process alone does not explain it either.
		expect(judged(stalledRun, { kills: [webhookKill] })).toEqual([notIt]);
	});

	test('failures sent too long after n8n is back, or away from any kill, are reported', () => {
		// A 503 sent 0.9 s after the webhook process was ready is the balancer's last check; one
		// sent 1.1 s after is not (it had routed to it by then).
		const judged = (a: DeliveryAttempt) =>
			judgeHardKill({
				...run26,
				deliveries: [
					...run26.deliveries,
					{ id: 'qd-7000960', attempts: [a, ok({ at: a.at + 1_300 })] },
				],
			});
		expect(
			judged(ok({ at: webhookKill26.backAt + 900, status: 503, ms: 5, answer: BALANCER_PAGE }))
				.failuresNotAtAKill,
		).toEqual([]);
		expect(
			judged(
				ok({ at: webhookKill26.backAt + 1_100, status: 503, ms: 5, answer: BALANCER_PAGE }),
			).failuresNotAtAKill.map((f) => f.deliveryId),
		).toEqual(['qd-7000960']);
		// A failure before any kill.
		const early = ok({ at: webhookKill26.killedAt - 5_000, status: 500, ms: 100 });
		expect(
			judgeHardKill({ ...run26, deliveries: [{ id: 'qd-7000962', attempts: [early] }] })
				.failuresNotAtAKill,
		).toEqual([{ deliveryId: 'qd-7000962', attempt: early }]);
	});

	test('the trigger\'s 503 "still running" after a worker\'s kill counts only for a delivery whose attempt that kill cut, and only until bull has failed the job', () => {
		// As in the run of 2026-11-25 22:58 (queue-hard-kill.json): qd-7000928's attempt in flight at
		// worker1's kill timed out, then its redeliveries got the member's 503 "still running" every
		// ~5.5 s until 82 s after the kill (when bull failed the cut job), 57 s after worker1 was back.
		const k = workerKill26;
		const cut = ok({ at: k.killedAt - 1_900, outcome: 'timeout', status: undefined, ms: 30_004 });
		const stillRunning = [
			32_490, 38_434, 44_213, 49_464, 54_853, 60_209, 65_363, 70_952, 76_496, 81_888,
		].map((after) => ok({ at: k.killedAt + after, status: 503, ms: 1_300, answer: STILL_RUNNING }));
		const accepted = ok({ at: k.killedAt + 125_000 });
		const judged = (attempts: DeliveryAttempt[]) =>
			judgeHardKill({
				...run26,
				deliveries: [...run26.deliveries, { id: 'qd-7000928', attempts }],
			});
		const verdict = judged([cut, ...stillRunning, accepted]);
		expect(verdict.failuresNotAtAKill).toEqual([]);
		expect(verdict.failuresAfterBack[1]).toEqual({
			process: 'worker1',
			lastFailureSentAfterBackMs: k.killedAt + 81_888 - k.backAt,
			lastFailureSeenAfterBackMs: k.killedAt + 81_888 + 1_300 - k.backAt,
			boundSentAfterBackMs: k.killedAt + CUT_JOB_FAILED_WITHIN_MS + BALANCER_GRACE_MS - k.backAt,
		});
		// Without the cut attempt, the same 503s are not the kill's.
		expect(
			judged([...stillRunning, accepted]).failuresNotAtAKill.filter(
				(f) => f.deliveryId === 'qd-7000928',
			),
		).toHaveLength(stillRunning.length);
		// A cut attempt of another delivery does not cover this one's.
		const other = judgeHardKill({
			...run26,
			deliveries: [
				...run26.deliveries,
				{ id: 'qd-7000929', attempts: [cut, accepted] },
				{ id: 'qd-7000928', attempts: [...stillRunning, accepted] },
			],
		});
		expect(other.failuresNotAtAKill).toHaveLength(stillRunning.length);
		// A later run of the test (2026-11-25 23:08) saw the last 503 sent 100.8 s after the kill
		// (bull's stall check skipped a turn): within the bound.
		expect(
			judged([
				cut,
				ok({ at: k.killedAt + 100_831, status: 503, ms: 1_361, answer: STILL_RUNNING }),
				accepted,
			]).failuresNotAtAKill,
		).toEqual([]);
		// Past the time bull takes to fail the cut job (120 s + the balancer's 1 s): not the kill's.
		const late = ok({
			at: k.killedAt + CUT_JOB_FAILED_WITHIN_MS + BALANCER_GRACE_MS + 1,
			status: 503,
			ms: 1_300,
			answer: STILL_RUNNING,
		});
		expect(judged([cut, late, accepted]).failuresNotAtAKill).toEqual([
			{ deliveryId: 'qd-7000928', attempt: late },
		]);
		// Only a worker's kill holds a job: after the webhook process's kill the same 503s are not explained.
		const afterWebhookKill = judgeHardKill({
			...run26,
			kills: [webhookKill26],
			deliveries: [
				{
					id: 'qd-7000928',
					attempts: [
						{ ...cut, at: webhookKill26.killedAt - 100 },
						...stillRunning.map((a) => ({ ...a, at: a.at - k.killedAt + webhookKill26.backAt })),
					],
				},
			],
		});
		expect(afterWebhookKill.failuresNotAtAKill).toHaveLength(stillRunning.length);
	});
});
