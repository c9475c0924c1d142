/**
 * The single-process SIGKILL soak's rules (hardKillRules.ts) bite: each is fed the timeline of a
 * real run of the soak (2026-11-26: delivery hard-kill-27, whose member run ended 0.76 s before the
 * first kill while the holder's run was cut) and then the same timeline broken the way the rule
 * exists to catch. Times are seconds from the start of the sending, as the soak reports them.
 */
import type { DeliveryAttempt } from '../fixtures/retrying-sender';
import {
	doubleRunVerdict,
	failuresSecondsAfterBack,
	killBeforeBootRun,
	killThatCut,
	type KillTime,
	type RunTimes,
} from '../support/judges/hardKillRules';

const T0 = Date.parse('2026-11-26T01:44:00.000Z');
const at = (seconds: number) => T0 + Math.round(seconds * 1000);
const iso = (seconds: number) => new Date(at(seconds)).toISOString();
const run = (id: string, status: string, from: number, to: number): RunTimes => ({
	id,
	status,
	startedAt: iso(from),
	stoppedAt: iso(to),
});
const attempt = (from: number, seconds: number, answer: number | 'dropped'): DeliveryAttempt =>
	answer === 'dropped'
		? { outcome: 'dropped', at: at(from), ms: seconds * 1000 }
		: { outcome: 'status', status: answer, at: at(from), ms: seconds * 1000 };

/** Killed at 15.0 s (back 22.9 s later) and at 42.0 s (back 24.2 s later). */
const kills: KillTime[] = [
	{ at: at(15.001), backAfterMs: 22_913 },
	{ at: at(42.0), backAfterMs: 24_222 },
];
/** Delivery hard-kill-27's attempts in that run (abridged: the 503s while n8n was down). */
const attempts27 = [
	attempt(13.07, 2.16, 'dropped'),
	attempt(15.431, 3.02, 503),
	attempt(36.536, 0.006, 503),
	attempt(40.543, 1.727, 502),
	attempt(66.292, 0.002, 503),
	attempt(70.296, 3.376, 200),
];
/** The member's two runs of it: the first ended 0.76 s before the first kill, whose cut attempt lost its answer. */
const memberRuns = [run('45', 'success', 13.232, 14.242), run('55', 'success', 71.508, 72.621)];

