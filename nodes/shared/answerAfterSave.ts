import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { retryLater, type Answer } from './answerRequest';
import { memoryCounter } from './processMemory';
import { canSeeSaves, staticDataSaved } from './n8n/staticDataSave';
import { sendOn, responseOf } from './n8n/webhookResponse';
import { tablesSaveFailed } from './sharedWebhook/accountTable';

/**
 * Answers a request that wrote static data only once n8n has saved it (docs/design/conversations-at-scale.md,
 * "Every write is answered after n8n saved it"): webhook() writes and returns this function's result, n8n
 * saves, then `then` runs and its answer is sent; a save not seen within saveLimits.waitMs is answered 503. At most
 * HELD_LIMIT requests of a process wait for their save at once: beyond, a write is refused before it is made.
 */
export const HELD_LIMIT = 16;
const held = memoryCounter(
	'requests held for their save',
	'requests of this process whose answer waits for n8n to save; a restart drops them unanswered',
);

/** The answer to a request whose save n8n did not make: nothing it wrote may be taken as recorded. */
export const SAVE_NOT_SEEN: Answer = retryLater(
	'n8n did not save this change in time; send it again shortly',
	'soon',
);

/** The answer when the process already holds HELD_LIMIT requests waiting for their save. */
export const OVERLOADED: Answer = retryLater(
	'n8n is saving many changes at once; send this again shortly',
	'soon',
);

/** Whether this request may write now (false: answer OVERLOADED before writing anything). */
export function mayWrite(): boolean {
	return held.value < HELD_LIMIT;
}

/** Whether this n8n lets the package answer after its save (otherwise n8n's own answer after its save is used). */
export const answersAfterSave = canSeeSaves;

/**
 * The webhook result that hands the answer to `then`, run once n8n saved this request's writes
 * (`then` is not run when the save was not seen: SAVE_NOT_SEEN is sent). `then` must not write
 * static data it needs saved: n8n has saved already (what it writes goes with the next write).
 */
export function answerAfterSave(
	context: IWebhookFunctions,
	then: () => Promise<Answer> | Answer,
): IWebhookResponseData {
	held.add();
	void (async () => {
		let answer: Answer;
		try {
			const saved = await staticDataSaved(context);
			if (saved === false) {
				tablesSaveFailed(context);
				answer = SAVE_NOT_SEEN;
			} else {
				answer = await then();
			}
		} catch (error) {
			context.logger.error(
				`Messaging Relay Trigger: a request could not be answered after its save: ${(error as Error).message}`,
			);
			answer = SAVE_NOT_SEEN;
		} finally {
			held.add(-1);
		}
		sendOn(responseOf(context), answer.status, answer.body, answer.headers);
	})();
	return { noWebhookResponse: true };
}
