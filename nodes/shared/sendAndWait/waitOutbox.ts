import type { INode } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { sendHandoff, type PeerAnswer, type ShareContext } from '../sharedWebhook/peerClient';
import { allMembers, type Registration } from '../sharedWebhook/registeredUrl';
import {
	WAITS_PER_HANDOFF,
	type Wait,
	type WaitBatch,
	type WaitBatchAnswer,
} from '../protocol/wait';
import { waitIdOf } from './waitingRuns';
import { memorySlot } from '../processMemory';

/**
 * This process's outbox of waits for one registration (docs/design/conversations-at-scale.md, "Recording a
 * wait"): every Send and Wait of the process puts its wait here and is answered once the holder has it in the
 * database. One `wait` hand-off is in flight per registration; the waits that arrive meanwhile go in the next,
 * which also asks the holder whether the previous ones are in the static data it loaded (the confirm). So a
 * campaign's runs share hand-offs and saves, and one run alone makes two, as before.
 */

/** Why a wait could not be recorded, in the words the node's error shows. */
export class WaitNotRecorded extends Error {
	constructor(
		readonly reason: 'capacity' | 'holder' | 'confirm',
		message: string,
		readonly figures: { capacity?: number; waiting?: number; checked?: number } = {},
	) {
		super(message);
	}
}

interface Pending {
	wait: Wait;
	id: string;
	context: ShareContext;
	resolve(others: number): void;
	reject(error: Error): void;
	/** Confirms asked so far; how many other waits its chat has. */
	confirms: number;
	others: number;
}

/** How many times a recorded wait is asked about before the node gives up (each one not found is written again). */
const CONFIRM_TRIES = 5;
/** How long a hand-off answered 503 (n8n busy saving) is tried again before the node fails, and the pauses. */
const RETRY_FOR_MS = 120_000;
const FIRST_PAUSE_MS = 500;

class Outbox {
	private readonly fresh: Pending[] = [];
	private readonly recorded: Pending[] = [];
	/** Rows to end, with the context that asked and who waits for the hand-off that carries them. */
	private readonly ends = new Map<string, { context: ShareContext; done: Array<() => void> }>();
	private running = false;

	constructor(
		private readonly key: string,
		private registration: Registration,
	) {}

	record(context: ShareContext, wait: Wait, registration: Registration): Promise<number> {
		this.registration = registration;
		return new Promise<number>((resolve, reject) => {
			this.fresh.push({
				wait,
				id: waitIdOf(wait),
				context,
				resolve,
				reject,
				confirms: 0,
				others: 0,
			});
			this.pump();
		});
	}

	/** Ends rows (their question was not sent); best effort: resolved once a hand-off carried them. */
	async end(context: ShareContext, ids: string[]): Promise<void> {
		const carried = ids.map(
			async (id) =>
				await new Promise<void>((resolve) => {
					const known = this.ends.get(id);
					if (known) known.done.push(resolve);
					else this.ends.set(id, { context, done: [resolve] });
				}),
		);
		this.pump();
		await Promise.all(carried);
	}

	private ended(ids: string[]) {
		for (const id of ids) {
			for (const resolve of this.ends.get(id)?.done ?? []) resolve();
			this.ends.delete(id);
		}
	}

	private pump() {
		if (this.running) return;
		this.running = true;
		void this.drain().finally(() => {
			this.running = false;
			if (this.fresh.length || this.recorded.length || this.ends.size) this.pump();
		});
	}

	/** A context of a run still waiting on this outbox: the hand-off goes out with it. */
	private liveContext(): ShareContext | undefined {
		return (this.recorded[0] ?? this.fresh[0])?.context ?? this.ends.values().next().value?.context;
	}

	private async drain() {
		while (this.fresh.length || this.recorded.length || this.ends.size) {
			const context = this.liveContext();
			if (!context) return;
			const waits = this.fresh.splice(0, WAITS_PER_HANDOFF);
			const confirming = this.recorded.splice(0, WAITS_PER_HANDOFF);
			const ends = [...this.ends.keys()].slice(0, WAITS_PER_HANDOFF);
			const batch: WaitBatch = {
				waits: waits.map((p) => p.wait),
				confirm: confirming.map((p) => p.wait),
				ends,
			};
			let answer: WaitBatchAnswer;
			try {
				answer = await this.send(context, batch);
			} catch (error) {
				for (const p of [...waits, ...confirming]) p.reject(error as Error);
				this.ended(ends);
				continue;
			}
			this.ended(ends);
			waits.forEach((p, i) => {
				if (answer.recorded[i] === true) {
					p.others = answer.otherWaitsInChat[i] ?? 0;
					this.recorded.push(p);
				} else
					p.reject(
						new WaitNotRecorded('capacity', 'capacity', {
							capacity: answer.capacity,
							waiting: answer.waiting,
							checked: answer.checked,
						}),
					);
			});
			confirming.forEach((p, i) => {
				if (answer.confirmed[i] === true) return p.resolve(p.others);
				if (++p.confirms >= CONFIRM_TRIES)
					return p.reject(new WaitNotRecorded('confirm', 'not found in the database'));
				this.recorded.push(p);
			});
		}
	}

