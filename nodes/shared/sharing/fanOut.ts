import { accountKeyOf } from '../sharedWebhook/accountKey';
import type { IWebhookFunctions } from 'n8n-workflow';

import { ACKNOWLEDGE, type Acknowledge } from '../protocol/acknowledge';
import { holderLedger } from './deliveryLedger';
import {
	carryToStaticData,
	failedHandoff,
	isSetAside,
	missedEvent,
	setAsideIfDue,
	setAsideLimits,
	tookHandoff,
} from './memberHealth';
import { warnSetAside } from './setAsideNotice';
import type { HandoffAnswer } from '../protocol/handoffs';
import { sendHandoff } from '../sharedWebhook/peerClient';
import { allMembers, parseRegistration } from '../sharedWebhook/registeredUrl';
import type { WebhookState } from '../sharedWebhook/webhookState';

/** The holder itself, in its record of who already ran a delivery. */
const SELF = 'self';

/**
 * The holder's forwarding of one service delivery to every other member (docs/shared-webhook.md,
 * "A delivery at the holder"). A member that cannot take the event after its retries makes the
 * service redeliver (503); the holder's record (deliveryLedger.ts) remembers who already ran it,
 * so nobody runs it twice.
 */
export interface FanOutResult {
	/** A member could not take the event: answer 503 so the service delivers it again. */
	retryLater: boolean;
	/** The holder ran this event at an earlier delivery: do not start it again. */
	selfAlreadyRan: boolean;
	/**
	 * The holder's own runs are set aside: its run of this event was offered by a hand-off to its
	 * own URL (ownRuns.ts); start none in this request.
	 */
	selfOffered: boolean;
	/** The webhook is shared and the holder's own run decides the service's answer: count its verdict under this path (ownRuns.ts). */
	countOwnRunAs?: string;
}

const NOTHING_SHARED: FanOutResult = {
	retryLater: false,
	selfAlreadyRan: false,
	selfOffered: false,
};

/**
 * `rawBody` is forwarded byte for byte; `id` is its delivery id (deliveryLedger.ts), `event` what a
 * set-aside member is told it missed (memberHealth.ts): its type and the id its report names it by
 * (missedEventId.ts). `ownRun`: the holder's own run of the event in this request, by its
 * Acknowledge Events (undefined: it starts none). Answered when it finishes, its verdict decides
 * the service's answer (ownRuns.ts).
 */
export async function fanOut(
	context: IWebhookFunctions,
	state: WebhookState,
	rawBody: string,
	id: string,
	event: { type: string; missedId: string },
	ownRun: Acknowledge | undefined,
): Promise<FanOutResult> {
	const registration = state.webhookUrl ? parseRegistration(state.webhookUrl) : undefined;
	const key = await accountKeyOf(context, state);
	if (!registration || !key) return NOTHING_SHARED;
	const targets = allMembers(registration);
	if (targets.length === 0 && holderLedger.isEmpty(context, state)) return NOTHING_SHARED;
	const ownPath = registration.holderPath;
	const arrivedAt = Date.now();
	// Verdicts of its own runs that came after their request's save (ownRuns.ts).
	if (targets.length > 0) carryToStaticData(context, state, ownPath);
	// The bound is decided at arrival too, not only at a failure's verdict (memberHealth.ts).
	for (const path of targets.length > 0 ? [...targets, ownPath] : [])
		if (setAsideIfDue(context, state, path, arrivedAt))
			warnSetAside(context.logger, path, path === ownPath);

	const earlier = holderLedger.find(context, state, id);
	const alreadyRan = new Set(earlier?.ran ?? []);
	// Its own runs set aside: offered like a set-aside member's, by a hand-off to its own URL.
	const offerSelf =
		ownRun === ACKNOWLEDGE.whenFinished &&
		targets.length > 0 &&
		!alreadyRan.has(SELF) &&
		!alreadyRan.has(ownPath) &&
		isSetAside(context, state, ownPath);
	const toSend = [
		...targets.filter((path) => !alreadyRan.has(path)),
		...(offerSelf ? [ownPath] : []),
	];
	// A set-aside member is offered the event once, briefly; its failure is a miss, not a 503.
	const setAside = new Set(toSend.filter((path) => isSetAside(context, state, path)));
	const answers = await Promise.all(
		toSend.map(async (path) => {
			const once = setAside.has(path) ? { timeoutMs: setAsideLimits.offerTimeoutMs } : undefined;
			return await sendHandoff(
				context,
				key,
				'event',
				`${registration.origin}${path}`,
				rawBody,
				once,
			);
		}),
	);

	const failed: string[] = [];
	answers.forEach((answer, i) => {
		const path = toSend[i];
		if (answer.kind === 'member') {
			alreadyRan.add(path);
			// Only an event it wanted shows it can take events again: one it ignores (another
			// type, a filter) says nothing about the ones that fail.
			if (!ignoredIt(answer.body)) tookHandoff(context, state, path);
		} else if (answer.kind === 'unavailable' && path === ownPath) {
			// Its own run: the request that ran it counts the verdict (ownRuns.ts). One that
			// outlasted the offer may still succeed: not a miss, and said so (its execution shows
			// how it ended).
			if (!answer.timedOut) missedEvent(context, state, path, id, event);
			else
				context.logger.warn(
					`Messaging Relay Trigger: its own run of event ${event.missedId} outlasted the offer to it while set aside: not counted as missed; its execution shows how it ended.`,
				);
		} else if (answer.kind === 'unavailable') {
			const health = failedHandoff(context, state, path, Date.now(), arrivedAt);
			if (!health.setAside) {
				failed.push(path);
				return;
			}
			missedEvent(context, state, path, id, event);
			if (health.justNow) warnSetAside(context.logger, path, false);
		} else if (answer.kind === 'stranger') {
			context.logger.warn(
				`Messaging Relay Trigger: the trigger at ${toSend[i]} refused a forwarded event (HTTP ${answer.statusCode}); it uses another API key or another n8n. It is skipped.`,
			);
		}
		// 'gone': its workflow is unpublished; it is dropped from the list at the next join.
	});

	const selfAlreadyRan = alreadyRan.has(SELF) || alreadyRan.has(ownPath);
	const now = Date.now();
	if (failed.length > 0) {
		if (ownRun === ACKNOWLEDGE.whenStarted || selfAlreadyRan) alreadyRan.add(SELF);
		holderLedger.record(context, state, id, { ran: [...alreadyRan], at: now }, now);
		context.logger.warn(
			`Messaging Relay Trigger: ${failed.length} member trigger(s) could not take an event now (${failed.join(', ')}); the service is asked to deliver it again.`,
		);
		return { retryLater: true, selfAlreadyRan, selfOffered: offerSelf };
	}
	if (earlier) holderLedger.forget(context, state, id);
	const countOwnRunAs =
		ownRun === ACKNOWLEDGE.whenFinished && targets.length > 0 && !offerSelf && !selfAlreadyRan
			? ownPath
			: undefined;
	return {
		retryLater: false,
		selfAlreadyRan,
		selfOffered: offerSelf,
		...(countOwnRunAs ? { countOwnRunAs } : {}),
	};
}

/**
 * Whether a member's 200 says it did not want the event (`"ignored"` with its reason, from its
 * Events or filters), as opposed to running it now or having run it before (`ranBefore`).
 */
function ignoredIt(answer: HandoffAnswer<'event'> | undefined): boolean {
	return answer?.ignored !== undefined && answer.ranBefore !== true;
}
