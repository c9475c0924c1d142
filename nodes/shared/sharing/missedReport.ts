import type { ITriggerFunctions } from 'n8n-workflow';

import type { MissedSummary } from '../protocol/missed';
import { sendHandoff } from '../sharedWebhook/peerClient';
import { accountKeyOf } from '../sharedWebhook/accountKey';
import { webhookState } from '../sharedWebhook/webhookState';

/**
 * The member's side of being set aside (docs/shared-webhook.md, "A member that cannot take events
 * for long"): at its registration check it asks the holder what it missed, and once it has
 * reported that, tells the holder up to when, so the holder forgets those. Two signed `missed`
 * hand-offs; a holder that cannot be reached is asked again at the next check.
 */
export async function askWhatWasMissed(
	context: ITriggerFunctions,
	holderUrl: string,
): Promise<MissedSummary | undefined> {
	return await missedHandoff(context, holderUrl, {});
}

export async function confirmReported(
	context: ITriggerFunctions,
	holderUrl: string,
	upTo: number,
): Promise<void> {
	await missedHandoff(context, holderUrl, { reportedUpTo: upTo });
}

async function missedHandoff(
	context: ITriggerFunctions,
	holderUrl: string,
	extra: Record<string, number>,
): Promise<MissedSummary | undefined> {
	const state = webhookState(context);
	const { ownUrl } = state;
	const shareKey = await accountKeyOf(context, state);
	if (!shareKey || !ownUrl) return undefined;
	const body = JSON.stringify({ member: new URL(ownUrl).pathname, ...extra });
	const answer = await sendHandoff(context, shareKey, 'missed', holderUrl, body);
	if (answer.kind !== 'member') return undefined;
	const missed = answer.body?.missed;
	return missed && missed.count > 0 ? missed : undefined;
}
