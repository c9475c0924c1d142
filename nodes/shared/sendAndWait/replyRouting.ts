import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { answerAfterSave, answersAfterSave, mayWrite } from '../answerAfterSave';
import { retryLater, type Answer } from '../answerRequest';
import { webhookResourceUrl } from '../n8n/capabilities';
import { tablesUnsaved } from '../sharedWebhook/accountTable';
import { sendHandoff } from '../sharedWebhook/peerClient';
import type { WebhookState } from '../sharedWebhook/webhookState';
import {
	endingsOf,
	offerRefused,
	updateWaits,
	waitsForReply,
	type IdentifiedWait,
} from './waitingRuns';
import { shareEnds } from './memberSync';

/**
 * The holder's side of Send and Wait for Reply (docs/design/conversations-at-scale.md, "An answer"): a
 * contact's message that a waiting run may be waiting for is offered to that run first, as a signed `resume`
 * hand-off to n8n's resume path on the holder's own origin. Only the waiting node's proof says a run took it
 * (n8n answers a finished run 200 too). A first delivery's offer is saved before it is made, so that the
 * answer to the service comes after a record that names the delivery.
 */
export type ReplyOutcome =
	/** No run took it: the triggers get it as usual. `ended`: waits found no longer waiting. */
	| { kind: 'notAReply'; ended: IdentifiedWait[] }
	/** A waiting run took it; `passOn`: that wait asked for the triggers to get it too. */
	| { kind: 'answered'; passOn: boolean }
	/** A waiting run could not be reached, or n8n is busy: answer 503, the service delivers it again. */
	| { kind: 'retryLater' }
	/** The offer was saved; the answer goes out from this response once the run took it (or not). */
	| { kind: 'held'; response: IWebhookResponseData };

/** How long after its wait was recorded a run that answers 409 is taken as not waiting yet. */
const SETTLING_MS = 60_000;

const ANSWERED: Answer = { status: 200, body: { received: true, answered: 'a waiting run' } };
/** A reply its waiting run could not take yet: the service delivers it again. */
export const RUN_NOT_READY: Answer = retryLater(
	'A run waiting for this reply could not take it yet',
	'later',
);

/** What the offer of a reply to a waiting run came to. */
type Offer =
	| 'consumed'
	| 'askedAgain'
	/** The run waits, but not on this question (a stale path, another question of the run). */
	| 'declined'
	/** n8n has no such run (404), or the path is not one of this n8n's. */
	| 'gone'
	| 'notWaitingYet'
	/** n8n answered without the proof: the run does not wait (finished, failed, stopped, running). */
	| 'noProof'
	| 'unavailable';

async function offer(
	context: IWebhookFunctions,
	key: string,
	origin: string,
	wait: IdentifiedWait,
	event: unknown,
): Promise<Offer> {
	let url: URL;
	try {
		url = new URL(wait.resumePath, origin);
	} catch {
		return 'gone';
	}
	// Only a path on the holder's own n8n: a stored path never names a host.
	if (url.origin !== origin || !wait.resumePath.startsWith('/')) return 'gone';
	const body = JSON.stringify({
		asked: wait.asked ?? 0,
		questionId: wait.questionId ?? null,
		event,
	});
	const answer = await sendHandoff(context, key, 'resume', url.toString(), body);
	if (answer.kind === 'unavailable') return 'unavailable';
	if (answer.kind === 'gone') return 'gone';
	if (answer.kind === 'member') {
		if (answer.body?.consumed !== true) return 'declined';
		return answer.body.reAsked === true ? 'askedAgain' : 'consumed';
	}
	// The wait is recorded before the question is sent and n8n marks the run waiting only after the
	// node returns: a fast answer meets a running run (409). A young wait's 409 is "not yet".
	if (answer.statusCode === 409 && Date.now() - wait.since < SETTLING_MS) return 'notWaitingYet';
	return 'noProof';
}

/**
 * Ends waits in a request of their own to this trigger's URL (a `wait` hand-off, answered after n8n
 * saved it): for an end found after this request's own save. Not saved: the next write carries it.
 */
async function saveEnds(context: IWebhookFunctions, key: string, ids: string[]) {
	const url = webhookResourceUrl(context);
	if (!url) return;
	await sendHandoff(
		context,
		key,
		'wait',
		url,
		JSON.stringify({ waits: [], confirm: [], ends: ids }),
	);
}

/** How long a mark written after its request's save waits for another request to save it. */
export const FLUSH_AFTER_MS = 2_000;

