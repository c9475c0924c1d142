import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { webhookResourceUrl } from '../../shared/n8nCapabilities';
import { forgetMissed, missedSummary } from './memberHealth';
import { receiveWaits } from './receiveWaits';
import { isRegistered, join, takeOver } from '../../shared/sharedWebhook/registration';
import { accountKeyOf } from '../../shared/sharedWebhook/accountKey';
import { proofFor, verifyHandoff } from '../../shared/sharedWebhook/signedHandoff';
import type { WebhookState } from '../../shared/sharedWebhook/webhookState';
import { retryLater, type Answer } from '../../shared/answerRequest';

/**
 * A request from another trigger of the account (docs/shared-webhook.md, "Signed hand-offs").
 * Either it is answered here (`answer`: a 401 for anything unverified, a ping, a takeover, a
 * set-aside member's question about what it missed), or it is a verified forwarded event that the
 * trigger then handles like a service delivery, or a verified pause command from the action node
 * that the trigger applies to its record of paused chats.
 */
export type HandoffOutcome =
	| ({ kind: 'answer' } & Answer)
	| { kind: 'event' }
	/** A verified Pause or Resume Automatic Replies (the trigger applies it, chatPause.ts); `proof` goes in the answer. */
	| { kind: 'pause'; proof: string }
	/** Answered from this response once n8n saved what it wrote (answerAfterSave.ts). */
	| { kind: 'respond'; response: IWebhookResponseData };

/** `body` is the request's body, byte for byte as it arrived (the signature covers it). */
export async function receiveHandoff(
	context: IWebhookFunctions,
	state: WebhookState,
	body: string,
	isTest: boolean,
): Promise<HandoffOutcome> {
	const ownUrl = webhookResourceUrl(context) ?? '';
	const ownPath = new URL(ownUrl).pathname;
	const key = await accountKeyOf(context, state);
	if (!key) {
		// Published a moment ago and n8n has not saved the key yet: the holder retries.
		return { kind: 'answer', ...retryLater('This trigger is not ready for hand-offs yet', 'soon') };
	}
	const check = verifyHandoff(
		key,
		context.getHeaderData() as Record<string, unknown>,
		ownPath,
		body,
	);
	if (!check.ok)
		return { kind: 'answer', status: 401, body: { error: `Invalid hand-off: ${check.reason}` } };

	const proof = proofFor(key, check.nonce, ownPath);
	if (check.op === 'event') return { kind: 'event' };
	if (check.op === 'ping') return { kind: 'answer', status: 200, body: { proof } };
	if (check.op === 'missed')
		return { kind: 'answer', status: 200, body: { proof, ...answerMissed(context, state) } };
	if (check.op === 'pause') return { kind: 'pause', proof };
	// Answered once n8n saved it: "recorded" means in the database, not in this process only.
	if (check.op === 'wait') {
		const outcome = await receiveWaits(context, state, body, proof, key);
		return 'response' in outcome
			? { kind: 'respond', response: outcome.response }
			: { kind: 'answer', ...outcome };
	}
	if (check.op === 'resume')
		return { kind: 'answer', status: 400, body: { error: 'A trigger does not take resumes' } };

	// takeover and repair. A test listener's static data is not saved by n8n: it must never hold the registration.
	if (isTest)
		return { kind: 'answer', status: 409, body: { error: 'A test listener does not take over' } };
	if (check.op === 'repair') return await repairHere(context, { url: ownUrl, key }, proof);
	const leaving = (context.getBodyData() as { leaving?: unknown }).leaving;
	if (typeof leaving !== 'string' || !leaving.startsWith('/')) {
		return {
			kind: 'answer',
			status: 400,
			body: { error: "A takeover names the leaving trigger's path" },
		};
	}
	try {
		const result = await takeOver(context, { url: ownUrl, key, isTest: false }, leaving);
		// Answered only after n8n saved the new secret, so the leaver knows deliveries will verify.
		return { kind: 'answer', status: 200, body: { proof, result }, afterSave: true };
	} catch (error) {
		return {
			kind: 'answer',
			status: 502,
			body: { error: `Could not take over: ${(error as Error).message}` },
		};
	}
}

/**
 * A `repair` from this trigger's own registration check (registrationRepair.ts): what publishing
 * does (checkExists, then create), run inside this webhook call so that n8n saves the new secret
 * with the request and records nothing as failed (docs/registration.md, "A repair that is not an
 * error"). A repair that finds the registration standing (a second check raced it) changes nothing.
 */
async function repairHere(
	context: IWebhookFunctions,
	me: { url: string; key: string },
	proof: string,
): Promise<HandoffOutcome> {
	try {
		const own = { ...me, isTest: false };
		if (await isRegistered(context, own))
			return { kind: 'answer', status: 200, body: { proof, result: 'intact' }, afterSave: true };
		await join(context, own, false);
		return { kind: 'answer', status: 200, body: { proof, result: 'registered' }, afterSave: true };
	} catch (error) {
		return {
			kind: 'answer',
			status: 502,
			body: { error: `Could not register again: ${(error as Error).message}` },
		};
	}
}

/**
 * A member asks what it missed while it was set aside (`{"member": path}`), or tells that it
 * reported them up to a time (`{"member": path, "reportedUpTo": ms}`): memberHealth.ts.
 */
function answerMissed(context: IWebhookFunctions, state: WebhookState): IDataObject {
	const { member, reportedUpTo } = context.getBodyData() as {
		member?: unknown;
		reportedUpTo?: unknown;
	};
	if (typeof member !== 'string' || !member.startsWith('/')) return { missed: null };
	if (typeof reportedUpTo === 'number') forgetMissed(context, state, member, reportedUpTo);
	return { missed: missedSummary(context, state, member) ?? null };
}
