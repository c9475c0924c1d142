import type { DeliveryAttempt } from '../fixtures/retrying-sender';
import { readText } from '../support/repo';
import { judgeHardKill, TAKEN_AROUND_KILL_MS, type KillRun } from '../support/judges/hardKillJudge';

/**
 * A job worker1 took from the queue as SIGKILL reached it, before it logged starting the run
 * (hardKillJudge.ts, tookAsItDied), on the two runs of the queue suite's SIGKILL soak that met it:
 * CI on 2026-11-29 (fixtures/queue-hard-kill-2026-11-29-ci.json: qd-7000063 sent 19 ms after the
 * signal, execution 3227 created 37 ms after it, failed by Bull as stalled; the attempt timed out,
 * the next one ran it) and a local fresh-clone run the same day (…-local.json: 3227 created 9 ms
 * before the signal, left `new` with nothing logged after its enqueuing). Each fixture keeps the
 * runs created within 3 s of worker1's kill, every run of their deliveries, and the log lines that
 * name those executions.
 */
type Timeline = Parameters<typeof judgeHardKill>[0];
const load = (name: string) => JSON.parse(readText('test', 'judges', 'fixtures', name)) as Timeline;
const ci = load('queue-hard-kill-2026-11-29-ci.json');
const local = load('queue-hard-kill-2026-11-29-local.json');
const workerKill = (t: Timeline) => t.kills.find((k) => k.process === 'worker1')!;
const attemptsOf = (t: Timeline, id: string) => t.deliveries.find((d) => d.id === id)!.attempts;
const withRun = (t: Timeline, id: string, change: Partial<KillRun>): Timeline => ({
	...t,
	runs: t.runs.map((r) => (r.id === id ? { ...r, ...change } : r)),
});

