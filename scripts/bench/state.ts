/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Section 7, cost as the account's state grows (issue 32): what a published Messaging Relay
 * Trigger that holds its account's webhook costs per delivery as its state grows, and what
 * recording one more wait costs, each against the same trigger with an empty state, as ratios.
 *   - deliveries: events that neither answer a wait nor meet a pause (a `message.received` from a
 *     chat nobody waits on and nobody paused, and a `number.disconnected`, which no chat rule
 *     reads) to trigger v3 (the default) with "Pause When a Person Replies" on, its static data
 *     holding 0, BENCH_STATE_WAITS (1,000 and 10,000) open waits, BENCH_STATE_PAUSED (1,000 and
 *     10,000) paused chats, and the most waits with the most paused chats together: n8n's CPU per delivery
 *     (/proc/<pid>/stat, to the end of the runs) and the service's wait for the answer, p50. Two
 *     deliveries of each event after every change of state are not counted (the trigger has read
 *     its state once, as it has at any time but the first delivery after a write), and counting
 *     starts once n8n is idle again (its API's save starts work of its own).
 *   - recording a wait: the signed `wait` hand-off that Send and Wait for Reply sends every
 *     trigger of the account before its question (nodes/MessagingRelay/actions/sendAndWait.ts
 *     `recordWithTriggers` → accountTriggers.ts `tellAllTriggers` → peerClient.ts `sendHandoff`),
 *     to a second trigger holding an account of its own, with none and with one less than the most
 *     waits (so that the recorded one is the most-th): the trigger's answer (what the run waits
 *     for) and n8n's CPU until it has saved the state (the threads' run time, /proc/<pid>/task/<tid>/
 *     schedstat; n8n answers first: the trigger writes its answer itself, n8n then calls back,
 *     webhooks/webhook-helpers.js:590-594, and only then saves the static data,
 *     live-webhooks.js:144-147). Before each, the state is written again and the trigger gets its
 *     newest wait's second hand-off (with the question's id, as Send and Wait sends it once it
 *     asked), so that the state is the trigger's own last write, as a holder's is between two Send
 *     and Waits; after it, the contacts' messages make the trigger drop the recorded wait and that
 *     newest one (their runs do not exist: n8n answers the resume 404, waiting-webhooks.js:190-191),
 *     so that the trigger's memory keeps neither into the next recording (that trigger selects only
 *     number.disconnected, so those messages start no run: see prepare).
 * How the state is made and written: accountState.ts. In short: built in this process by the
 * nodes' own code (waitingRuns.ts `recordWait`, chatPause.ts `applyPauseCommand`, as the trigger
 * runs them on the `wait` and `pause` hand-offs), checked once at BENCH_STATE_CHECK (200) waits and
 * pauses against the same sent as signed hand-offs to a trigger in n8n, and written into the
 * measured triggers' static data through n8n's public API. It was built through the hand-offs at
 * every size before; at 10,000 waits and 10,000 pauses that is 20,000 saves by n8n of a static data
 * growing to about 3.5 MB, which n8n's SQLite writer could not keep up with (lock timeouts, then a
 * dropped connection after 29 minutes). A recording (stateRecording.ts) still goes through a real
 * hand-off to a trigger in n8n, with the state installed first: n8n's save is what it measures.
 * Settings and sizes alternate by rounds; medians of the rounds.
 */
import type { IDataObject } from 'n8n-workflow';

import { anyRunning } from '../../test/support/executions';
import { cpuMs } from '../../test/support/stack/processes';
import { say } from '../../test/support/stack/runtime';
import { waitUntil } from '../../test/support/waitUntil';
import { createWorkflow, productionUrl, triggerWorkflowData } from '../../test/support/workflows';
import {
	buildInProcess,
	buildStates,
	handoffTarget,
	newPlan,
	nodeState,
	sameStates,
	writeState,
	type BuiltStates,
} from './accountState';
import { DEFAULT_VERSION } from './inbound';
import { median, medians, postDeliveries, round, type LoadResult, type Target } from './measure';
import { fromEnv } from './settings';
import { benchWebhookId, type BenchStack } from './stacks';
import { recordOnce, untilIdle, type Recording, type WaitsTrigger } from './stateRecording';
import { pair, ratio, type Row } from './table';

