import type {
	INodeExecutionData,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { processKey } from '../shared/processKey';

/**
 * A node with both `webhook()` and `trigger()` is run twice for a test event ("Listen for test
 * event"): n8n first calls webhook() with the request, then executes the workflow in manual
 * mode starting at this node, and for a node that has trigger() it calls trigger() in manual
 * mode and waits for it to emit (n8n-core workflow-execute.js:683-701, triggers-and-pollers.js:54-78),
 * ignoring the data webhook() returned. So webhook() leaves that data here, and trigger() in
 * manual mode emits it. Production deliveries are not affected: outside manual mode n8n passes
 * webhook()'s data through (workflow-execute.js:703).
 *
 * Both calls happen in the process that received the test request, one right after the other.
 */
const pending = new Map<string, INodeExecutionData[][]>();

/** Wraps what webhook() returns: a test event's data is kept for trigger(). */
export function rememberTestEvent(
	context: IWebhookFunctions,
	response: IWebhookResponseData,
): IWebhookResponseData {
	if (context.getMode() === 'manual' && response.workflowData) {
		pending.set(processKey(context), response.workflowData as INodeExecutionData[][]);
	}
	return response;
}

/** trigger() in manual mode: emits the test event webhook() received. */
export function replayTestEvent(this: ITriggerFunctions): ITriggerResponse {
	const key = processKey(this);
	return {
		manualTriggerFunction: async () => {
			const data = pending.get(key);
			pending.delete(key);
			// Without a remembered event (it was received by another process) emit nothing rather
			// than wait forever.
			this.emit(data ?? [[], []]);
		},
	};
}
