import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { answerAfterSave, answersAfterSave, mayWrite, OVERLOADED } from '../shared/answerAfterSave';

import { retryLater, type Answer } from '../shared/answerRequest';
import { rawBodyText } from '../shared/readDelivery';
import { heldSecret, serviceSecretMatches } from '../shared/serviceSecret';
import { receiveHandoff } from './sharing/receiveHandoff';
import { HANDOFF_HEADERS } from '../shared/sharedWebhook/signedHandoff';
import { unsavedRegistration } from './sharing/unsavedRegistration';
import type { WebhookState } from '../shared/sharedWebhook/webhookState';
import { applyPauseCommand } from './chatPause';
import { managedSecretFor } from './managedSecret';
import { isManagedElsewhere } from './triggerSettings';

/**
 * Step 1 of a delivery (triggerVersion.ts, webhook()): who is calling. Either the service, proven
 * by its `x-service-secret`, or another trigger of the account, proven by a signed hand-off
 * (docs/shared-webhook.md). Nothing of the body is parsed before this is settled; a hand-off's
 * signature covers the body's bytes, which are read here and handed on.
 */
export type Caller =
	| { kind: 'service' }
	/** A verified forwarded event; `bodyText` is what the signature covered. */
	| { kind: 'trigger'; bodyText: string }
	/** Refused, or a hand-off that is answered without an execution (a ping, a takeover). */
	| { kind: 'answered'; answer: Answer }
	/** A hand-off whose answer goes out once n8n saved what it wrote (answerAfterSave.ts). */
	| { kind: 'responded'; response: IWebhookResponseData };

export async function whoIsCalling(
	context: IWebhookFunctions,
	state: WebhookState,
): Promise<Caller> {
	const headers = context.getHeaderData() as Record<string, unknown>;
	if (headers[HANDOFF_HEADERS.version] !== undefined) {
		const bodyText = rawBodyText(context.getRequestObject());
		const outcome = await receiveHandoff(context, state, bodyText, context.getMode() === 'manual');
		if (outcome.kind === 'event') return { kind: 'trigger', bodyText };
		if (outcome.kind === 'respond') return { kind: 'responded', response: outcome.response };
		// Answered once n8n saved it: "applied" means in the database (savedOutsideRun.ts relies on it).
		if (outcome.kind === 'pause') {
			if (!mayWrite()) return { kind: 'answered', answer: OVERLOADED };
			const applied: Answer = {
				status: 200,
				body: { proof: outcome.proof, ...applyPauseCommand(context, state, bodyText) },
			};
			if (!answersAfterSave(context))
				return { kind: 'answered', answer: { ...applied, afterSave: true } };
			return { kind: 'responded', response: answerAfterSave(context, () => applied) };
		}
		return { kind: 'answered', answer: outcome };
	}

	const provided = headers['x-service-secret'];
	const managedElsewhere = isManagedElsewhere(context);
	const managed = managedElsewhere ? await managedSecretFor(context, provided) : '';
	const held = managedElsewhere ? undefined : heldSecret(state);
	if (managedElsewhere ? managed === '' : !held) {
		// Registration has not stored the secret yet (or the credential has none): ask the service
		// to retry rather than accept an unverifiable event.
		return { kind: 'answered', answer: retryLater('Webhook secret not configured yet', 'later') };
	}
	if (serviceSecretMatches(provided, held ? { sha256: held.digest } : { secret: managed }))
		return { kind: 'service' };
	// The service may already sign with the secret of a registration n8n has not saved yet.
	if (
		typeof provided === 'string' &&
		!managedElsewhere &&
		(await unsavedRegistration(context, state, provided)) !== 'none'
	) {
		const justRegistered =
			'This trigger registered its webhook a moment ago; deliver the event again shortly';
		return { kind: 'answered', answer: retryLater(justRegistered, 'soon') };
	}
	return refused(401, 'Invalid or missing x-service-secret');
}

function refused(status: number, error: string): Caller {
	return { kind: 'answered', answer: { status, body: { error } } };
}