const PAUSE_OPTION = { pauseWhenPersonReplies: { settings: { minutes: 30 } } };

interface StateSize {
	waits: number;
	paused: number;
}

interface Prepared extends WaitsTrigger {
	/** The trigger the deliveries go to, its state grown. */
	deliveriesId: string;
	deliveries: Target;
}

const fmt = (n: number) => n.toLocaleString('en-US');
const describe = ({ waits, paused }: StateSize) =>
	[waits ? `${fmt(waits)} open waits` : '', paused ? `${fmt(paused)} paused chats` : '']
		.filter(Boolean)
		.join(' and ') || 'none';
const sizeKey = ({ waits, paused }: StateSize) => `${waits}/${paused}`;
const append = <K, V>(map: Map<K, V[]>, key: K, value: V) =>
	map.set(key, [...(map.get(key) ?? []), value]);
const fieldsFor = (built: BuiltStates, { waits, paused }: StateSize): IDataObject => ({
	...(waits ? built.waits.get(waits) : {}),
	...(paused ? built.paused.get(paused) : {}),
});
const kib = (fields: IDataObject) => round(JSON.stringify(fields).length / 1024, 0);

/** Publishes a trigger (version 3) on the key's account; its workflow id once it holds the account's webhook. */
async function publishTrigger(
	bench: BenchStack,
	name: string,
	apiKey: string,
	n: number,
	events: string[],
	options?: IDataObject,
): Promise<string> {
	const credential = await bench.credential(name, apiKey);
	const id = await createWorkflow(
		bench.stack.client,
		triggerWorkflowData({
			name: `bench: ${name}`,
			credential,
			webhookId: benchWebhookId(n),
			events,
			typeVersion: DEFAULT_VERSION,
			options,
		}),
	);
	await bench.stack.client.publish(id);
	// Published, it holds the webhook: its registration and account key are in its static data.
	await waitUntil(
		`${name} to hold its account's webhook`,
		async () => {
			const own = await nodeState(bench.stack.client, id);
			return own.webhookUrl && own.shareKey ? true : undefined;
		},
		{ timeoutMs: 30_000, intervalMs: 250 },
	);
	return id;
}

async function registered(
	bench: BenchStack,
	account: string,
): Promise<{ url: string; secret: string }> {
	const webhook = (await bench.simulator.webhooks())[account];
	if (!webhook?.url || !webhook.secret)
		throw new Error(`bench: ${account} has no webhook registered`);
	return { url: webhook.url, secret: webhook.secret };
}

async function prepare(bench: BenchStack): Promise<Prepared> {
	const deliveriesId = await publishTrigger(
		bench,
		'state account',
		'sim-key-bench-state',
		12,
		['message.received', 'number.disconnected'],
		PAUSE_OPTION,
	);
	// It selects no message: a message it reads (the one before a recording, the contact's answer
	// after it) starts no run, so n8n saves what the trigger changed. A request that starts a run
	// does not save the trigger's change in n8n 2.41.1: WorkflowRunner.run builds a second Workflow
	// on the same static data object (workflow-runner.js:268 → :244-252), whose constructor resets
	// its `__dataChanged` (n8n-workflow workflow.js:94, observable-object.js:19-22), so
	// live-webhooks.js:147 finds nothing to save.
	const waitsId = await publishTrigger(
		bench,
		'state wait account',
		'sim-key-bench-state-wait',
		13,
		['number.disconnected'],
	);
	const waits = await registered(bench, 'acct_bench_state_wait');
	return {
		bench,
		deliveriesId,
		deliveries: {
			url: productionUrl(bench.stack.n8nUrl, benchWebhookId(12)),
			secret: (await registered(bench, 'acct_bench_state')).secret,
		},
		waitsId,
		waits: { url: productionUrl(bench.stack.n8nUrl, benchWebhookId(13)), secret: waits.secret },
		// Where the action node sends it: the registered URL's origin and the holder's path.
		waitHandoff: handoffTarget(waits.url, 'sim-key-bench-state-wait'),
	};
}

/** The lazy-acquire n8n if it runs (the fastest), else the legacy one, else the first. */
const fastest = (stacks: BenchStack[]) =>
	stacks.find((s) => s.setting.key === 'lazy') ??
	stacks.find((s) => s.setting.key === 'legacy') ??
	stacks[0];

