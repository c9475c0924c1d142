import type { IWebhookFunctions } from 'n8n-workflow';

import { ACKNOWLEDGE, type Acknowledge } from '../protocol/acknowledge';
import { memberLedger } from './deliveryLedger';
import { fanOut } from './fanOut';
import { watchOwnRun } from './ownRuns';
import { responseOf } from '../n8n/webhookResponse';
import { parseRegistration } from '../sharedWebhook/registeredUrl';
import type { WebhookState } from '../sharedWebhook/webhookState';

/**
 * What the account's shared webhook asks of a delivery this trigger accepted, before the trigger's
 * own execution (docs/shared-webhook.md): the holder passes a service delivery on to every other
 * member (fanOut.ts); a member runs a forwarded event once, even when the holder forwards it again
 * because its answer to the service was lost (the member's record, deliveryLedger.ts).
 */
export type SharedOutcome =
	/** Nothing stands in the way of this trigger's own execution. */
	| { kind: 'goOn' }
	/**
	 * This trigger already ran the event, or (the holder's own runs set aside) its run was offered
	 * by a hand-off to itself: answer 200 with `reason`, start nothing here.
	 */
	| { kind: 'ranBefore'; reason: string }
	/** A member could not take it: answer 503 so the service delivers it again; `runSelf`: run it here now. */
	| { kind: 'retryLater'; runSelf: boolean }
	/** A member: its execution of this event (an earlier forward) has not ended yet: answer 503. */
	| { kind: 'stillRunning' };

const GO_ON: SharedOutcome = { kind: 'goOn' };

/**
 * `from`: who delivered it (whoIsCalling.ts); `delivery`: its text, id, event type and the id a set-aside member's
 * report names it by (missedEventId.ts); `runsNow`: this trigger starts its execution now (it wants the event and
 * does not hold it in a burst); `acknowledge`: Acknowledge Events (acknowledgement.ts). When the execution starts:
 * the holder starts its own run even when it answers 503. When it finishes: the holder's run waits for the
 * redelivery, and a member's record of a forward counts only once its run has answered 2xx.
 */
export async function shareDelivery(
	context: IWebhookFunctions,
	state: WebhookState,
	from: 'service' | 'trigger',
	delivery: { text: string; id: string; type: string; missedId: string },
	runsNow: boolean,
	acknowledge: Acknowledge = ACKNOWLEDGE.whenStarted,
): Promise<SharedOutcome> {
	if (from === 'trigger') {
		// A burst-held message is not recorded: it may still be answered 503 and must then run at
		// the redelivery.
		if (!runsNow) return GO_ON;
		if (memberLedger.isRunning(context, delivery.id)) return { kind: 'stillRunning' };
		if (memberLedger.find(context, state, delivery.id))
			return { kind: 'ranBefore', reason: 'already ran when it was forwarded before' };
		// Answered at the run's end, "taken" must mean the run ended (acknowledgement.ts); answered
		// at its start, it means it started, as n8n's answer does.
		if (acknowledge === ACKNOWLEDGE.whenStarted)
			memberLedger.record(context, state, delivery.id, { at: Date.now() });
		else memberLedger.recordUntilAnswered(context, state, delivery.id, responseOf(context));
		// The holder offering its own run while set aside (fanOut.ts): this run's verdict can take
		// it back (ownRuns.ts).
		const ownPath = ownPathIfHolder(state);
		if (ownPath && acknowledge === ACKNOWLEDGE.whenFinished) watchOwnRun(context, state, ownPath);
		return GO_ON;
	}
	// Only the holder keeps the registered URL; a lone trigger is a holder with no members.
	if (!state.webhookUrl) return GO_ON;
	const ownRun = runsNow ? acknowledge : undefined;
	const shared = await fanOut(
		context,
		state,
		delivery.text,
		delivery.id,
		{ type: delivery.type, missedId: delivery.missedId },
		ownRun,
	);
	// A burst-held message would be acknowledged by its burst: it waits for the redelivery.
	if (shared.retryLater)
		return {
			kind: 'retryLater',
			runSelf: ownRun === ACKNOWLEDGE.whenStarted && !shared.selfAlreadyRan,
		};
	if (shared.selfAlreadyRan)
		return { kind: 'ranBefore', reason: 'already ran at an earlier delivery' };
	if (shared.selfOffered)
		return {
			kind: 'ranBefore',
			reason: 'its executions kept failing: set aside, the event was offered to it separately',
		};
	if (shared.countOwnRunAs) watchOwnRun(context, state, shared.countOwnRunAs);
	return GO_ON;
}

/** The holder's own path, from the registration it keeps (only the holder keeps one). */
function ownPathIfHolder(state: WebhookState): string | undefined {
	return state.webhookUrl ? parseRegistration(state.webhookUrl)?.holderPath : undefined;
}
