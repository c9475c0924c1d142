/**
 * What the single-process SIGKILL soak accepts (hardKill.e2e.ts), as pure functions of what it saw:
 * n8n's executions (status, startedAt, stoppedAt), the sender's attempts per delivery and the kills.
 * Kept apart from the soak so that each rule is shown to bite on a timeline that breaks it
 * (hardKillRules.test.ts), which the soak itself cannot do: n8n decides its own timing.
 *
 *   1. A run that did not succeed was cut by a kill: n8n marked it `crashed` at its next start
 *      (execution-recovery.service.js:115-166) and it started before that kill, at most
 *      CUT_RUN_MS earlier. A node's own error (`error`) is never excused.
 *   2. An event that ran to success more than once in a workflow did so because the service never
 *      got the answer of the attempt that carried the earlier run: each run but the last is matched
 *      to its own attempt of that delivery that was sent before the run started and was still in
 *      flight at a kill that came after the run ended, and that did not get a 2xx (dropped, or
 *      HAProxy's 502/503 for a request whose n8n died). Nothing else excuses a second run: not a
 *      kill nearby, not an attempt that got its answer, not one sent after the run had started,
 *      not the same cut attempt twice. And the answer must still have been due at the kill: the
 *      service's answer to an attempt goes out after the last run of the delivery that attempt
 *      started (a member's, then the holder's own, "When the Workflow Finishes") has ended and been
 *      saved. So the runs that attempt started follow each other up to the kill with no idle gap
 *      over ANSWER_DUE_MS (n8n saving a run before the next step): the last was cut by the kill
 *      (rule 1: the holder's run, say, still going) or ended at most that long before it. A gap
 *      anywhere is the answer stalling (a holder that sat 25 s on a finished member's answer, say),
 *      and is not excused.
 *      (The first version bounded the gap for every run, 2 s; CI failed on it once, 2026-11-26,
 *      with no timeline kept: a member whose run ended while the holder's own run went on.)
 *      One more way n8n runs an event a second time, its own: a request whose execution n8n had
 *      created (status `new`) but not started when the kill came is started by the next n8n as it
 *      boots (EnqueuedExecutionRecoveryService, n8n 2.41.1 commands/start.js:313-315,
 *      executions/enqueued-execution-recovery.service.js:36-63), with nobody left to answer: the
 *      service, without its 2xx, delivers again and the event runs again (CI 2026-11-26, "hard-kill
 *      logger hard-kill-29"). Its exact signature: the execution was created before a kill and
 *      started after it (no process that lived through a kill can start it). It is excused only with
 *      its own attempt, sent before the execution was created and cut by that same kill, and
 *      counted apart (`startedAtBoot`).
 *   3. Once n8n is back behind the balancer, the service stops seeing failures within
 *      FAILING_AFTER_BACK_MS (the balancer puts n8n back after one good readiness check, every
 *      500 ms: an attempt meanwhile gets HAProxy's 503).
 */
import type { DeliveryAttempt } from '../../fixtures/retrying-sender';

/** A run the kill cut started at most this long before it: each run waits 1 s; its start and save take a few seconds more under the soak's load on 2 cores. */
export const CUT_RUN_MS = 10_000;
/** The service may still see failures this long after n8n serves again (restartN8n's readiness wait). */
export const FAILING_AFTER_BACK_MS = 3_000;
/**
 * Between a run's end and what comes next for its attempt (the holder's own run after a member's, or
 * the answer after the last run) n8n only saves the run: this long at most, under the soak's load.
 */
export const ANSWER_DUE_MS = 5_000;
/** n8n's stoppedAt and the test's clock are the same clock, but n8n stores milliseconds after its own work: this much slack. */
const CLOCK_SLACK_MS = 200;

export interface KillTime {
	/** When SIGKILL was sent (ms since epoch). */
	at: number;
	/** How long until n8n served again. */
	backAfterMs: number;
}

export interface RunTimes {
	id: string;
	status: string;
	/** When n8n created the execution (status `new`); only the single-execution route gives it. */
	createdAt?: string | null;
	startedAt?: string | null;
	stoppedAt?: string | null;
}

/** The kill whose request n8n ran at its next start: the execution was created before that kill and started after it. */
export function killBeforeBootRun(run: RunTimes, kills: KillTime[]): KillTime | undefined {
	if (!run.createdAt || !run.startedAt) return undefined;
	const created = Date.parse(run.createdAt);
	const started = Date.parse(run.startedAt);
	return kills.find((k) => created <= k.at && started > k.at);
}

/** Whether the attempt failed as the service sees it: no 2xx (a drop, a refusal, a time-out, or any other status). */
const failedAttempt = (a: DeliveryAttempt) => a.outcome !== 'status' || (a.status ?? 0) >= 300;

/** The kill that cut this run (rule 1), or undefined. `ages` collects how long before the kill each cut run started. */
export function killThatCut(
	run: RunTimes,
	kills: KillTime[],
	ages?: number[],
): KillTime | undefined {
	if (run.status !== 'crashed' || !run.startedAt) return undefined;
	const started = Date.parse(run.startedAt);
	const kill = kills.find((k) => started <= k.at && k.at - started <= CUT_RUN_MS);
	if (kill) ages?.push(kill.at - started);
	return kill;
}