/**
 * The states, built once in this process by the nodes' own code (accountState.ts `buildInProcess`),
 * the trigger's "Pause When a Person Replies" that of the measured triggers; then the cross-check.
 */
async function build(
	stacks: BenchStack[],
	waitCounts: number[],
	pausedCounts: number[],
): Promise<BuiltStates> {
	const built = buildInProcess(
		newPlan(Math.max(0, ...waitCounts)),
		waitCounts,
		pausedCounts,
		PAUSE_OPTION.pauseWhenPersonReplies,
	);
	const waits = [...built.waits].map(([n, f]) => `${fmt(n)} waits ${fmt(kib(f))} KiB`);
	const paused = [...built.paused].map(([n, f]) => `${fmt(n)} paused chats ${fmt(kib(f))} KiB`);
	say(
		`   built in this process in ${round(built.seconds, 1)} s: ${[...waits, ...paused].join(', ')}; fields ${built.keys.join(', ')}; refused ${built.refused.waits} waits, ${built.refused.paused} pauses`,
	);
	await crossCheck(stacks);
	return built;
}

/**
 * BENCH_STATE_CHECK (200) waits and as many pauses sent as signed hand-offs to a builder trigger
 * (on an account of its own, "Pause When a Person Replies" on) in one n8n, BENCH_STATE_BUILD_CONCURRENCY
 * (1) at a time, and built in this process from the same plan: throws unless the fields n8n then
 * holds are the in-process build's and decode to the same waits and paused chats (accountState.ts
 * `sameStates`). 0 skips it.
 */
async function crossCheck(stacks: BenchStack[]): Promise<void> {
	const size = fromEnv('BENCH_STATE_CHECK', 200);
	if (!(size > 0)) return;
	const bench = fastest(stacks);
	const concurrency = fromEnv('BENCH_STATE_BUILD_CONCURRENCY', 1);
	say(
		`   cross-check in ${bench.setting.label}: ${fmt(size)} wait and ${fmt(size)} pause hand-offs to a trigger, ${concurrency} at a time, against the same built in this process`,
	);
	const builderId = await publishTrigger(
		bench,
		'state builder account',
		'sim-key-bench-state-build',
		14,
		['message.received'],
		PAUSE_OPTION,
	);
	const target = handoffTarget(
		(await registered(bench, 'acct_bench_state_build')).url,
		'sim-key-bench-state-build',
	);
	const plan = newPlan(size);
	const sent = await buildStates(
		bench.stack.client,
		builderId,
		target,
		plan,
		[size],
		[size],
		concurrency,
	);
	// The builder's part is done; unpublished, n8n stops it (its registration is removed).
	await bench.stack.client.unpublish(builderId);
	const compared = sameStates(
		buildInProcess(plan, [size], [size], PAUSE_OPTION.pauseWhenPersonReplies),
		sent,
	);
	say(
		`   the same in n8n (${round(sent.seconds, 0)} s of hand-offs) as in this process: ${compared}; fields ${sent.keys.join(', ')}`,
	);
}

async function runsEnded(bench: BenchStack) {
	await waitUntil('the runs to end', async () => !(await anyRunning(bench.stack.client)), {
		timeoutMs: 120_000,
		intervalMs: 100,
	});
}

/** A list of sizes from the environment (comma-separated), or the default. */
const counts = (name: string, fallback: string) =>
	(process.env[name] ?? fallback)
		.split(',')
		.map(Number)
		.filter((n) => n > 0);

/** The sizes measured: none, each count of waits, each count of paused chats, and the most of both together. */
function sizes(): { states: StateSize[]; most: number; pausedCounts: number[] } {
	const waits = counts('BENCH_STATE_WAITS', '1000,10000');
	const pausedCounts = counts('BENCH_STATE_PAUSED', '1000,10000');
	const most = Math.max(0, ...waits);
	const mostPaused = Math.max(0, ...pausedCounts);
	const states: StateSize[] = [
		{ waits: 0, paused: 0 },
		...waits.map((w) => ({ waits: w, paused: 0 })),
		...pausedCounts.map((p) => ({ waits: 0, paused: p })),
	];
	if (most > 0 && mostPaused > 0) states.push({ waits: most, paused: mostPaused });
	return { states, most, pausedCounts };
}

