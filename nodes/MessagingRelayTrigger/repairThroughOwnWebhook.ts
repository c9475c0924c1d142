import type { ITriggerFunctions } from 'n8n-workflow';

import { accountKeyOf } from '../shared/sharedWebhook/accountKey';
import { sendHandoff } from '../shared/sharedWebhook/peerClient';
import { webhookState } from '../shared/sharedWebhook/webhookState';

/**
 * The check registers a lost registration again through the trigger's own production URL: a signed
 * `repair` hand-off that the trigger's webhook() takes (receiveHandoff.ts). n8n saves static data
 * after every production webhook call, so the new secret reaches the database with no execution and
 * no error; a PUT from trigger() itself would stay in this process's memory. Races and the fallback:
 * docs/registration.md, "A repair that is not an error".
 */
export type OwnRepair =
	| { ok: true; result: 'registered' | 'intact' }
	/** Why the fallback (n8n publishing the workflow again) is needed, for n8n's log. */
	| { ok: false; why: string };

export async function repairThroughOwnWebhook(context: ITriggerFunctions): Promise<OwnRepair> {
	const state = webhookState(context);
	const key = await accountKeyOf(context, state);
	if (!key || !state.ownUrl)
		return { ok: false, why: 'this trigger has no stored URL or account key' };
	const answer = await sendHandoff(context, key, 'repair', state.ownUrl, '{}');
	if (answer.kind === 'member') {
		return { ok: true, result: answer.body?.result === 'intact' ? 'intact' : 'registered' };
	}
	if (answer.kind === 'gone') return { ok: false, why: 'n8n no longer serves its webhook URL' };
	// A stranger's status (401, another 4xx) or an unavailable one's (5xx, 429): the same words.
	if (answer.kind === 'stranger' || answer.statusCode !== undefined)
		return { ok: false, why: `its webhook URL answered ${answer.statusCode}` };
	return {
		ok: false,
		why: answer.timedOut
			? 'its webhook URL did not answer in time'
			: 'n8n could not reach its webhook URL',
	};
}
