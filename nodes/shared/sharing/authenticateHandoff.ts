import type { IWebhookFunctions } from 'n8n-workflow';

import { retryLater, type Answer } from '../answerRequest';
import { webhookResourceUrl } from '../n8n/capabilities';
import { accountKeyOf } from '../sharedWebhook/accountKey';
import { proofFor, verifyHandoff, type ShareOp } from '../sharedWebhook/signedHandoff';
import type { WebhookState } from '../sharedWebhook/webhookState';

/**
 * Whether a request that says it comes from another trigger of the account does (docs/shared-webhook.md,
 * "Signed hand-offs"): step 1 of webhook(), through whoIsCalling.ts. Nothing changes here but the replay
 * cache's note of the nonce; what a verified control hand-off asks is done by receiveHandoff.ts.
 */
export type VerifiedCall =
	/** Unverified (401), or this trigger cannot verify yet (503): the answer says which. */
	| { kind: 'refused'; answer: Answer }
	/** A verified forwarded event: the trigger handles it like a service delivery. */
	| { kind: 'event' }
	| { kind: 'control'; handoff: ControlHandoff };

/** A verified hand-off other than an event, as its handler gets it. */
export interface ControlHandoff {
	op: Exclude<ShareOp, 'event'>;
	/** The body as it arrived (the signature covers it). */
	body: string;
	/** What the answer carries to show this trigger holds the account key. */
	proof: string;
	key: string;
	ownUrl: string;
}

/** `body` is the request's body, byte for byte as it arrived (the signature covers it). */
export async function authenticateHandoff(
	context: IWebhookFunctions,
	state: WebhookState,
	body: string,
): Promise<VerifiedCall> {
	const ownUrl = webhookResourceUrl(context);
	const key = await accountKeyOf(context, state);
	if (!key || !ownUrl) {
		// Published a moment ago and n8n has not saved the key yet (or has no URL for this webhook
		// yet): the sender retries.
		const notReady = retryLater('This trigger is not ready for hand-offs yet', 'soon');
		return { kind: 'refused', answer: notReady };
	}
	const ownPath = new URL(ownUrl).pathname;
	const headers = context.getHeaderData() as Record<string, unknown>;
	const check = verifyHandoff(key, headers, ownPath, body);
	if (!check.ok) {
		const error = `Invalid hand-off: ${check.reason}`;
		return { kind: 'refused', answer: { status: 401, body: { error } } };
	}
	if (check.op === 'event') return { kind: 'event' };
	const proof = proofFor(key, check.nonce, ownPath);
	return { kind: 'control', handoff: { op: check.op, body, proof, key, ownUrl } };
}
