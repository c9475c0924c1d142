import type { IWebhookFunctions } from 'n8n-workflow';

import { responseOf, whenAnswered } from '../n8n/webhookResponse';
import { failedHandoff, tookHandoff } from './memberHealth';
import { warnSetAside } from './setAsideNotice';
import type { WebhookState } from '../sharedWebhook/webhookState';

/**
 * The holder's record of its own runs, kept like a member's record (memberHealth.ts) under its own path, so that a
 * holder whose runs keep failing is set aside by the same bound. A run's verdict is n8n's answer to the request
 * that started it (at the run's end: 2xx, or its 500 "Error in workflow"); n8n saved that request's static data
 * before, so the verdict lands in memory and the next delivery carries it (memberHealth.ts, carryToStaticData).
 * Why, with n8n's code: docs/shared-webhook.md, "Rule 2: the holder's own run counts like a member's hand-off".
 */
export function watchOwnRun(context: IWebhookFunctions, state: WebhookState, ownPath: string) {
	const startedAt = Date.now();
	whenAnswered(responseOf(context), (statusCode) => {
		// A connection closed before n8n answered says nothing about the run.
		if (statusCode === undefined) return;
		if (statusCode < 300) {
			tookHandoff(context, state, ownPath);
			return;
		}
		if (statusCode < 500) return;
		if (failedHandoff(context, state, ownPath, Date.now(), startedAt).justNow)
			warnSetAside(context.logger, ownPath, true);
	});
}
