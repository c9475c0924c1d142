import type { IWebhookFunctions } from 'n8n-workflow';

import { SELF, type TriggerState } from '../triggerState';
import { sendHandoff } from './peerClient';
import { allMembers, parseRegistration } from './registeredUrl';
import { deliveryIdOf } from './signedHandoff';

/**
 * The holder's forwarding of one service delivery to every other member (docs/shared-webhook.md,
 * "A delivery at the holder"). A member that cannot take the event after its retries makes the
 * service redeliver (503); `pending` remembers who already ran it, so nobody runs it twice.
 */

const PENDING_MAX = 100;
const PENDING_TTL_MS = 60 * 60 * 1000;

export interface FanOutResult {
	/** A member could not take the event: answer 503 so the service delivers it again. */
	retryLater: boolean;
	/** The holder ran this event at an earlier delivery: do not start it again. */
	selfAlreadyRan: boolean;
	/** Whether the holder's own workflow starts an execution for it this time (set by the caller). */
}

function prunePending(pending: NonNullable<TriggerState['pending']>, now: number) {
	const entries = Object.entries(pending).sort(([, a], [, b]) => a.at - b.at);
	entries.forEach(([id, entry], index) => {
		if (now - entry.at > PENDING_TTL_MS || entries.length - index > PENDING_MAX) delete pending[id];
	});
}

export async function fanOut(
	context: IWebhookFunctions,
	state: TriggerState,
	rawBody: string,
	willRunSelf: boolean,
): Promise<FanOutResult> {
	const registration = state.webhookUrl ? parseRegistration(state.webhookUrl) : undefined;
	const key = state.shareKey;
	if (!registration || !key) return { retryLater: false, selfAlreadyRan: false };
	const targets = allMembers(registration);
	if (targets.length === 0 && !state.pending) return { retryLater: false, selfAlreadyRan: false };

	const id = deliveryIdOf(rawBody);
	const earlier = state.pending?.[id];
	const alreadyRan = new Set(earlier?.ran ?? []);
	const toSend = targets.filter((path) => !alreadyRan.has(path));
	const answers = await Promise.all(
		toSend.map(async (path) => await sendHandoff(context, key, 'event', `${registration.origin}${path}`, rawBody)),
	);

	const failed: string[] = [];
	answers.forEach((answer, i) => {
		if (answer.kind === 'member') alreadyRan.add(toSend[i]);
		else if (answer.kind === 'unavailable') failed.push(toSend[i]);
		else if (answer.kind === 'stranger') {
			context.logger.warn(
				`Messaging Relay Trigger: the trigger at ${toSend[i]} refused a forwarded event (HTTP ${answer.statusCode}); it uses another API key or another n8n. It is skipped.`,
			);
		}
		// 'gone': its workflow is unpublished; it is dropped from the list at the next join.
	});

	const selfAlreadyRan = alreadyRan.has(SELF);
	const now = Date.now();
	if (failed.length > 0) {
		if (willRunSelf || selfAlreadyRan) alreadyRan.add(SELF);
		state.pending = { ...(state.pending ?? {}), [id]: { ran: [...alreadyRan], at: now } };
		prunePending(state.pending, now);
		context.logger.warn(
			`Messaging Relay Trigger: ${failed.length} member trigger(s) could not take an event now (${failed.join(', ')}); the service is asked to deliver it again.`,
		);
		return { retryLater: true, selfAlreadyRan };
	}
	if (earlier && state.pending) {
		delete state.pending[id];
		if (Object.keys(state.pending).length === 0) delete state.pending;
	}
	return { retryLater: false, selfAlreadyRan };
}
