import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { sendHandoff } from '../sharedWebhook/peerClient';
import { dropWait, recordWait, waitsForReply, type WaitEntry } from './waitingRuns';
import type { WebhookState } from '../sharedWebhook/webhookState';

/**
 * The holder's side of Send and Wait for Reply (docs/design/durability-and-conversations.md §5):
 * a contact's message that a waiting run may be waiting for is offered to those runs first, as a
 * signed `resume` hand-off to n8n's resume path on the holder's own origin. Only the waiting
 * node's proof says a run took it: n8n answers a finished send-and-wait run with 200 too.
 */
export type ReplyOutcome =
	/** No run took it: the triggers get it as usual. `dropped`: waits found no longer waiting (forgotten here). */
	| { kind: 'not a reply'; dropped?: WaitEntry[] }
	/** A waiting run took it; `passOn`: that wait asked for the triggers to get it too. */
	| { kind: 'answered a waiting run'; passOn: boolean }
	/** A waiting run could not be reached: answer 503, the service delivers it again. */
	| { kind: 'retry later' };

const NOT_A_REPLY: ReplyOutcome = { kind: 'not a reply' };

/** How long after its wait was recorded a run that answers 409 is taken as not waiting yet. */
const SETTLING_MS = 60_000;

/** `rawBody`: the service's delivery as it arrived; `deliveryId`: its id (deliveryLedger.ts). */
export async function routeReply(
	context: IWebhookFunctions,
	state: WebhookState,
	rawBody: string,
	body: IDataObject,
	deliveryId: string,
): Promise<ReplyOutcome> {
	if (body.type !== 'message.received' || !state.webhookUrl || !state.shareKey) return NOT_A_REPLY;
	const message = body.message as IDataObject | undefined;
	if (!message || typeof message !== 'object') return NOT_A_REPLY;
	const waits = waitsForReply(context, state, message, deliveryId);
	if (waits.length === 0) return NOT_A_REPLY;

	const origin = new URL(state.webhookUrl).origin;
	// The event as the service delivered it (byte for byte, not n8n's parse), read once for every wait.
	const event = JSON.parse(rawBody) as unknown;
	const dropped: WaitEntry[] = [];
	for (const wait of waits) {
		const resume = JSON.stringify({
			asked: wait.asked ?? 0,
			questionId: wait.questionId ?? null,
			event,
		});
		const answer = await sendHandoff(
			context,
			state.shareKey,
			'resume',
			`${origin}${wait.resumePath}`,
			resume,
		);
		if (answer.kind === 'unavailable') return { kind: 'retry later' };
		if (answer.kind === 'member') {
			const { consumed, reAsked } = (answer.body ?? {}) as {
				consumed?: unknown;
				reAsked?: unknown;
			};
			if (consumed === true && reAsked === true) {
				// An unclear answer to an approval: the run asked again and keeps waiting.
				recordWait(context, state, { ...wait, asked: (wait.asked ?? 0) + 1 });
				return { kind: 'answered a waiting run', passOn: wait.passOn === true };
			}
			if (consumed === true) {
				recordWait(context, state, { ...wait, resumedBy: deliveryId, resumedAt: Date.now() });
				return { kind: 'answered a waiting run', passOn: wait.passOn === true };
			}
			continue; // declined: not this run's reply
		}
		// No proof (404 deleted, 409 running or failed, n8n's "no action required" page): the run
		// no longer waits, unless this very delivery resumed it before (a redelivery)...
		if (wait.resumedBy === deliveryId)
			return { kind: 'answered a waiting run', passOn: wait.passOn === true };
		// ...or it has not begun to wait yet: the wait is recorded before the question is sent,
		// and n8n marks the run waiting only after the node returns, so a fast answer meets a
		// running run (409). A young wait's 409 is "deliver it again", not "gone".
		if (
			answer.kind === 'stranger' &&
			answer.statusCode === 409 &&
			Date.now() - wait.since < SETTLING_MS
		)
			return { kind: 'retry later' };
		dropWait(context, state, wait.executionId);
		dropped.push(wait);
	}
	return { kind: 'not a reply', dropped };
}
