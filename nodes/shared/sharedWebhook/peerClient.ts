import type {
	IExecuteFunctions,
	IHookFunctions,
	IN8nHttpFullResponse,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { readHandoffAnswer, type HandoffAnswer } from '../protocol/handoffs';
import { proofFor, signHandoff, type ShareOp } from './signedHandoff';

/**
 * The contexts a trigger talks to other triggers from (activation hooks, webhook calls, the repair
 * check), and the action node's Pause and Resume Automatic Replies and Send and Wait for Reply.
 */
export type ShareContext =
	| IHookFunctions
	| IWebhookFunctions
	| ITriggerFunctions
	| IExecuteFunctions;

/**
 * What another trigger's URL answered (docs/shared-webhook.md). `member` means a trigger of this
 * account took the hand-off (and, for all but an event, proved it holds the account key); `body` is
 * its answer as the hand-off's schema reads it (protocol/handoffs.ts), none when it does not match.
 */
export type PeerAnswer<Body = unknown> =
	| { kind: 'member'; body: Body | undefined }
	/** n8n has no webhook at that path: the workflow is unpublished or deleted. */
	| { kind: 'gone' }
	/** Answered, but not as a trigger with this API key (401, a wrong proof, another 4xx). */
	| { kind: 'stranger'; statusCode: number }
	/**
	 * No usable answer: 5xx, timeout, connection refused. It may be busy. `runFailed`: n8n's 500
	 * "Error in workflow", the member's run happened and ended in an error.
	 */
	| { kind: 'unavailable'; statusCode?: number; timedOut?: boolean; runFailed?: boolean };

/**
 * An event forward waits as long as a member may hold it: a member with "Combine Messages
 * Within" answers a held message only once its combined execution is saved, at most 60 s after
 * the burst's first message (burstMerge.ts, burstLimits.maxHoldMs).
 */
const TIMEOUTS_MS: Record<ShareOp, number> = {
	ping: 3_000,
	event: 75_000,
	takeover: 20_000,
	missed: 3_000,
	pause: 5_000,
	wait: 5_000,
	resume: 20_000,
	// A join inside the trigger's own webhook call: up to five rounds of GET, PUT, pause, GET.
	repair: 20_000,
};
/** Pauses before the 2nd and 3rd try of an event forward. */
export const FORWARD_PAUSES_MS = [200, 800];

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}

async function sendOnce<Op extends ShareOp>(
	context: ShareContext,
	key: string,
	op: Op,
	url: string,
	body: string,
	timeoutMs: number,
): Promise<PeerAnswer<HandoffAnswer<Op>>> {
	const targetPath = new URL(url).pathname;
	const { headers, nonce } = signHandoff(key, op, targetPath, body);
	let response: IN8nHttpFullResponse;
	const started = Date.now();
	try {
		response = (await context.helpers.httpRequest({
			method: 'POST',
			url,
			body,
			headers: { ...headers, 'content-type': 'application/json' },
			json: false,
			encoding: 'text',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: timeoutMs,
		})) as IN8nHttpFullResponse;
	} catch {
		// The error object carries the request config (our signature); only the fact is kept.
		return { kind: 'unavailable', timedOut: Date.now() - started >= timeoutMs * 0.95 };
	}
	const { statusCode } = response;
	const parsed = parseJson(typeof response.body === 'string' ? response.body : '');
	if (statusCode === 404) return { kind: 'gone' };
	if (statusCode === 500 && ranAndFailed(parsed))
		return { kind: 'unavailable', statusCode, runFailed: true };
	if (statusCode >= 500 || statusCode === 429 || statusCode === 408)
		return { kind: 'unavailable', statusCode };
	if (statusCode < 200 || statusCode >= 300) return { kind: 'stranger', statusCode };
	if (op !== 'event' && proofIn(parsed) !== proofFor(key, nonce, targetPath))
		return { kind: 'stranger', statusCode };
	return { kind: 'member', body: readHandoffAnswer(op, parsed) };
}

function proofIn(body: unknown): unknown {
	return body !== null && typeof body === 'object' && 'proof' in body ? body.proof : undefined;
}

/**
 * n8n's answer for a run that ended in an error, with "When the Workflow Finishes" (lastNode), from its
 * executeWebhook; in queue mode also for a job whose worker died (WorkflowRunner.processError). Where:
 * docs/shared-webhook.md, "Rule 1: a forward answered "Error in workflow" is not tried again at once".
 */
function ranAndFailed(body: unknown): boolean {
	return (
		body !== null &&
		typeof body === 'object' &&
		'message' in body &&
		body.message === 'Error in workflow'
	);
}

/**
 * One signed hand-off; events are tried up to three times while the member refuses the connection or answers
 * 5xx. Not tried again at once (the service's redelivery, after the holder's 503, comes back to it): a member that
 * let a forward time out, and one whose run happened and failed (n8n's "Error in workflow": a second try would fail
 * the same way; docs/shared-webhook.md, "A workflow whose runs keep failing"). `once`: a single try with this
 * time-out (an event offered to a set-aside member, memberHealth.ts).
 */
export async function sendHandoff<Op extends ShareOp>(
	context: ShareContext,
	key: string,
	op: Op,
	url: string,
	body: string,
	once?: { timeoutMs: number },
): Promise<PeerAnswer<HandoffAnswer<Op>>> {
	const timeoutMs = once?.timeoutMs ?? TIMEOUTS_MS[op];
	const pauses = op === 'event' && !once ? FORWARD_PAUSES_MS : [];
	let answer = await sendOnce(context, key, op, url, body, timeoutMs);
	for (const pause of pauses) {
		if (answer.kind !== 'unavailable' || answer.timedOut || answer.runFailed) break;
		await sleep(pause);
		answer = await sendOnce(context, key, op, url, body, timeoutMs);
	}
	return answer;
}

export async function ping(
	context: ShareContext,
	key: string,
	url: string,
): Promise<PeerAnswer<HandoffAnswer<'ping'>>> {
	return await sendHandoff(context, key, 'ping', url, '{}');
}
