import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../shared/scopes';
import { readWebhook } from '../shared/webhookApi';
import type { HandoffAnswer } from '../shared/protocol/handoffs';
import { sendHandoff, type PeerAnswer } from '../shared/sharedWebhook/peerClient';
import {
	allMembers,
	parseRegistration,
	type Registration,
} from '../shared/sharedWebhook/registeredUrl';
import { deriveShareKey, type ShareOp } from '../shared/sharedWebhook/signedHandoff';

/**
 * What the action node sends to every published trigger of the account (Pause and Resume
 * Automatic Replies, Send and Wait for Reply): the registered webhook lists the holder and every
 * member (registeredUrl.ts), and each gets the same body as a hand-off signed with the key
 * derived from this credential's API key (signedHandoff.ts).
 */
export interface TriggerAnswers<Op extends ShareOp> {
	registration: Registration;
	answers: Array<{ path: string; answer: PeerAnswer<HandoffAnswer<Op>> }>;
}

/** The account's published triggers, from its registered webhook; a clear error when there are none. */
export async function accountTriggers(
	this: IExecuteFunctions,
	itemIndex: number,
	what: string,
): Promise<Registration> {
	const webhook = await readWebhook.call(this, itemIndex);
	const registration = webhook ? parseRegistration(webhook.url) : undefined;
	if (!registration?.shared) {
		throw new NodeOperationError(
			this.getNode(),
			`No Messaging Relay Trigger is published on this account [item ${itemIndex}]`,
			{
				itemIndex,
				description: webhook
					? `The account's webhook points at a URL that is not a Messaging Relay Trigger (it was set elsewhere), so no workflow of this n8n can ${what}.`
					: `Publish a workflow with a Messaging Relay Trigger on this account (its credential's API key): ${what} works through it.`,
			},
		);
	}
	return registration;
}

/** Sends `body` as a signed `op` hand-off to every trigger the registration lists, at once. */
export async function tellAllTriggers<Op extends ShareOp>(
	context: IExecuteFunctions,
	registration: Registration,
	itemIndex: number,
	op: Op,
	body: string,
): Promise<TriggerAnswers<Op>> {
	const { apiKey } = await context.getCredentials<{ apiKey: string }>(CREDENTIAL_NAME, itemIndex);
	const key = deriveShareKey(apiKey);
	const paths = [registration.holderPath, ...allMembers(registration)];
	const answers = await Promise.all(
		paths.map(async (path) => ({
			path,
			answer: await sendHandoff(context, key, op, `${registration.origin}${path}`, body),
		})),
	);
	return { registration, answers };
}
