import type {
	IDataObject,
	ITriggerFunctions,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { answerRequest, retryLater } from '../shared/answerRequest';
import {
	sendOn,
	responseOf,
	whenAnswered,
	type WebhookResponse,
} from '../shared/n8n/webhookResponse';
import { memoryCounter, memorySlot } from '../shared/processMemory';
import type { RelayEvent, RelayEventOf } from '../shared/schemas/events';
import { MAX_QUIET_SECONDS } from './constants';

/**
 * "Combine Messages Within (Seconds)": `message.received` events of one chat that arrive within the quiet time
 * start ONE execution. Nothing is acknowledged before n8n has saved the execution that carries it: a held
 * delivery's request stays open; one of them returns the combined item to n8n, which answers it, and the others
 * then get 200, or 503 (send again) if that answer was no success. Design, guarantees and n8n's code:
 * docs/combining-bursts.md, "Hold the answer, never acknowledge before n8n has saved the execution".
 */

/**
 * The bounds (docs/combining-bursts.md, "What it does"). An object rather than constants so the tests can
 * shorten them; nothing in the node changes them.
 */
export const burstLimits = {
	/** A burst is released at the latest this long after its first message… */
	maxHoldMs: 60_000,
	/** …or when it holds this many messages. */
	maxMessagesPerBurst: 20,
	/** Messages held at once in one n8n process over all chats; beyond that, messages are not held. */
	maxHeldPerProcess: 1000,
	/** Ids of released messages are remembered this long, to answer the service's resend without a second execution. */
	recentIdsTtlMs: 10 * 60_000,
};

type ReceivedEvent = RelayEventOf<'message.received'>;

/** The answer of a burst's other deliveries when n8n did not start the combined run. */
const NOT_STARTED = retryLater(
	'The combined execution could not be started; send this event again',
	'later',
);

/** What a held delivery's webhook() call is told to do when its burst is settled. */
type Outcome = { kind: 'emit'; item: IDataObject } | { kind: 'answered' };

interface HeldDelivery {
	response: WebhookResponse;
	/** The connection closed before anyone answered it (the service gave up waiting). */
	dropped: boolean;
	settle: (outcome: Outcome) => void;
}

interface HeldMessage {
	event: ReceivedEvent;
	item: IDataObject;
	arrival: number;
}

interface Burst {
	key: string;
	firstArrival: number;
	lastArrival: number;
	quietMs: number;
	messages: HeldMessage[];
	deliveries: HeldDelivery[];
	released: boolean;
}

const bursts = memorySlot<Burst>('held bursts', {
	holds:
		'held bursts by workflow, trigger node, number and chat; a restart drops their open requests',
	// Never reached: each burst holds a message, and no message is held beyond this (canHoldAnother).
	maxEntries: () => burstLimits.maxHeldPerProcess,
});
const recentlyCombined = memorySlot<true>('combined message ids', {
	holds: 'ids of messages already run in a combined execution, by burst; a restart forgets them',
	maxEntries: 100_000,
	maxAgeMs: () => burstLimits.recentIdsTtlMs,
});
const heldCount = memoryCounter('held messages', 'messages held in bursts by this process');

const now = () => Date.now();

/** For tests: what is held right now. */
export function heldMessages(): number {
	return heldCount.value;
}

function remember(key: string, messageId: string) {
	recentlyCombined.set(`${key}\u0000${messageId}`, true, now());
}

function wasCombined(key: string, messageId: string): boolean {
	return recentlyCombined.has(`${key}\u0000${messageId}`, now());
}

/** Resolves once n8n's answer to the emitter has gone out (true: a success) or its connection closed. */
function answered(response: WebhookResponse): Promise<boolean> {
	return new Promise((resolve) => {
		whenAnswered(response, (statusCode) => resolve(statusCode !== undefined && statusCode < 300));
	});
}

/** The combined item: the first message's fields, every text in order, the ids and the count. */
export function combinedItem(messages: HeldMessage[]): IDataObject {
	const ordered = [...messages].sort((a, b) => {
		const byTime = Date.parse(a.event.message.timestamp) - Date.parse(b.event.message.timestamp);
		return Number.isNaN(byTime) || byTime === 0 ? a.arrival - b.arrival : byTime;
	});
	const texts = ordered.map((m) => m.event.message.text ?? '');
	const joined = texts.filter((text) => text.trim() !== '').join('\n');
	return {
		...ordered[0].item,
		text: joined,
		chatInput: joined,
		texts,
		messageIds: ordered.map((m) => m.event.message.id),
		messageCount: ordered.length,
		events: ordered.map((m) => m.event as unknown as IDataObject),
	};
}

async function release(burst: Burst) {
	if (burst.released) return;
	burst.released = true;
	// Out of the registry before anything else: a message arriving from now on opens a new burst.
	if (bursts.get(burst.key) === burst) bursts.delete(burst.key);
	heldCount.add(-burst.messages.length);

	const item = combinedItem(burst.messages);
	const emitter = burst.deliveries.find((d) => !d.dropped) ?? burst.deliveries[0];
	const others = burst.deliveries.filter((d) => d !== emitter);
	emitter.settle({ kind: 'emit', item });
	if (emitter.dropped) {
		// Nobody is waiting for an answer; the service's resends are recognised by message id.
		for (const message of burst.messages) remember(burst.key, message.event.message.id);
		for (const other of others) other.settle({ kind: 'answered' });
		return;
	}
	const started = await answered(emitter.response);
	if (started) {
		for (const message of burst.messages) remember(burst.key, message.event.message.id);
	}
	const firstId = item.messageId as string;
	for (const other of others) {
		if (other.dropped) {
			// Its connection is gone; the service's resend is recognised by message id.
			other.settle({ kind: 'answered' });
			continue;
		}
		if (started) sendOn(other.response, 200, { received: true, combinedInto: firstId });
		else sendOn(other.response, NOT_STARTED.status, NOT_STARTED.body, NOT_STARTED.headers);
		other.settle({ kind: 'answered' });
	}
}

/** The first delivery of a burst keeps time: quiet deadline (moved by every arrival) or the hard limit. */
async function keepTime(burst: Burst) {
	while (!burst.released) {
		const deadline = Math.min(
			burst.lastArrival + burst.quietMs,
			burst.firstArrival + burstLimits.maxHoldMs,
		);
		const wait = deadline - now();
		if (wait <= 0) break;
		await sleep(wait);
	}
	await release(burst);
}

function hold(
	key: string,
	quietMs: number,
	event: ReceivedEvent,
	item: IDataObject,
	response: WebhookResponse,
) {
	let burst = bursts.get(key);
	const opening = burst === undefined;
	if (!burst) {
		burst = {
			key,
			firstArrival: now(),
			lastArrival: now(),
			quietMs,
			messages: [],
			deliveries: [],
			released: false,
		};
		bursts.set(key, burst);
	}
	const current = burst;
	const outcome = new Promise<Outcome>((resolve) => {
		const delivery: HeldDelivery = { response, dropped: false, settle: resolve };
		response.once('close', () => {
			if (!response.writableFinished) delivery.dropped = true;
		});
		current.deliveries.push(delivery);
	});
	current.lastArrival = now();
	// The service sending the same message again (it gave up waiting) joins once.
	if (!current.messages.some((m) => m.event.message.id === event.message.id)) {
		current.messages.push({ event, item, arrival: now() });
		heldCount.add();
	}
	if (current.messages.length >= burstLimits.maxMessagesPerBurst) void release(current);
	else if (opening) void keepTime(current);
	return outcome;
}

/**
 * The trigger is closing (unpublished, or n8n stopping): its held bursts are released now, each as
 * one run, instead of after their quiet time, so that their deliveries are answered within the
 * close's drain (closingGate.ts) and n8n's shutdown waits for those runs.
 */
export function releaseBurstsOf(context: ITriggerFunctions) {
	const prefix = [context.getWorkflow().id, context.getNode().id, ''].join('\u0000');
	for (const [key, burst] of bursts.live()) if (key.startsWith(prefix)) void release(burst);
}

/**
 * Whether one more message can be held in this process (step 3 of the trigger's webhook(), asked
 * before the holder of a shared webhook forwards it): beyond the limit, messages run one by one.
 */
export function canHoldAnother(): boolean {
	return heldCount.value < burstLimits.maxHeldPerProcess;
}

/**
 * Step 5 of the trigger's webhook(), for a message that "Combine Messages Within" holds for
 * `seconds` (triggerSettings.ts, combineSeconds): what webhook() returns for it, or `undefined` when it
 * is not held (the process-wide limit reached), and the caller emits it as usual.
 */
export async function combineBurst(
	context: IWebhookFunctions,
	event: RelayEvent,
	item: IDataObject,
	webhookResponse: IDataObject,
	seconds: number,
): Promise<IWebhookResponseData | undefined> {
	const received = event as ReceivedEvent;
	const node = context.getNode();
	const key = [
		context.getWorkflow().id,
		node.id,
		received.message.channelId,
		received.message.chatId,
	].join('\u0000');

	if (wasCombined(key, received.message.id)) {
		return answerRequest(context, {
			status: 200,
			body: { received: true, ignored: 'already combined into a started execution' },
		});
	}
	if (!canHoldAnother()) return undefined;
	const quietMs = Math.min(seconds, MAX_QUIET_SECONDS) * 1000;
	const response = responseOf(context);
	const outcome = await hold(key, quietMs, received, item, response);
	if (outcome.kind === 'emit') {
		return { webhookResponse, workflowData: [[{ json: outcome.item }], []] };
	}
	return { noWebhookResponse: true };
}
