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
				'Nothing is lost if n8n is killed or crashes mid-run: the service delivers the event again. An execution that ends in an error still counts as taken.',
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

/** The part of Express's response that the rewrite below touches. */
interface JsonResponse {
	statusCode: number;
	status(code: number): unknown;
	json(body: unknown): unknown;
}

/** n8n's answer in `lastNode` mode when the run ended in an error (webhook-helpers.js:747-758). */
const RUN_ENDED_IN_ERROR = 'Error in workflow';

/**
 * An execution that ended in an error has run: it is in n8n's executions list, and running it
 * again at every redelivery would repeat whatever it did before it failed. So n8n's 500 "Error in
 * workflow" for it becomes a 200 that says so. Any other failure (the run could not be started or
 * was cancelled: "There was a problem executing the workflow") stays a 5xx, and the service
 * delivers the event again. If a later n8n words its answer differently, the rewrite does nothing
 * and the service redelivers: the safe side.
 *
 * n8n writes that answer with `res.status(500)` then `res.json(body)`
 * (webhook-request-handler.js:122-144); there is no hook for it, so the rewrite wraps this
 * request's own `res.json`.
 */
export function countFailedRunAsTaken(response: JsonResponse): void {
	const json = response.json.bind(response);
	response.json = (body: unknown) => {
		const message = (body as { message?: unknown } | null | undefined)?.message;
		if (response.statusCode === 500 && message === RUN_ENDED_IN_ERROR) {
			response.status(200);
			return json({ received: true, execution: 'ended with an error' });
		}
		return json(body);
	};
}
