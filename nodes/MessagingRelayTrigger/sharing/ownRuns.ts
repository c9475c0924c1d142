import type { IWebhookFunctions } from 'n8n-workflow';

import type { AnswerEvents } from './deliveryLedger';
import { failedHandoff, setAsideLimits, tookHandoff } from './memberHealth';
import type { WebhookState } from '../../shared/sharedWebhook/webhookState';

/**
 * The holder's record of its own runs (docs/shared-webhook.md, "A workflow whose runs keep
 * failing, wherever it stands"): kept like a member's record (memberHealth.ts), under the holder's
 * own path, so that a holder whose runs keep failing is set aside by the same bound.
 *
 * The verdict of a run is n8n's answer to the request that started it: with "When the Workflow
 * Finishes" n8n answers when the run has ended, 2xx or its 500 "Error in workflow"
 * (webhook-helpers.js:747-758; queue mode: the webhook process waits for the job,
 * workflow-runner.js:513-541). n8n saved the request's static data before that answer
 * (live-webhooks.js:141-147), so the verdict lands in this process's memory, and the next
 * delivery carries it to static data (memberHealth.ts, carryToStaticData).
 */
export function watchOwnRun(context: IWebhookFunctions, state: WebhookState, ownPath: string) {
	const response = context.getResponseObject() as unknown as AnswerEvents;
	let settled = false;
	const settle = () => {
		if (settled) return;
		settled = true;
		// A connection closed before n8n answered says nothing about the run.
		if (!response.writableFinished) return;
		if (response.statusCode < 300) {
			tookHandoff(context, state, ownPath);
			return;
		}
		if (response.statusCode < 500) return;
		if (failedHandoff(context, state, ownPath).justNow) {
			context.logger.warn(
				`Messaging Relay Trigger: this workflow's executions failed for ${Math.round(setAsideLimits.spanMs / 1000)} s (${setAsideLimits.failures} or more failed runs) while it holds the account's shared webhook; it is set aside: the service is answered without waiting for its runs, each event is still offered to it once, and what it misses is reported in its workflow.`,
			);
		}
	};
	response.once('finish', settle);
	response.once('close', settle);
}
