import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { readHandoffRequest } from '../protocol/handoffs';
import type { MissedSummary } from '../protocol/missed';
import { forgetMissed, missedSummary } from './memberHealth';
import { receiveWaits } from './receiveWaits';
import { isRegistered, join, takeOver } from '../sharedWebhook/registration';
import { repairTables } from '../sharedWebhook/accountTable';
import { recordWaits } from '../sendAndWait/waitingRuns';
import type { ControlHandoff } from './authenticateHandoff';
import type { WebhookState } from '../sharedWebhook/webhookState';
import type { Answer } from '../answerRequest';
import { answerAfterSave, answersAfterSave, mayWrite, OVERLOADED } from '../answerAfterSave';

/**
 * What the trigger does with a pause hand-off's body (its chatPause.ts): the fields of the answer.
 * Given by the trigger, which owns the chat pauses and their setting.
 */
export type ApplyPauseCommand = (
	context: IWebhookFunctions,
	state: WebhookState,
	bodyText: string,
) => IDataObject;

/**
 * What a verified control hand-off from another trigger of the account asks, done
 * (docs/shared-webhook.md, "Signed hand-offs"): a ping, a takeover, a repair, waits to record, a pause
 * to apply, what a set-aside member missed. Who sent it was settled before (authenticateHandoff.ts).
 * The result is n8n's answer now, or the held response that answers once n8n saved the request.
 */
export type HandoffResult =
	| { kind: 'answered'; answer: Answer }
	| { kind: 'responded'; response: IWebhookResponseData };

/** Does what a verified control hand-off asks, through its op's handler. */
export async function receiveHandoff(
	context: IWebhookFunctions,
	state: WebhookState,
	handoff: ControlHandoff,
	applyPauseCommand: ApplyPauseCommand,
): Promise<HandoffResult> {
	const isTest = context.getMode() === 'manual';
	const result = await HANDLERS[handoff.op]({
		...handoff,
		context,
		state,
		isTest,
		applyPauseCommand,
	});
	// Rows of this process that another process's save dropped go back with this request (not with a
	// refusal), after the handler: a confirm reads what the request loaded before anything is written.
	if (result.kind === 'responded' || result.answer.status < 300) repairTables(context, state);
	return result;
}

/** A verified hand-off where it is handled. */
interface Handoff extends ControlHandoff {
	context: IWebhookFunctions;
	state: WebhookState;
	isTest: boolean;
	applyPauseCommand: ApplyPauseCommand;
}

const answered = (status: number, body: IDataObject, afterSave?: true): HandoffResult => ({
	kind: 'answered',
	answer: afterSave ? { status, body, afterSave } : { status, body },
});

/** What each hand-off does here, by its op (docs/shared-webhook.md, "Signed hand-offs"). */
const HANDLERS: Record<
	ControlHandoff['op'],
	(handoff: Handoff) => HandoffResult | Promise<HandoffResult>
> = {
	ping: ({ proof }) => answered(200, { proof }),
	missed: ({ context, state, body, proof }) =>
		answered(200, { proof, missed: answerMissed(context, state, body) }),
	pause: applyPause,
	// Answered once n8n saved it: "recorded" means in the database, not in this process only.
	wait: async ({ context, state, body, proof, key }) => {
		const outcome = await receiveWaits(context, state, body, proof, key);
		return 'response' in outcome
			? { kind: 'responded', response: outcome.response }
			: { kind: 'answered', answer: outcome };
	},
	resume: () => answered(400, { error: 'A trigger does not take resumes' }),
	takeover: async (handoff) => refusedAsTest(handoff) ?? (await takeOverHere(handoff)),
	repair: async (handoff) => refusedAsTest(handoff) ?? (await repairHere(handoff)),
};

/**
 * A verified Pause or Resume Automatic Replies (the trigger's chatPause.ts), answered with the proof once n8n saved
 * it: "applied" means in the database (savedOutsideRun.ts relies on it).
 */
function applyPause({ context, state, body, proof, applyPauseCommand }: Handoff): HandoffResult {
	if (!mayWrite()) return { kind: 'answered', answer: OVERLOADED };
	const applied: Answer = {
		status: 200,
		body: { proof, ...applyPauseCommand(context, state, body) },
	};
	if (!answersAfterSave(context))
		return { kind: 'answered', answer: { ...applied, afterSave: true } };
	return { kind: 'responded', response: answerAfterSave(context, () => applied) };
}

/** A test listener's static data is not saved by n8n: it must never hold the registration. */
function refusedAsTest({ isTest }: Handoff): HandoffResult | undefined {
	if (!isTest) return undefined;
	return answered(409, { error: 'A test listener does not take over' });
}

async function takeOverHere({
	context,
	body,
	proof,
	key,
	ownUrl,
}: Handoff): Promise<HandoffResult> {
	const request = readHandoffRequest('takeover', body);
	if (!request) return answered(400, { error: "A takeover names the leaving trigger's path" });
	try {
		const result = await takeOver(context, { url: ownUrl, key, isTest: false }, request.leaving);
		// Answered only after n8n saved the new secret, so the leaver knows deliveries will verify.
		return answered(200, { proof, result }, true);
	} catch (error) {
		return answered(502, { error: `Could not take over: ${(error as Error).message}` });
	}
}

/**
 * A `repair` from this trigger's own registration check (registrationRepair.ts): what publishing
 * does (checkExists, then create), run inside this webhook call so that n8n saves the new secret
 * with the request and records nothing as failed (docs/registration.md, "A repair that is not an
 * error"). A repair that finds the registration standing (a second check raced it) changes nothing.
 */
async function repairHere({ context, state, ownUrl, key, proof }: Handoff): Promise<HandoffResult> {
	try {
		const own = { url: ownUrl, key, isTest: false };
		if (await isRegistered(context, own)) return answered(200, { proof, result: 'intact' }, true);
		await join(context, own, false, (waits) => recordWaits(context, state, waits));
		return answered(200, { proof, result: 'registered' }, true);
	} catch (error) {
		return answered(502, { error: `Could not register again: ${(error as Error).message}` });
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
