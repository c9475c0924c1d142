import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { webhookResourceUrl } from '../shared/n8n/capabilities';
import { runLeavesWritesUnsaved } from '../shared/n8n/staticDataSave';
import type { PauseCommand } from '../shared/protocol/pauseCommand';
import { sendHandoff } from '../shared/sharedWebhook/peerClient';
import type { HandoffAnswer } from '../shared/protocol/handoffs';
import type { IdentifiedWait } from '../shared/sendAndWait/waitingRuns';
import { accountKeyOf } from '../shared/sharedWebhook/accountKey';
import type { WebhookState } from '../shared/sharedWebhook/webhookState';
import { personsPause } from './chatPause';
import type { PauseSettings } from './triggerSettings';

/** What a delivery wrote that n8n will not save if the delivery also starts a run. */
export interface UnsavedWrites {
	/** A person's message and the trigger's pause settings (chatPause.ts). */
	pause?: { body: IDataObject; settings: PauseSettings };
	/** Waits whose run no longer waits (replyRouting.ts). */
	droppedWaits: IdentifiedWait[];
}

/**
 * n8n does not save what webhook() wrote to static data when the same request starts a run. So the writes a user
 * relies on (a person's pause; a wait that ended, else offered every message of its chat) are sent to the
 * trigger's own URL as signed hand-offs, which start nothing: n8n saves them, then answers (in queue mode perhaps
 * on another webhook process). What cannot be saved so is logged. Why: docs/design/account-state.md, "Found while
 * measuring: a change made in `webhook()` is not saved when the same request starts a run".
 */
export async function saveOutsideRun(
	context: IWebhookFunctions,
	state: WebhookState,
	unsaved: UnsavedWrites,
	response: IWebhookResponseData,
): Promise<IWebhookResponseData> {
	if (!runLeavesWritesUnsaved(context, response)) return response;
	const noted = unsaved.pause
		? personsPause(unsaved.pause.body, unsaved.pause.settings)
		: undefined;
	if (noted) {
		const command: PauseCommand = {
			chat: noted.chat,
			pause: noted.entry.until > 0,
			at: noted.entry.at,
			until: noted.entry.until,
		};
		if ((await toOwnUrl(context, state, 'pause', command))?.applied !== true) {
			context.logger.warn(
				`Messaging Relay Trigger: the pause of chat ${noted.chat} (a person wrote from the phone) is kept in this n8n process only, not saved: a restart forgets it. Pause the chat again with Message → Pause Automatic Replies if it must hold.`,
				{ workflowId: context.getWorkflow().id, chat: noted.chat },
			);
		}
	}
	// Saved as ended: kept an hour (a late redelivery of its reply), then it goes. Not saved, it is
	// offered the chat's next message again and ended again: no harm, one request more.
	if (unsaved.droppedWaits.length > 0)
		await toOwnUrl(context, state, 'wait', {
			waits: [],
			confirm: [],
			ends: unsaved.droppedWaits.map((w) => w.id),
		});
	return response;
}

/** The trigger's own answer, once n8n saved what it wrote; none when it could not be asked or read. */
async function toOwnUrl<Op extends 'pause' | 'wait'>(
	context: IWebhookFunctions,
	state: WebhookState,
	op: Op,
	body: object,
): Promise<HandoffAnswer<Op> | undefined> {
	const url = webhookResourceUrl(context);
	const key = await accountKeyOf(context, state);
	if (!url || !key) return undefined;
	const answer = await sendHandoff(context, key, op, url, JSON.stringify(body));
	return answer.kind === 'member' ? answer.body : undefined;
}
