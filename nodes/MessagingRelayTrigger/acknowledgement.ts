import type { IWebhookFunctions, INodeProperties } from 'n8n-workflow';

/**
 * When the service gets its 2xx for an event (docs/design/durability-and-conversations.md §1,
 * docs/shared-webhook.md "What a 2xx means").
 *
 * - "When the Workflow Finishes" (`whenFinished`, the default from node version 3): n8n answers when
 *   the execution has ended (its `lastNode` response mode, webhook-helpers.js:727-801; in queue mode
 *   the webhook process waits for the worker's job, workflow-runner.js:513-541). If n8n dies first
 *   (`kill -9`, out of memory), the service has no answer and delivers the event again, so nothing
 *   the service was told "taken" is lost. A run that the kill cut can have done part of its work:
 *   that run is marked `crashed` (single process) or failed (queue mode), and its redelivery runs it
 *   again.
 * - A run that ended in an error gets n8n's own 500 `{"message":"Error in workflow"}`
 *   (webhook-helpers.js:747-758), and the service delivers the event again. It is left that way on
 *   purpose: in queue mode n8n gives the same answer for a job whose worker died mid-run
 *   (workflow-runner.js:106-231, processError finalizes it with an error and no node data), and
 *   nothing the trigger can see tells the two apart. Turning it into a 200 (the first version of
 *   this setting did) lost events when a worker was killed (queue hard-kill test).
 * - "When the Workflow Starts" (`whenStarted`, versions 1 and 2): n8n answers once the execution has
 *   started (`onReceived`): a faster answer, but an event whose run dies with n8n is lost.
 *
 * n8n evaluates `responseMode` and `responseData` per request from the node's parameters
 * (webhook-helpers.js:840-846), so one node type serves both. A parameter hidden by its version is
 * not among the node's parameters: versions 1 and 2 evaluate to today's `onReceived`.
 */
export const ACKNOWLEDGE = { whenFinished: 'whenFinished', whenStarted: 'whenStarted' } as const;

export const RESPONSE_MODE = `={{ $parameter["acknowledge"] === "${ACKNOWLEDGE.whenFinished}" ? "lastNode" : "onReceived" }}`;
/**
 * `noData`: an empty 200 at the run's end (webhook-last-node-response-extractor.js:19-24), never the
 * last node's output (it may hold a reply text or a contact's data). `""` for `onReceived`: n8n
 * answers with webhook()'s `webhookResponse`, {"received":true}.
 */
export const RESPONSE_DATA = `={{ $parameter["acknowledge"] === "${ACKNOWLEDGE.whenFinished}" ? "noData" : "" }}`;

export const acknowledgeProperty: INodeProperties = {
	displayName: 'Acknowledge Events',
	name: 'acknowledge',
	type: 'options',
	noDataExpression: true,
	default: 'whenFinished',
	displayOptions: { show: { '@version': [{ _cnd: { gte: 3 } }] } },
	description: 'When the service is told an event was taken. Until then it delivers the event again.',
	options: [
		{
			name: 'When the Workflow Finishes',
			value: ACKNOWLEDGE.whenFinished,
			description:
				'Nothing is lost if n8n is killed or crashes mid-run: the service delivers the event again. An execution that ends in an error is delivered again too (a node set to On Error: Continue does not end it in an error).',
		},
		{
			name: 'When the Workflow Starts',
			value: ACKNOWLEDGE.whenStarted,
			description:
				'Faster answers for long workflows, but an event whose execution dies with n8n (killed, out of memory) is lost',
		},
	],
};

/** Whether n8n answers this delivery when its execution has ended. */
export function answersAtRunEnd(context: IWebhookFunctions): boolean {
	return context.getNodeParameter('acknowledge', ACKNOWLEDGE.whenStarted) === ACKNOWLEDGE.whenFinished;
}