	/** One hand-off to the holder (and the same waits to every member), tried again while n8n is busy. */
	private async send(context: ShareContext, batch: WaitBatch): Promise<WaitBatchAnswer> {
		const { origin, holderPath } = this.registration;
		const body = JSON.stringify(batch);
		const members = batch.waits.length || batch.ends.length ? allMembers(this.registration) : [];
		const membersDone = Promise.all(
			members.map(
				async (path) =>
					await sendHandoff(
						context,
						this.key,
						'wait',
						`${origin}${path}`,
						JSON.stringify({ ...batch, confirm: [] }),
					),
			),
		);
		const giveUpAt = Date.now() + RETRY_FOR_MS;
		let pause = FIRST_PAUSE_MS;
		let answer: PeerAnswer<WaitBatchAnswer>;
		for (;;) {
			answer = await sendHandoff(context, this.key, 'wait', `${origin}${holderPath}`, body);
			if (answer.kind !== 'unavailable' || Date.now() + pause > giveUpAt) break;
			await sleep(pause);
			pause = Math.min(pause * 2, 8_000);
		}
		await membersDone;
		if (answer.kind === 'member' && answer.body) return answer.body;
		throw new WaitNotRecorded('holder', answer.kind);
	}
}

const outboxes = memorySlot<Outbox>('wait outboxes', {
	holds: "waits to record with the holder, by K and registration; a restart fails their runs' asks",
	maxEntries: 1_000,
});

function outboxFor(key: string, registration: Registration): Outbox {
	const name = `${key}\u0000${registration.origin}${registration.holderPath}`;
	// Written again at each use: the count bound drops the outbox used longest ago.
	return outboxes.set(name, outboxes.get(name) ?? new Outbox(key, registration));
}

/**
 * Records `wait` with the account's triggers and resolves once the holder found it in the
 * database, with how many other live waits its chat has. Rejects with WaitNotRecorded.
 */
export async function recordWithTriggers(
	context: ShareContext,
	key: string,
	registration: Registration,
	wait: Wait,
): Promise<number> {
	return await outboxFor(key, registration).record(context, wait, registration);
}

/** Ends the waits of questions that were not sent (best effort: a wait left is found by the capacity check). */
export async function endWithTriggers(
	context: ShareContext,
	key: string,
	registration: Registration,
	waits: Array<Pick<Wait, 'executionId' | 'since'>>,
): Promise<void> {
	await outboxFor(key, registration).end(context, waits.map(waitIdOf));
}

/** The error a Send and Wait shows when its wait could not be recorded. */
export function notRecordedError(node: INode, error: WaitNotRecorded): NodeOperationError {
	if (error.reason === 'capacity') {
		const { capacity = 0, waiting, checked } = error.figures;
		return new NodeOperationError(
			node,
			`This account already has ${capacity.toLocaleString('en-US')} runs waiting for a reply, the most one account can hold`,
			{
				description: `The question was not sent. ${
					waiting !== undefined
						? `${waiting.toLocaleString('en-US')} runs wait for a reply on this account${checked ? `; the ${checked} oldest were checked just now and still wait` : ''}.`
						: ''
				} Each ends when its contact answers, its time limit passes, or its run is stopped or deleted. Set "Limit Wait Time" on your Send and Wait nodes so unanswered runs end, or spread the campaign over time.`,
			},
		);
	}
	if (error.reason === 'confirm') {
		return new NodeOperationError(
			node,
			"The Messaging Relay Trigger that receives this account's events could not keep the wait",
			{
				description: `The question was not sent. ${CONFIRM_TRIES} looks for the wait in n8n's database did not find it: n8n may be overloaded or restarting. Run this again, or turn on "Retry On Fail" in this node's settings.`,
			},
		);
	}
	return new NodeOperationError(
		node,
		"The Messaging Relay Trigger that receives this account's events did not take the wait",
		{
			description:
				'The question was not sent. n8n may be restarting or too busy: run this again, or turn on "Retry On Fail" in this node\'s settings.',
		},
	);
}
