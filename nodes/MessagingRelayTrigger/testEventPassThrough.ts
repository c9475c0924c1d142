import type {
	INodeExecutionData,
	ITriggerFunctions,
	ITriggerResponse,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { processKey } from '../shared/processKey';
import { memorySlot } from '../shared/processMemory';

/**
 * A node with both `webhook()` and `trigger()` is run twice for a test event ("Listen for test event"): n8n calls
 * webhook(), then trigger() in manual mode, and runs what trigger() emits, ignoring webhook()'s data (n8n-core's
 * WorkflowExecute.executeTriggerNode, TriggersAndPollers.runTriggerFunction). So webhook() leaves that data here
 * and trigger() emits it; both calls happen in the process that received the request, one after the other.
 * Production deliveries pass through. Details: docs/registration.md, "Test events".
 */
const pending = memorySlot<INodeExecutionData[][]>('test events', {
	holds:
		'a test event from webhook() for trigger(), by listener; emitted at once, so kept 10 minutes',
	maxEntries: 100,
	maxAgeMs: 10 * 60_000,
});

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
