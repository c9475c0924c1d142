import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { sendOn, responseOf } from './n8n/webhookResponse';

/** An answer to a webhook request; `afterSave`: only once n8n saved the workflow's static data. */
export interface Answer {
	status: number;
	body: IDataObject;
	headers?: Record<string, string>;
	afterSave?: boolean;
}

/**
 * Retry-After of every 503 the package answers, in seconds: `soon` when what is missing comes with
 * n8n's next save (a write, a registration, a key); `later` when it waits on a run or a trigger.
 */
export const RETRY_AFTER = { soon: '2', later: '5' } as const;

/** The service's "deliver it again": 503 with the reason and its Retry-After. */
export function retryLater(error: string, after: keyof typeof RETRY_AFTER): Answer {
	return { status: 503, body: { error }, headers: { 'Retry-After': RETRY_AFTER[after] } };
}

/**
 * The one way the package's webhooks answer a request (the trigger, and a Send and Wait run that
 * waits): directly, so that n8n adds nothing; with `workflowData`, n8n also runs (or resumes) the
 * workflow. An answer that must wait for n8n's save goes through n8n's own 200 response instead.
 */
export function answerRequest(
	context: IWebhookFunctions,
	{ status, body, headers = {}, afterSave }: Answer,
	workflowData?: INodeExecutionData[][],
): IWebhookResponseData {
	if (afterSave) return { webhookResponse: body, ...(workflowData && { workflowData }) };
	sendOn(responseOf(context), status, body, headers);
	return { noWebhookResponse: true, ...(workflowData && { workflowData }) };
}
