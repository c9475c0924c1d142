import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { webhookResourceUrl } from '../../shared/n8n/capabilities';
import { readHandoffRequest } from '../../shared/protocol/handoffs';
import type { MissedSummary } from '../../shared/protocol/missed';
import { forgetMissed, missedSummary } from './memberHealth';
import { receiveWaits } from './receiveWaits';
import { isRegistered, join, takeOver } from '../../shared/sharedWebhook/registration';
import { accountKeyOf } from '../../shared/sharedWebhook/accountKey';
import { proofFor, verifyHandoff, type ShareOp } from '../../shared/sharedWebhook/signedHandoff';
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
	return await HANDLERS[check.op]({ context, state, body, proof, key, ownUrl, isTest });
}

/** A verified hand-off, as its handler gets it. */
interface Handoff {
	context: IWebhookFunctions;
	state: WebhookState;
	/** The body as it arrived. */
	body: string;
	/** What the answer carries to show this trigger holds the account key. */
	proof: string;
	key: string;
	ownUrl: string;
	isTest: boolean;
}

/** What each hand-off does here, by its op (docs/shared-webhook.md, "Signed hand-offs"). */
const HANDLERS: Record<
	Exclude<ShareOp, 'event'>,
	(handoff: Handoff) => HandoffOutcome | Promise<HandoffOutcome>
> = {
	ping: ({ proof }) => ({ kind: 'answer', status: 200, body: { proof } }),
	missed: ({ context, state, body, proof }) => ({
		kind: 'answer',
		status: 200,
		body: { proof, missed: answerMissed(context, state, body) },
	}),
	pause: ({ proof }) => ({ kind: 'pause', proof }),
	// Answered once n8n saved it: "recorded" means in the database, not in this process only.
	wait: async ({ context, state, body, proof, key }) => {
		const outcome = await receiveWaits(context, state, body, proof, key);
		return 'response' in outcome
			? { kind: 'respond', response: outcome.response }
			: { kind: 'answer', ...outcome };
	},
	resume: () => ({
		kind: 'answer',
		status: 400,
		body: { error: 'A trigger does not take resumes' },
	}),
	takeover: async (handoff) => refusedAsTest(handoff) ?? (await takeOverHere(handoff)),
	repair: async (handoff) => refusedAsTest(handoff) ?? (await repairHere(handoff)),
};

/** A test listener's static data is not saved by n8n: it must never hold the registration. */
function refusedAsTest({ isTest }: Handoff): HandoffOutcome | undefined {
	if (!isTest) return undefined;
	return { kind: 'answer', status: 409, body: { error: 'A test listener does not take over' } };
}

async function takeOverHere({
	context,
	body,
	proof,
	key,
	ownUrl,
}: Handoff): Promise<HandoffOutcome> {
	const request = readHandoffRequest('takeover', body);
	if (!request) {
		return {
			kind: 'answer',
			status: 400,
			body: { error: "A takeover names the leaving trigger's path" },
		};
	}
	try {
		const result = await takeOver(context, { url: ownUrl, key, isTest: false }, request.leaving);
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
async function repairHere({ context, ownUrl, key, proof }: Handoff): Promise<HandoffOutcome> {
	try {
		const own = { url: ownUrl, key, isTest: false };
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
function answerMissed(
	context: IWebhookFunctions,
	state: WebhookState,
	body: string,
): MissedSummary | null {
	const request = readHandoffRequest('missed', body);
	if (!request) return null;
	if (request.reportedUpTo !== undefined)
		forgetMissed(context, state, request.member, request.reportedUpTo);
	return missedSummary(context, state, request.member) ?? null;
}