/**
 * BENCH_STATE_DELIVERIES (40) deliveries per state, event and round, BENCH_STATE_CONCURRENCY (1) at
 * a time, after BENCH_STATE_WARMUP (10) of each event; BENCH_STATE_RECORDS (5) waits recorded per
 * size and round; BENCH_STATE_ROUNDS (3) rounds; BENCH_STATE_EVENTS (message.received,number.disconnected);
 * BENCH_STATE_CHECK (200) waits and pauses in the cross-check of the build, BENCH_STATE_BUILD_CONCURRENCY
 * (1) of its hand-offs at a time;
 * BENCH_STATE_VERBOSE=1 prints every batch.
 */
export async function measureAccountState(stacks: BenchStack[]): Promise<Row[]> {
	const { states, most, pausedCounts } = sizes();
	const recordAt = most > 1 ? [0, most - 1] : [0];
	const events = (process.env.BENCH_STATE_EVENTS ?? 'message.received,number.disconnected')
		.split(',')
		.map((e) => e.trim());
	const deliveries = fromEnv('BENCH_STATE_DELIVERIES', 40);
	const concurrency = fromEnv('BENCH_STATE_CONCURRENCY', 1);
	const records = fromEnv('BENCH_STATE_RECORDS', 5);
	const rounds = fromEnv('BENCH_STATE_ROUNDS', 3);
	say(
		`7. state: ${states.map(describe).join('; ')}; ${events.join(', ')}: ${deliveries} deliveries each per round, ${concurrency} at a time; ${records} waits recorded at ${recordAt.map(fmt).join(' and ')} open waits per round; ${rounds} rounds`,
	);
	const built = await build(stacks, [...states.map((s) => s.waits), ...recordAt], pausedCounts);
	const prepared: Prepared[] = [];
	for (const bench of stacks) prepared.push(await prepare(bench));
	const loads = new Map(prepared.map((p) => [p, new Map<string, LoadResult[]>()]));
	const recorded = new Map(prepared.map((p) => [p, new Map<number, Recording[]>()]));

	// Round -1 warms up (BENCH_STATE_WARMUP deliveries of each event, one recording per size).
	for (let r = -1; r < rounds; r++) {
		for (const p of r % 2 ? prepared : [...prepared].reverse()) {
			const { client, n8nPid } = p.bench.stack;
			// The order turns every round, so that drift of the machine hits every size alike.
			for (const size of r % 2 ? [...states].reverse() : states) {
				await writeState(client, p.deliveriesId, fieldsFor(built, size), built.keys);
				for (const type of events)
					await postDeliveries([p.deliveries], 2, { type, concurrency: 1 });
				await runsEnded(p.bench);
				// n8n's own work after a save through its API has ended (workflow-saved listeners, e.g.
				// modules/workflow-index/workflow-index.service.js:41-43), before the counted deliveries.
				await untilIdle(n8nPid);
				for (const type of events) {
					const count = r < 0 ? fromEnv('BENCH_STATE_WARMUP', 10) : deliveries;
					const cpuBefore = cpuMs(n8nPid);
					const result = await postDeliveries([p.deliveries], count, { type, concurrency });
					await runsEnded(p.bench);
					const cpuMsPer = (cpuMs(n8nPid) - cpuBefore) / count;
					if (process.env.BENCH_STATE_VERBOSE)
						say(
							`   round ${r + 1}, ${p.bench.setting.key}, ${type}, ${describe(size)}: CPU ${round(cpuMsPer, 1)} ms per delivery, p50 ${round(result.p50)} ms`,
						);
					if (r >= 0)
						append(loads.get(p) as Map<string, LoadResult[]>, `${type} ${sizeKey(size)}`, {
							...result,
							cpuMsPer,
						});
				}
			}
			for (const waits of r % 2 ? [...recordAt].reverse() : recordAt) {
				for (let i = 0; i < (r < 0 ? 1 : records); i++) {
					const sample = await recordOnce(p, {
						fields: fieldsFor(built, { waits, paused: 0 }),
						keys: built.keys,
						newest: built.newest.get(waits),
					});
					if (r >= 0) append(recorded.get(p) as Map<number, Recording[]>, waits, sample);
				}
			}
		}
		if (r >= 0) say(`   round ${r + 1} of ${rounds} done`);
	}
	return rows(prepared, { states, recordAt, events, concurrency, built, loads, recorded });
}

