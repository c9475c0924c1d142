import type { IWebhookFunctions } from 'n8n-workflow';

import { retryLater, type Answer } from '../answerRequest';
import { rawBodyText } from '../readDelivery';
import { heldSecret, serviceSecretMatches } from '../serviceSecret';
import { authenticateHandoff, type ControlHandoff } from './authenticateHandoff';
import { HANDOFF_HEADERS } from '../sharedWebhook/signedHandoff';
import { unsavedRegistration } from './unsavedRegistration';
import type { WebhookState } from '../sharedWebhook/webhookState';
import { managedSecretFor } from './managedSecret';

/**
 * Step 1 of a delivery (the trigger's triggerVersion.ts, webhook()): who is calling. Either the service, proven
 * by its `x-service-secret`, or another trigger of the account, proven by a signed hand-off
 * (docs/shared-webhook.md). Nothing of the body is parsed before this is settled; a hand-off's
 * signature covers the body's bytes, which are read here and handed on. It writes nothing (a hand-off's
 * nonce goes in the replay cache): what a hand-off asks is done by its handler, receiveHandoff.ts.
 */
export type Caller =
	| { kind: 'service' }
	/** A verified forwarded event; `bodyText` is what the signature covered. */
	| { kind: 'trigger'; bodyText: string }
	/** A verified hand-off that asks this trigger to do something (receiveHandoff.ts). */
	| { kind: 'handoff'; handoff: ControlHandoff }
	/** Refused, or asked to deliver again later. */
	| { kind: 'answered'; answer: Answer };

/** `managedElsewhere`: the trigger's Registration is manual (its triggerSettings.ts). */
export async function whoIsCalling(
	context: IWebhookFunctions,
	state: WebhookState,
	managedElsewhere: boolean,
): Promise<Caller> {
	const headers = context.getHeaderData() as Record<string, unknown>;
	if (headers[HANDOFF_HEADERS.version] !== undefined) {
		const bodyText = rawBodyText(context.getRequestObject());
		const verified = await authenticateHandoff(context, state, bodyText);
		if (verified.kind === 'refused') return { kind: 'answered', answer: verified.answer };
		if (verified.kind === 'event') return { kind: 'trigger', bodyText };
		return { kind: 'handoff', handoff: verified.handoff };
	}

	const provided = headers['x-service-secret'];
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