/** Whether the attempt was cut by the kill at `killAt`: in flight at it, and no 2xx (a drop, or HAProxy's 502/503 for a request whose n8n died). */
const cutBy = (a: DeliveryAttempt, killAt: number) =>
	a.at <= killAt && a.at + a.ms >= killAt && (a.outcome !== 'status' || (a.status ?? 0) >= 500);

/**
 * Rule 2 for one (workflow, delivery) with more than one successful run, in any order: each run but
 * the last is matched to a distinct cut attempt that carried it. Returns null when every one is, else
 * why not, and per matched run how long before its kill it ended (seconds).
 */
export function doubleRunVerdict(
	succeeded: RunTimes[],
	attempts: DeliveryAttempt[],
	kills: KillTime[],
	/** Every run of this delivery, in every workflow (the holder's, the members'): what its answer waited for. */
	deliveryRuns: RunTimes[] = succeeded,
): { why: string | null; endedBeforeKillSeconds: number[]; startedAtBoot: string[] } {
	const runs = [...succeeded].sort((a, b) => Date.parse(a.stoppedAt!) - Date.parse(b.stoppedAt!));
	const used = new Set<DeliveryAttempt>();
	const endedBeforeKillSeconds: number[] = [];
	const startedAtBoot: string[] = [];
	for (const run of runs.slice(0, -1)) {
		const started = Date.parse(run.startedAt!);
		const ended = Date.parse(run.stoppedAt!);
		// n8n's boot ran the execution a cut request had created: excused by that request's own attempt.
		const bootKill = killBeforeBootRun(run, kills);
		if (bootKill) {
			const created = Date.parse(run.createdAt!);
			const carrier = attempts.find(
				(a) => !used.has(a) && a.at <= created && cutBy(a, bootKill.at),
			);
			if (!carrier) {
				return {
					why: `its run ${run.id} (created before a kill, started by n8n after it) was carried by no attempt that kill cut`,
					endedBeforeKillSeconds,
					startedAtBoot,
				};
			}
			used.add(carrier);
			startedAtBoot.push(run.id);
			continue;
		}
		let match: { attempt: DeliveryAttempt; kill: KillTime } | undefined;
		let stalled: string | undefined;
		for (const kill of kills.filter((k) => k.at >= ended - CLOCK_SLACK_MS)) {
			const attempt = attempts.find((a) => !used.has(a) && a.at <= started && cutBy(a, kill.at));
			if (!attempt) continue;
			stalled = answerNotDue(run, attempt, kill, deliveryRuns);
			if (!stalled) {
				match = { attempt, kill };
				break;
			}
		}
		if (!match) {
			const why = stalled
				? stalled
				: kills.some((k) => k.at >= ended - CLOCK_SLACK_MS)
					? `its run ${run.id} (ended ${run.stoppedAt}) was carried by no attempt that a later kill cut`
					: `its run ${run.id} ended at ${run.stoppedAt}, after the last kill`;
			return { why, endedBeforeKillSeconds, startedAtBoot };
		}
		used.add(match.attempt);
		endedBeforeKillSeconds.push((match.kill.at - ended) / 1000);
	}
	return { why: null, endedBeforeKillSeconds, startedAtBoot };
}

/**
 * Rule 2's last condition: null when the attempt's answer was still due at the kill, else why not.
 * The runs the attempt started (a member's, then the holder's own) follow each other with no idle
 * gap over ANSWER_DUE_MS, and the last ran into the kill (cut by it) or ended at most that long
 * before it. A longer gap anywhere is the answer stalling in our code, not n8n's work.
 */
function answerNotDue(
	run: RunTimes,
	attempt: DeliveryAttempt,
	kill: KillTime,
	deliveryRuns: RunTimes[],
): string | undefined {
	const spans = [run, ...deliveryRuns.filter((r) => r.id !== run.id)]
		.filter((r) => r.startedAt && Date.parse(r.startedAt) >= attempt.at - CLOCK_SLACK_MS)
		.filter((r) => Date.parse(r.startedAt!) <= kill.at)
		.map((r) => {
			const from = Date.parse(r.startedAt!);
			// A cut run ran into the kill; a crashed one it did not cut says nothing of when it ended.
			if (killThatCut(r, [kill]) === kill) return { from, to: kill.at };
			return { from, to: r.status === 'success' && r.stoppedAt ? Date.parse(r.stoppedAt) : from };
		})
		.sort((a, b) => a.from - b.from);
	let covered = spans[0].from;
	let widest = 0;
	for (const span of spans) {
		widest = Math.max(widest, span.from - covered);
		covered = Math.max(covered, span.to);
	}
	widest = Math.max(widest, kill.at - covered);
	if (widest <= ANSWER_DUE_MS) return undefined;
	return `its run ${run.id}: the attempt carrying it sat idle ${(widest / 1000).toFixed(1)} s between its runs' ends and the next start or the kill that cut it: the answer was not due`;
}

/**
 * Rule 3: per kill, seconds from n8n being back to the end of the last failed attempt, counted until
 * the next kill (an attempt that kill cut ends after it and belongs to it).
 */
export function failuresSecondsAfterBack(attempts: DeliveryAttempt[], kills: KillTime[]): number[] {
	return kills.map((k, i) => {
		const back = k.at + k.backAfterMs;
		const until = kills[i + 1]?.at ?? Infinity;
		const ends = attempts
			.filter((a) => failedAttempt(a) && a.at + a.ms >= back && a.at + a.ms < until)
			.map((a) => a.at + a.ms);
		return ends.length ? (Math.max(...ends) - back) / 1000 : 0;
	});
}