describe('rule 2: an event run to success again is excused only by a kill that cut the attempt that carried the earlier run', () => {
	test('the real timeline is explained, with how long before the kill the first run ended', () => {
		expect(doubleRunVerdict(memberRuns, attempts27, kills)).toEqual({
			why: null,
			endedBeforeKillSeconds: [0.759],
			startedAtBoot: [],
		});
		// In whatever order n8n lists them.
		expect(doubleRunVerdict([...memberRuns].reverse(), attempts27, kills).why).toBeNull();
	});

	test('the attempt in flight at the kill must have lost its answer, and must have carried the run', () => {
		// The attempt in flight at the kill got its 200: the service had its answer.
		const answered = [attempt(13.07, 2.16, 200), ...attempts27.slice(1)];
		expect(doubleRunVerdict(memberRuns, answered, kills).why).toMatch(
			/^its run 45 \(ended .*\) was carried by no attempt that a later kill cut$/,
		);
		// A trigger's own 503 that came back before the kill reached no run.
		const earlier503 = [attempt(13.07, 1.0, 503), ...attempts27.slice(1)];
		expect(doubleRunVerdict(memberRuns, earlier503, kills).why).toMatch(
			/was carried by no attempt that a later kill cut$/,
		);
		// The cut attempt was sent after the run had started: another attempt carried that run.
		const later = [attempt(13.5, 1.7, 'dropped'), ...attempts27.slice(1)];
		expect(doubleRunVerdict(memberRuns, later, kills).why).toMatch(
			/was carried by no attempt that a later kill cut$/,
		);
		// A kill before the run ended did not cut its answer (it would have cut the run).
		const endedAfterKill = [run('45', 'success', 14.0, 15.5), memberRuns[1]];
		expect(
			doubleRunVerdict(
				endedAfterKill,
				[attempt(13.9, 1.5, 'dropped'), ...attempts27.slice(1)],
				kills,
			).why,
		).toMatch(/was carried by no attempt that a later kill cut$/);
	});

	test('one cut attempt excuses one extra run, not two', () => {
		const thrice = [
			run('45', 'success', 13.232, 14.242),
			run('46', 'success', 13.3, 14.5),
			memberRuns[1],
		];
		expect(doubleRunVerdict(thrice, attempts27, kills).why).toMatch(
			/^its run 46 .*carried by no attempt that a later kill cut$/,
		);
		// With a second attempt cut at the same kill that carried the other run, both are excused.
		const two = [...attempts27, attempt(13.25, 2.0, 'dropped')];
		expect(doubleRunVerdict(thrice, two, kills).why).toBeNull();
	});

	test('the answer must still have been due at the kill: no idle gap over 5 s in its attempt', () => {
		// The same timeline with the member's run ending long before the kill, its attempt still
		// open and nothing of it running any more: the answer stalled (a holder sitting on a
		// finished member's answer): not excused.
		const longAttempt = [attempt(-12.0, 27.5, 'dropped'), ...attempts27.slice(1)];
		const earlyMember = [run('45', 'success', -11.8, -10.0), memberRuns[1]];
		expect(doubleRunVerdict(earlyMember, longAttempt, kills).why).toBe(
			"its run 45: the attempt carrying it sat idle 25.0 s between its runs' ends and the next start or the kill that cut it: the answer was not due",
		);
		// The holder's own run started at once after the member's and ran into the kill (cut: n8n
		// marked it crashed at its next start): the answer waited for it, so it is excused.
		const holderFrom = (from: number) => run('46', 'crashed', from, 38.5);
		const withHolder = (from: number) => [...earlyMember, holderFrom(from)];
		// A crash that started more than 10 s before the kill was not cut by it (rule 1): no excuse.
		expect(doubleRunVerdict(earlyMember, longAttempt, kills, withHolder(-9.5)).why).toMatch(
			/sat idle 24\.5 s/,
		);
		// The holder's run of the real timeline: it started 0.5 s after the member's end, cut.
		expect(
			doubleRunVerdict(memberRuns, attempts27, kills, [...memberRuns, holderFrom(14.7)]).why,
		).toBeNull();
		// The holder sat 9 s on the member's answer before starting its own run, which the kill cut.
		const stalledMember = [run('45', 'success', 4.0, 5.0), memberRuns[1]];
		const stalledAttempt = [attempt(3.9, 11.5, 'dropped'), ...attempts27.slice(1)];
		expect(
			doubleRunVerdict(stalledMember, stalledAttempt, kills, [...stalledMember, holderFrom(14.0)])
				.why,
		).toBe(
			"its run 45: the attempt carrying it sat idle 9.0 s between its runs' ends and the next start or the kill that cut it: the answer was not due",
		);
		// The holder's run ended 1.5 s before the kill, 0.3 s after the member's: n8n was saving it.
		const holderEnded = run('46', 'success', 4.3, 13.5);
		expect(
			doubleRunVerdict(stalledMember, stalledAttempt, kills, [...stalledMember, holderEnded]).why,
		).toBeNull();
	});

	test("the attempt's idle gaps at their edges: a cut run counts to the kill, runs of earlier attempts do not count, the order of the runs is n8n's", () => {
		const cut = (id: string, from: number) => run(id, 'crashed', from, 38.5);
		const open = [attempt(0.5, 15.0, 'dropped'), ...attempts27.slice(1)];
		// The holder's run started 6.5 s before the kill and was cut by it: busy up to the kill.
		const member = [run('45', 'success', 1.0, 8.0), memberRuns[1]];
		expect(doubleRunVerdict(member, open, kills, [...member, cut('46', 8.5)]).why).toBeNull();
		// A run cut by the kill that started before this attempt belongs to an earlier one: it does
		// not keep this attempt's answer due.
		const late = [attempt(6.0, 9.5, 'dropped'), ...attempts27.slice(1)];
		const early = [run('45', 'success', 6.2, 7.0), memberRuns[1]];
		expect(doubleRunVerdict(early, late, kills, [...early, cut('47', 5.5)]).why).toMatch(
			/sat idle 8\.0 s/,
		);
		// A member of the same attempt ended 8.5 s before this run started: the gap counts, in
		// whatever order n8n lists the runs.
		const second = [run('45', 'success', 10.5, 11.0), memberRuns[1]];
		const other = run('48', 'success', 1.0, 2.0);
		expect(doubleRunVerdict(second, open, kills, [...second, other]).why).toMatch(
			/sat idle 8\.5 s/,
		);
		// Exactly 5 s between the last run's end and the kill is still due; 5.001 s is not.
		const edge = (end: number) => [run('45', 'success', 1.0, end), memberRuns[1]];
		expect(doubleRunVerdict(edge(10.001), open, kills).why).toBeNull();
		expect(doubleRunVerdict(edge(10.0), open, kills).why).toMatch(/sat idle 5\.0 s/);
	});

	test('two runs after the last kill are never excused', () => {
		expect(
			doubleRunVerdict(
				[run('60', 'success', 70.4, 71.4), run('61', 'success', 71.5, 72.5)],
				attempts27,
				kills,
			).why,
		).toMatch(/after the last kill$/);
	});
});

/**
 * CI, 2026-11-26 (kills at 15.0 s and 42.0 s, n8n back 22.0 s after the second): delivery hard-kill-29's
 * attempt at 41.52 s reached n8n and was cut by the second kill; n8n started the logger's execution of it
 * at 63.97 s as it booted, with nobody to answer, and the service's next attempt ran it again. The report
 * kept no creation time then (it does now): 41.60 s is that attempt's arrival plus the holder's forward.
 */