interface Results {
	states: StateSize[];
	recordAt: number[];
	events: string[];
	concurrency: number;
	built: BuiltStates;
	loads: Map<Prepared, Map<string, LoadResult[]>>;
	recorded: Map<Prepared, Map<number, Recording[]>>;
}

function rows(
	prepared: Prepared[],
	{ states, recordAt, events, concurrency, built, loads, recorded }: Results,
): Row[] {
	const [empty, ...grown] = states;
	const at = concurrency === 1 ? 'one at a time' : `${concurrency} at once`;
	const what: Record<string, string> = {
		'message.received': 'a message.received from a chat nobody waits on or paused',
		'number.disconnected': 'a number.disconnected (no chat)',
	};
	const refusedNote =
		built.refused.waits || built.refused.paused
			? `; building it, the trigger's code refused ${fmt(built.refused.waits)} waits and ${fmt(built.refused.paused)} pauses`
			: '';
	const out: Row[] = [];
	for (const type of events) {
		for (const size of grown) {
			const row: Row = {
				section: 7,
				label: `${what[type] ?? type} to trigger v${DEFAULT_VERSION} ("Pause When a Person Replies" on, holding the webhook), ${at}: n8n's CPU per delivery / latency p50, ms, with ${describe(size)} (${fmt(kib(fieldsFor(built, size)))} KiB of static data${refusedNote}) vs none`,
				bySetting: {},
			};
			for (const p of prepared) {
				const m = (s: StateSize) =>
					medians((loads.get(p) as Map<string, LoadResult[]>).get(`${type} ${sizeKey(s)}`) ?? []);
				const [g, e] = [m(size), m(empty)];
				say(
					`   ${p.bench.setting.label}, ${type}, ${describe(size)}: CPU ${round(g.cpuMsPer, 2)} vs ${round(e.cpuMsPer, 2)} ms, p50 ${round(g.p50)} vs ${round(e.p50)} ms`,
				);
				row.bySetting[p.bench.setting.key] = [
					pair(g.cpuMsPer, g.p50),
					pair(e.cpuMsPer, e.p50),
					`${ratio(g.cpuMsPer, e.cpuMsPer)} / ${ratio(g.p50, e.p50)}`,
				];
			}
			out.push(row);
		}
	}
	const full = recordAt[recordAt.length - 1];
	if (full > 0) {
		const samples = prepared.flatMap(
			(p) => (recorded.get(p) as Map<number, Recording[]>).get(full) ?? [],
		);
		const refused = samples.filter((s) => !s.recorded).length;
		const extra = Math.max(
			0,
			...prepared.flatMap((p) =>
				[...(recorded.get(p) as Map<number, Recording[]>).values()].flat().map((s) => s.extra),
			),
		);
		const row: Row = {
			section: 7,
			label: `recording a wait (Send and Wait's signed "wait" hand-off to the trigger holding the webhook): its answer / n8n's CPU until it saved the state, ms, the ${fmt(full + 1)}th wait (${fmt(full)} open) vs the first${refused ? ` (${refused} of ${samples.length} refused by the trigger)` : ''}${extra ? ` (the saved state held up to ${fmt(extra)} ended waits of earlier recordings besides, kept in the trigger's memory)` : ''}`,
			bySetting: {},
		};
		for (const p of prepared) {
			const of = (waits: number) => {
				const list = (recorded.get(p) as Map<number, Recording[]>).get(waits) ?? [];
				return {
					answer: median(list.map((s) => s.answerMs)),
					cpu: median(list.map((s) => s.cpuMs)),
				};
			};
			const [g, e] = [of(full), of(0)];
			say(
				`   ${p.bench.setting.label}, recording the ${fmt(full + 1)}th wait: answer ${round(g.answer)} vs ${round(e.answer)} ms, CPU ${round(g.cpu)} vs ${round(e.cpu)} ms`,
			);
			row.bySetting[p.bench.setting.key] = [
				pair(g.answer, g.cpu),
				pair(e.answer, e.cpu),
				`${ratio(g.answer, e.answer)} / ${ratio(g.cpu, e.cpu)}`,
			];
		}
		out.push(row);
	}
	return out;
}