describe('a job the killed worker took as it died', () => {
	test("CI 2026-11-29: the attempt sent 19 ms after worker1's SIGKILL was cut by it, so the event's second run is explained", () => {
		const kill = workerKill(ci);
		const [timedOut, accepted] = attemptsOf(ci, 'qd-7000063');
		expect(timedOut.at - kill.killedAt).toBe(19);
		const verdict = judgeHardKill(ci);
		expect(verdict.unexplainedRuns).toEqual([]);
		expect(verdict.extraRunsUnexplained).toEqual([]);
		expect(verdict.failuresNotAtAKill).toEqual([]);
		expect(verdict.cutAttempts['qd-7000063']).toEqual([timedOut]);
		expect(verdict.cutAttempts['qd-7000063']).not.toContain(accepted);
		expect(verdict.takenAsItDied).toEqual([
			{
				id: '3227',
				deliveryId: 'qd-7000063',
				status: 'error',
				process: 'worker1',
				createdAfterKillMs: 37,
				carrier: 'timeout',
			},
		]);
	});

	test('the attempt counts as cut only through a run the dying worker took: not for another error, a run a worker started, or an attempt that got its 2xx', () => {
		const doubleRun = {
			workflowId: 'n0nqdMudfq4iIPQ9',
			deliveryId: 'qd-7000063',
			runs: 2,
			cutAttempts: 0,
			why: '2 runs carried by attempts no kill cut',
		};
		const failureOf = (t: Timeline) => [
			{ deliveryId: 'qd-7000063', attempt: attemptsOf(t, 'qd-7000063')[0] },
		];
		// What the judge said in CI before this rule: the run is explained, the attempt is not.
		const otherError = {
			...ci,
			outcomes: {
				...ci.outcomes,
				'3227': { error: { message: 'Other', node: null, name: null, stack: null }, ranNodes: [] },
			},
		};
		const other = judgeHardKill(otherError);
		expect(other.unexplainedRuns.map((u) => u.id)).toEqual(['3227']);
		expect(other.extraRunsUnexplained).toEqual([doubleRun]);
		expect(other.failuresNotAtAKill).toEqual(failureOf(ci));
		expect(other.takenAsItDied).toEqual([]);
		// A worker that logged starting it was alive to take it: not this race.
		const started = {
			...ci,
			workerLogs: [...ci.workerLogs, 'Worker started execution 3227 (job 3227)\n'],
		};
		expect(judgeHardKill(started).extraRunsUnexplained).toEqual([doubleRun]);
		expect(judgeHardKill(started).failuresNotAtAKill).toEqual(failureOf(ci));
		// Created once worker1 was back: a live worker would have taken it.
		const late = withRun(ci, '3227', { createdAt: workerKill(ci).backAt + 1 });
		expect(judgeHardKill(late).unexplainedRuns.map((u) => u.id)).toEqual(['3227']);
		// An attempt that got its 2xx was not cut, whatever its run became.
		const answered: DeliveryAttempt[] = attemptsOf(ci, 'qd-7000063').map((a, i) =>
			i === 0 ? { ...a, outcome: 'status', status: 200 } : a,
		);
		const gotIts2xx = {
			...ci,
			deliveries: ci.deliveries.map((d) =>
				d.id === 'qd-7000063' ? { ...d, attempts: answered } : d,
			),
		};
		expect(judgeHardKill(gotIts2xx).extraRunsUnexplained).toEqual([doubleRun]);
		expect(judgeHardKill(gotIts2xx).cutAttempts['qd-7000063']).toBeUndefined();
		// The taken run's carrier is its own delivery's attempt: another delivery's failure is not covered.
		const stranger: DeliveryAttempt = { ...attemptsOf(ci, 'qd-7000063')[0] };
		const withStranger = {
			...ci,
			deliveries: [...ci.deliveries, { id: 'qd-7000999', attempts: [stranger] }],
		};
		expect(judgeHardKill(withStranger).failuresNotAtAKill).toEqual([
			{ deliveryId: 'qd-7000999', attempt: stranger },
		]);
	});

	test("local 2026-11-29: a run left `new` with nothing logged after its enqueuing, created 9 ms before worker1's kill, is explained", () => {
		const kill = workerKill(local);
		const run = local.runs.find((r) => r.id === '3227')!;
		expect([run.status, run.startedAt, (run.createdAt as number) - kill.killedAt]).toEqual([
			'new',
			null,
			-9,
		]);
		const verdict = judgeHardKill(local);
		expect(verdict.unexplainedRuns).toEqual([]);
		expect(verdict.extraRunsUnexplained).toEqual([]);
		expect(verdict.failuresNotAtAKill).toEqual([]);
		expect(verdict.takenAsItDied.map((t) => [t.id, t.status, t.createdAfterKillMs])).toEqual([
			['3227', 'new', -9],
		]);
	});

	test('a `new` run that left no trace is explained only within a second of the kill, enqueued, with no later line of it, and started by no worker', () => {
		const kill = workerKill(local);
		const why = (t: Timeline) =>
			judgeHardKill(t)
				.unexplainedRuns.filter((u) => u.id === '3227')
				.map((u) => u.why);
		const notIt = 'new, and not created before a kill of the webhook process';
		const at = (ms: number) => withRun(local, '3227', { createdAt: kill.killedAt + ms });
		expect(why(at(-TAKEN_AROUND_KILL_MS))).toEqual([]);
		expect(why(at(TAKEN_AROUND_KILL_MS))).toEqual([]);
		expect(why(at(-TAKEN_AROUND_KILL_MS - 1))).toEqual([notIt]);
		expect(why(at(TAKEN_AROUND_KILL_MS + 1))).toEqual([notIt]);
		// Its enqueuing must be in the webhook process's log; any later line of it is another ending.
		const webhookLogs = (change: (log: string) => string) => ({
			...local,
			webhookLogs: (local.webhookLogs ?? []).map(change),
		});
		expect(why(webhookLogs((l) => l.replace(/^Enqueued execution 3227 .*$/m, '')))).toEqual([
			notIt,
		]);
		for (const line of [
			'Execution 3227 (job 3227) finished',
			'Problem with execution 3227: Aborting. (execution 3227)',
		])
			expect(why(webhookLogs((l) => `${l}${line}\n`))).toEqual([notIt]);
		expect(
			why({
				...local,
				workerLogs: [...local.workerLogs, 'Worker started execution 3227 (job 3227)\n'],
			}),
		).toEqual([notIt]);
		expect(why(withRun(local, '3227', { startedAt: kill.killedAt - 5 }))).toEqual([notIt]);
		// Only a `new` row with no start is left so: a crashed or running one with the same lines is not.
		const stallLine = webhookLogs(
			(l) => `${l}job stalled more than maxStalledCount (execution 3227)\n`,
		);
		for (const status of ['crashed', 'running'])
			expect(
				judgeHardKill(withRun(stallLine, '3227', { status }))
					.unexplainedRuns.filter((u) => u.id === '3227')
					.map((u) => u.why),
			).toEqual(['no killed worker had started it']);
		expect(why(stallLine)).toEqual([]);
		// Only a worker's kill: the webhook process's kill alone does not explain it.
		expect(why({ ...local, kills: local.kills.filter((k) => k.process === 'webhook') })).toEqual([
			notIt,
		]);
	});

	test('the trigger\'s 503 "still running" is tied to the kill by an earlier cut attempt only, not by a later one the dying worker carried', () => {
		const kill = workerKill(ci);
		const stillRunning: DeliveryAttempt = {
			outcome: 'status',
			status: 503,
			answer: '{"error":"A workflow sharing this webhook could not take the event yet"}',
			at: kill.killedAt + 500,
			ms: 50,
		};
		const carrier: DeliveryAttempt = { outcome: 'timeout', at: kill.killedAt + 600, ms: 30_001 };
		const accepted: DeliveryAttempt = {
			outcome: 'status',
			status: 200,
			at: kill.killedAt + 31_000,
			ms: 900,
		};
		const taken: KillRun = {
			id: '3999',
			workflowId: 'n0nqdMudfq4iIPQ9',
			deliveryId: 'qd-7000900',
			status: 'error',
			startedAt: null,
			createdAt: kill.killedAt + 650,
		};
		const verdict = judgeHardKill({
			...ci,
			runs: [...ci.runs, taken],
			outcomes: { ...ci.outcomes, '3999': ci.outcomes['3227'] },
			deliveries: [
				...ci.deliveries,
				{ id: 'qd-7000900', attempts: [stillRunning, carrier, accepted] },
			],
		});
		expect(verdict.cutAttempts['qd-7000900']).toEqual([carrier]);
		expect(verdict.failuresNotAtAKill).toEqual([
			{ deliveryId: 'qd-7000900', attempt: stillRunning },
		]);
	});
});
