import type { INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { answerRequest, type Answer } from '../shared/answerRequest';
import type { WebhookState } from '../shared/sharedWebhook/webhookState';
import { saveOutsideRun, type UnsavedWrites } from './savedOutsideRun';
import { rememberTestEvent } from './testEventPassThrough';

/**
 * What a request to the trigger comes to (triggerVersion.ts, deliver): every stage of both
 * pipelines, the control hand-off's and the event's, ends in one of these, and answerDelivery
 * alone turns it into what webhook() returns to n8n.
 */
export type DeliveryOutcome =
	/** Refused, asked to deliver again, or answered for someone else: sent at once as it is. */
	| { kind: 'answer'; answer: Answer }
	/** Taken, nothing started: n8n's 200 with why (`ranBefore`: this trigger ran it before). */
	| { kind: 'acknowledge'; ignored: string; ranBefore?: true }
	/** Answered later, by n8n or the package (a held burst, a reply to a run, a save). */
	| { kind: 'held'; response: IWebhookResponseData }
	/**
	 * This trigger's own execution (`run`, or none), with the writes to its static data (`state`)
	 * that n8n will not save with it; `busy`: the service is asked to deliver the event again meanwhile.
	 */
	| {
			kind: 'run';
			run: IWebhookResponseData;
			state: WebhookState;
			unsaved: UnsavedWrites;
			busy?: Answer;
	  };

export async function answerDelivery(
	context: IWebhookFunctions,
	outcome: DeliveryOutcome,
): Promise<IWebhookResponseData> {
	switch (outcome.kind) {
		case 'answer':
			return answerRequest(context, outcome.answer);
		case 'acknowledge': {
			const { ignored, ranBefore } = outcome;
			return { webhookResponse: { received: true, ignored, ...(ranBefore && { ranBefore }) } };
		}
		case 'held':
			return outcome.response;
		case 'run': {
			const kept = await saved(context, outcome.state, outcome.unsaved, outcome.run);
			const workflowData = kept.workflowData as INodeExecutionData[][] | undefined;
			const response = outcome.busy ? answerRequest(context, outcome.busy, workflowData) : kept;
			// A test event's data is kept for trigger() (testEventPassThrough.ts).
			return context.getMode() === 'manual' ? rememberTestEvent(context, response) : response;
		}
	}
}

/** What the event's stages wrote that n8n would not save with a run (savedOutsideRun.ts). */
async function saved(
	context: IWebhookFunctions,
	state: WebhookState,
	unsaved: UnsavedWrites,
	response: IWebhookResponseData,
) {
	if (!unsaved.pause && unsaved.droppedWaits.length === 0) return response;
	return await saveOutsideRun(context, state, unsaved, response);
}
