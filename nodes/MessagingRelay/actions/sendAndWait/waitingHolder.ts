import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { executionCustomData } from '../../../shared/n8n/capabilities';
import { secretCheckOf } from '../../../shared/serviceSecret';
import { deleteWebhook, readWebhook } from '../../../shared/webhookApi';
import { ping } from '../../../shared/sharedWebhook/peerClient';
import { parseRegistration, type Registration } from '../../../shared/sharedWebhook/registeredUrl';
import {
	conflictError,
	registerOrExplain,
} from '../../../shared/sharedWebhook/registrationFailures';
import { waitFromUrl } from '../../../shared/protocol/waitingRunUrl';
import { WAIT_CAPACITY } from '../../../shared/sendAndWait/waitingRuns';

/**
 * A Send and Wait for Reply run that holds the account's webhook itself, because no Messaging Relay Trigger is
 * published on the account (docs/design/durability-and-conversations.md §5b). It registers n8n's signed resume
 * URL with the whole wait record signed in (a trigger published later reads the wait from `GET /v1/webhook`), and
 * keeps only a keyed hash of the service's secret, in the run's custom data. It can never learn a newer secret, so
 * nothing may take the webhook from it but a trigger that then routes the run's answer.
 */

/** The custom-data key of the hash of the service's secret (never the secret itself). */
export const SECRET_CHECK = 'relayWebhookCheck';
/** Long enough for a racing registration's PUT to land before we look again (as registration.ts). */
const CONFIRM_PAUSE_MS = 250;

/** Where the account's events go, as the waiting node needs to know before it asks. */
export type Receiver =
	/** A trigger's shared registration on this n8n: tell every trigger (§5). */
	| { kind: 'triggers'; registration: Registration }
	/** Nothing, or a run that no longer waits: this run may hold the webhook. */
	| { kind: 'free' };

function sameOrigin(a: string, b: string): boolean {
	return new URL(a).origin === new URL(b).origin;
}

function anotherRunWaits(node: ReturnType<IExecuteFunctions['getNode']>): NodeOperationError {
	return new NodeOperationError(
		node,
		'Another run is already waiting for a reply on this account, and no Messaging Relay Trigger is published on it',
		{
			description: `The question was not sent. Without a published trigger only one run at a time can wait on an account, because the run that waits holds the account's webhook itself. Publish a workflow with a Messaging Relay Trigger on this account (it may do nothing else); then up to ${WAIT_CAPACITY.toLocaleString('en-US')} runs can wait at once.`,
		},
	);
}

/**
 * Reads the account's webhook and says whether the triggers route this run's answer or the run
 * may hold the webhook; throws the clear error when another run holds it, and the conflict error
 * when something else does.
 */
export async function findReceiver(
	this: IExecuteFunctions,
	key: string,
	ownUrl: string,
): Promise<Receiver> {
	const current = await readWebhook.call(this, 0);
	if (!current) return { kind: 'free' };
	const registration = parseRegistration(current.url);
	if (registration?.shared && sameOrigin(current.url, ownUrl))
		return { kind: 'triggers', registration };
	if (waitFromUrl(current.url) && sameOrigin(current.url, ownUrl)) {
		// A run that still waits answers the ping with the account key's proof; n8n answers for
		// one that ended (200 without a proof when finished, 409 running, 404 deleted).
		const answer = await ping(this, key, current.url);
		if (answer.kind === 'member' || answer.kind === 'unavailable')
			throw anotherRunWaits(this.getNode());
		return { kind: 'free' };
	}
	throw conflictError(this.getNode(), current.url, 'foreign');
}

/**
 * PUTs this run's resume URL and keeps the hash of the secret in the run's custom data; then
 * looks again, as a joining trigger does: a trigger that registered meanwhile routes the answer
 * instead (its registration is returned), another run that did is the clear error.
 */
export async function holdWebhook(
	this: IExecuteFunctions,
	key: string,
	ownUrl: string,
): Promise<Registration | undefined> {
	const secret = await registerOrExplain(this, ownUrl);
	executionCustomData(this).set(SECRET_CHECK, secretCheckOf(key, secret));
	await sleep(CONFIRM_PAUSE_MS + Math.floor(Math.random() * CONFIRM_PAUSE_MS));
	const now = await readWebhook.call(this, 0);
	if (!now || now.url === ownUrl) return undefined;
	const registration = parseRegistration(now.url);
	if (registration?.shared && sameOrigin(now.url, ownUrl)) return registration;
	if (waitFromUrl(now.url)) throw anotherRunWaits(this.getNode());
	throw conflictError(this.getNode(), now.url, 'foreign');
}

/**
 * After the run took its answer: the account's webhook is deleted when it is still this run's, so
 * that the service stops posting to a finished run and the next one starts clean. A failure here
 * does not fail the answer (the next Send and Wait or trigger finds the run ended).
 */
export async function releaseWebhook(this: IWebhookFunctions): Promise<void> {
	try {
		const current = await readWebhook.call(this);
		if (current && waitFromUrl(current.url)?.executionId === String(this.getExecutionId()))
			await deleteWebhook.call(this);
	} catch {
		// Left as is: the registration names a run that has ended, which every joiner recognises.
	}
}