/**
 * The mark of an answer is written after n8n saved its request: the next request of this process carries it
 * (its repairTables writes what no save was seen to carry; under a campaign, the next answer's). When none
 * came within FLUSH_AFTER_MS, an empty `wait` hand-off to this trigger's own URL is that request.
 */
function flushSoon(context: IWebhookFunctions, key: string, markedAt: number) {
	void (async () => {
		await sleep(FLUSH_AFTER_MS);
		if (tablesUnsaved(context, markedAt)) await saveEnds(context, key, []);
	})();
}

/** `rawBody`: the service's delivery as it arrived; `deliveryId`: its id (deliveryLedger.ts); `key`: K. */
export async function routeReply(
	context: IWebhookFunctions,
	state: WebhookState,
	rawBody: string,
	body: IDataObject,
	deliveryId: string,
	key: string | undefined,
): Promise<ReplyOutcome> {
	const notAReply: ReplyOutcome = { kind: 'notAReply', ended: [] };
	if (body.type !== 'message.received' || !state.webhookUrl || !key) return notAReply;
	const message = body.message as IDataObject | undefined;
	if (!message || typeof message !== 'object') return notAReply;
	const waits = waitsForReply(context, state, message, deliveryId);
	if (waits.length === 0) return notAReply;

	const origin = new URL(state.webhookUrl).origin;
	// The event as the service delivered it (byte for byte, not n8n's parse), read once for every wait.
	const event = JSON.parse(rawBody) as unknown;
	const ended: IdentifiedWait[] = [];
	const end = (wait: IdentifiedWait) => {
		updateWaits(context, state, endingsOf(context, state, [wait.id]));
		ended.push(wait);
	};
	const tookIt = (wait: IdentifiedWait, asked?: boolean): ReplyOutcome => {
		const now = Date.now();
		const mark = asked
			? { ...wait, asked: (wait.asked ?? 0) + 1 }
			: { ...wait, resumedBy: wait.resumedBy ?? deliveryId, resumedAt: wait.resumedAt ?? now };
		updateWaits(context, state, [[wait.id, mark]], now);
		if (!asked) shareEnds(context, state, key, [wait.id]);
		return { kind: 'answered', passOn: wait.passOn === true };
	};

	for (const wait of waits) {
		// This very delivery resumed the run before (its answer to the service was lost): nothing to offer.
		if (wait.resumedBy === deliveryId) return tookIt(wait);
		// A redelivery of an offer n8n refused as "not waiting yet" proves nothing: it is offered afresh.
		const redelivery = wait.offeredBy === deliveryId && !offerRefused(wait);
		const saveFirst = !redelivery && !wait.passOn && answersAfterSave(context);
		if (saveFirst) {
			if (!mayWrite()) return { kind: 'retryLater' };
			const now = Date.now();
			// Strictly later than the last offer, so that a fresh offer never reads as the refused one.
			const offered = {
				...wait,
				offeredBy: deliveryId,
				offeredAt: Math.max(now, (wait.offeredAt ?? Number.NEGATIVE_INFINITY) + 1),
			};
			updateWaits(context, state, [[wait.id, offered]], now);
			const response = answerAfterSave(context, async () => {
				const result = await offer(context, key, origin, wait, event);
				if (result === 'consumed' || result === 'askedAgain') {
					tookIt(wait, result === 'askedAgain');
					flushSoon(context, key, Date.now());
					return ANSWERED;
				}
				// A run stopped while young answers 409 as one not waiting yet does: the refusal is saved,
				// so that the redelivery is offered afresh, not taken as this offer's lost answer.
				if (result === 'notWaitingYet') {
					const refused = { ...offered, refusedBy: deliveryId, refusedAt: offered.offeredAt };
					updateWaits(context, state, [[wait.id, refused]], Date.now());
					await saveEnds(context, key, []);
					return RUN_NOT_READY;
				}
				// Not taken: ended, saved by a request of its own (n8n saved this one already); the
				// redelivery goes on to the next wait or the trigger workflows.
				if (result !== 'unavailable') {
					end(wait);
					await saveEnds(context, key, [wait.id]);
				}
				return RUN_NOT_READY;
			});
			return { kind: 'held', response };
		}
		const result = await offer(context, key, origin, wait, event);
		if (result === 'consumed' || result === 'askedAgain')
			return tookIt(wait, result === 'askedAgain');
		if (result === 'unavailable' || result === 'notWaitingYet') return { kind: 'retryLater' };
		// This delivery was offered or taken before, and the run does not take it now (it ended, or
		// waits on a later question): it resumed on it before the answer to the service was lost.
		// Acknowledged, nothing passed on.
		if (redelivery) return tookIt(wait);
		end(wait);
	}
	return { kind: 'notAReply', ended };
}
