/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Section 7's recording of a wait (state.ts): one signed `wait` hand-off, as Send and Wait for Reply
 * sends it, to a trigger holding its account's webhook, with a given state; the trigger's answer
 * and n8n's CPU until it saved the state; then the trigger made to forget the waits it was given.
 * The state is installed first through n8n's public API (accountState.ts `writeState`; it was
 * built in the bench's process by the nodes' own code, accountState.ts `buildInProcess`), but the
 * recording itself is never built in process: it is a real hand-off to a real trigger in n8n,
 * because what it measures is n8n's save of the trigger's whole static data after it.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

import type { IDataObject } from 'n8n-workflow';

import { waitsInStaticData } from '../../nodes/shared/sendAndWait/waitingRuns';
import { readJson } from '../../test/support/repo';
import { cpuMs } from '../../test/support/stack/processes';
import { sleep, waitUntil } from '../../test/support/waitUntil';
import {
	FOREVER_WAIT,
	nodeState,
	sendSigned,
	waitRecord,
	writeState,
	type HandoffTarget,
} from './accountState';
import type { Target } from './measure';
import type { BenchStack } from './stacks';

/** The trigger the waits are recorded with: its workflow, its service target and its hand-off target. */
export interface WaitsTrigger {
	bench: BenchStack;
	waitsId: string;
	waits: Target;
	waitHandoff: HandoffTarget;
}

export interface Recording {
	answerMs: number;
	cpuMs: number;
	recorded: boolean;
	/**
	 * Waits the static data n8n saved with the recording held beyond the state it was given and the
	 * recorded one: earlier recordings' waits that the trigger's memory still held and wrote back
	 * (0 while the trigger forgets a wait whose run is gone; see recordOnce).
	 */
	extra: number;
}

/**
 * n8n's CPU time so far, ms, to the nanosecond: the kernel's run time of each of its threads (the
 * first field of /proc/<pid>/task/<tid>/schedstat). /proc/<pid>/stat counts 10 ms ticks, too
 * coarse for one recording.
 */
function cpuMsExact(pid: number): number {
	let ns = 0;
	for (const tid of readdirSync(`/proc/${pid}/task`)) {
		try {
			ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
		} catch {
			// A thread that ended meanwhile.
		}
	}
	return ns / 1e6;
}

/** Until n8n's CPU time has not moved for 200 ms (it saves the state after it answered), at least `minMs`. */
export async function untilIdle(pid: number, minMs = 300): Promise<void> {
	await sleep(minMs);
	let last = cpuMs(pid);
	for (let i = 0; i < 50; i++) {
		await sleep(200);
		const now = cpuMs(pid);
		if (now === last) return;
		last = now;
	}
}

let recordings = 0;

let messages = 0;

/** A contact's message in `chat`, as the service delivers it; must be answered 200. */
async function messageFrom(target: Target, chat: string) {
	const sample = readJson<Record<string, IDataObject>>('test', 'fixtures', 'sample-events.json')[
		'message.received'
	];
	// Ids that do not contain the chat: recordOnce looks for the chat in the trigger's state.
	const id = `${++messages}-${Date.now()}`;
	const message = {
		...(sample.message as IDataObject),
		id: `wamid.BENCHA${id}`,
		chatId: chat,
		from: `+${chat.split('@')[0]}`,
		timestamp: new Date().toISOString(),
	};
	const body = JSON.stringify({
		...sample,
		occurredAt: new Date().toISOString(),
		deliveryId: `bench-state-answer-${id}`,
		message,
	});
	const response = await fetch(target.url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'x-service-secret': target.secret },
		body,
	});
	await response.arrayBuffer();
	if (response.status !== 200)
		throw new Error(`bench: a message from ${chat} got ${response.status}`);
}

/**
 * One new wait recorded as Send and Wait records it, with `fields` as the trigger's state (cleared
 * of `keys` first) and `newest` the newest of its waits, if it has any (see the top).
 */
export async function recordOnce(
	p: WaitsTrigger,
	state: { fields: IDataObject; keys: string[]; newest?: IDataObject },
): Promise<Recording> {
	const { client, n8nPid } = p.bench.stack;
	await writeState(client, p.waitsId, state.fields, state.keys);
	// The newest wait's second hand-off (its question sent): the state is now the trigger's own
	// last write, as a holder's is between two Send and Waits, and none is added.
	const { newest } = state;
	if (newest) await sendSigned(p.waitHandoff, 'wait', JSON.stringify(newest));
	// Whatever came before has ended, also n8n's refill of its isolate pool (@n8n/expression-runtime
	// cjs/evaluator/expression-evaluator.js:69-70): as shipped, a hand-off right after the previous
	// recording's messages waited for an isolate (87 ms against 9 in a smoke run).
	await untilIdle(n8nPid);
	const n = ++recordings;
	const chat = `4917800${String(n).padStart(6, '0')}@c.us`;
	const wait = waitRecord(
		randomBytes(32),
		String(900_000 + n),
		'b3e0c1d2-0000-4000-8000-0000000070a1',
		{ chat, since: Date.now(), until: FOREVER_WAIT, questionId: null, passOn: false },
	);
	const cpuBefore = cpuMsExact(n8nPid);
	const { answer, ms } = await sendSigned(p.waitHandoff, 'wait', JSON.stringify(wait));
	await untilIdle(n8nPid);
	const cpu = cpuMsExact(n8nPid) - cpuBefore;
	const recorded = answer.recorded === true;
	const saved = Object.keys(waitsInStaticData(await nodeState(client, p.waitsId))).length;
	const sample = {
		answerMs: ms,
		cpuMs: cpu,
		recorded,
		extra: saved - Object.keys(waitsInStaticData(state.fields)).length - (recorded ? 1 : 0),
	};
	// The recorded wait, and the newest one, which the trigger's memory now holds too (its write
	// above), would stay in memory into the next recording, at any size: its contact's message
	// makes the trigger drop each.
	const drop = [...(sample.recorded ? [chat] : []), ...(newest ? [String(newest.chat)] : [])];
	for (const dropped of drop) await messageFrom(p.waits, dropped);
	// No longer live in what n8n saved, as the nodes' code reads static data: gone (a trigger that
	// forgets such a wait) or ended (one that keeps an ended wait a while, so that no other process's
	// copy brings it back; it then stays in the trigger's memory too, which `extra` shows).
	const live = async () => {
		const now = Date.now();
		const waits = Object.values(waitsInStaticData(await nodeState(client, p.waitsId)));
		return waits
			.filter((w) => drop.includes(w.chat) && !w.resumedBy && w.until > now)
			.map((w) => w.chat);
	};
	await waitUntil(
		'the trigger to drop the waits',
		async () => ((await live()).length === 0 ? true : undefined),
		{ timeoutMs: 10_000, intervalMs: 200 },
	).catch(async () => {
		throw new Error(
			`bench: the trigger still holds the waits in ${(await live()).join(', ')} as live after n8n answered their resume 404: the next recording would not meet the state it is measured at`,
		);
	});
	return sample;
}