const attempts29 = [
	attempt(13.866, 1.387, 'dropped'),
	attempt(15.459, 0.024, 503),
	attempt(37.51, 0.012, 503),
	attempt(41.523, 0.721, 'dropped'),
	attempt(62.269, 0.001, 503),
	attempt(66.276, 1.836, 200),
];
const bootRun = (created: number, from: number, to: number): RunTimes => ({
	...run('2025', 'success', from, to),
	createdAt: iso(created),
});
const loggerRuns29 = [
	bootRun(41.6, 63.973, 65.096),
	{ ...run('2029', 'success', 66.994, 68.085), createdAt: iso(66.99) },
];

describe("rule 2, n8n's own case: a request the kill cut after its execution was created is run by the next n8n as it boots", () => {
	test('the real timeline is explained, and the run is named as started at boot', () => {
		expect(killBeforeBootRun(loggerRuns29[0], kills)).toBe(kills[1]);
		expect(doubleRunVerdict(loggerRuns29, attempts29, kills)).toEqual({
			why: null,
			endedBeforeKillSeconds: [],
			startedAtBoot: ['2025'],
		});
	});

	test('without its creation time, the same timeline is not excused (what the soak saw in CI)', () => {
		const noCreatedAt = loggerRuns29.map((r) => ({ ...r, createdAt: undefined }));
		expect(doubleRunVerdict(noCreatedAt, attempts29, kills).why).toMatch(
			/^its run 2025 ended at .*, after the last kill$/,
		);
	});

	test('an execution created after the kill, or started before it, is no boot run', () => {
		expect(killBeforeBootRun(bootRun(64.0, 64.1, 65.096), kills)).toBeUndefined();
		expect(killBeforeBootRun(bootRun(41.6, 41.7, 41.9), kills)).toBeUndefined();
		expect(
			doubleRunVerdict([bootRun(64.0, 64.1, 65.096), loggerRuns29[1]], attempts29, kills).why,
		).toMatch(/after the last kill$/);
	});

	test('the boot run needs its own attempt, sent before the execution was created, that the same kill cut', () => {
		// The attempt in flight at the kill got its answer.
		const answered = attempts29.map((a) => (a.at === at(41.523) ? attempt(41.523, 0.721, 200) : a));
		expect(doubleRunVerdict(loggerRuns29, answered, kills).why).toBe(
			'its run 2025 (created before a kill, started by n8n after it) was carried by no attempt that kill cut',
		);
		// The cut attempt was sent after the execution had been created: it did not carry it.
		expect(
			doubleRunVerdict([bootRun(41.5, 63.973, 65.096), loggerRuns29[1]], attempts29, kills).why,
		).toMatch(/was carried by no attempt that kill cut$/);
		// One cut attempt cannot excuse two boot runs.
		const twoBootRuns = [
			bootRun(41.6, 63.973, 65.096),
			{ ...bootRun(41.62, 63.98, 65.2), id: '2026' },
			loggerRuns29[1],
		];
		expect(doubleRunVerdict(twoBootRuns, attempts29, kills).why).toMatch(
			/^its run 202[56] \(created before a kill, started by n8n after it\) was carried by no attempt that kill cut$/,
		);
	});
});

describe('rule 1: a run that did not succeed was cut by a kill', () => {
	test('crashed, started before a kill and at most 10 s before it', () => {
		const ages: number[] = [];
		expect(killThatCut(run('50', 'crashed', 14.3, 14.4), kills, ages)).toBe(kills[0]);
		expect(ages).toEqual([701]);
	});

	test("a node's error, a crash that started after the kill or long before it, is not a cut", () => {
		expect(killThatCut(run('51', 'error', 14.3, 14.9), kills)).toBeUndefined();
		expect(killThatCut(run('52', 'crashed', 15.2, 15.3), kills)).toBeUndefined();
		expect(killThatCut(run('53', 'crashed', 4.9, 5.0), kills)).toBeUndefined();
		expect(killThatCut({ id: '54', status: 'crashed', startedAt: null }, kills)).toBeUndefined();
	});
});

describe('rule 3: once n8n is back, the service stops seeing failures within 3 s', () => {
	const back = [15.001 + 22.913, 42.0 + 24.222];
	test('the real timeline: the 502 at 42 s belongs to the second kill; a 503 sent 0.07 s after n8n was back (before the balancer saw it ready)', () => {
		const [first, second] = failuresSecondsAfterBack(attempts27, kills);
		expect(first).toBe(0);
		expect(second).toBeCloseTo(0.072, 3);
	});

	test('a failure after n8n was back is measured to its end, per kill', () => {
		const late = [
			...attempts27,
			attempt(back[0] + 3.5, 0.5, 503),
			attempt(back[1] + 1, 0.2, 'dropped'),
		];
		const seconds = failuresSecondsAfterBack(late, kills);
		expect(seconds[0]).toBeCloseTo(4.0, 3);
		expect(seconds[1]).toBeCloseTo(1.2, 3);
		// The soak's bound is 3 s: the first would fail it.
		expect(seconds.filter((s) => s * 1000 > 3_000)).toHaveLength(1);
	});

	test('a 2xx, or a failure that ended before n8n was back, does not count', () => {
		expect(
			failuresSecondsAfterBack(
				[attempt(back[0] + 5, 1, 200), attempt(back[0] - 2, 1.5, 503)],
				kills,
			),
		).toEqual([0, 0]);
	});
});
