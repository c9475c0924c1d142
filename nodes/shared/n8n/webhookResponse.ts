import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

/**
 * n8n's Express response to a webhook request, as the package uses it (docs/design/n8n-internals.md,
 * "The response a webhook answers itself"). The bets: `getResponseObject()` is the response n8n would
 * answer with; when webhook() returns `noWebhookResponse`, n8n sends nothing and the node owns it; it
 * emits `finish` once an answer went out and `close` when the connection ends.
 */
export interface WebhookResponse {
	statusCode: number;
	readonly writableFinished: boolean;
	readonly headersSent: boolean;
	once(event: 'finish' | 'close', listener: () => void): unknown;
	status(code: number): WebhookResponse;
	setHeader(name: string, value: string): unknown;
	json(body: unknown): unknown;
}

/** The response of the request being served: the one place the package reads it. */
export function responseOf(context: IWebhookFunctions): WebhookResponse {
	return context.getResponseObject();
}

/** Sends an answer on a response nobody answered yet (a later answer is dropped). */
export function sendOn(
	response: WebhookResponse,
	status: number,
	body: IDataObject,
	headers: Record<string, string> = {},
) {
	if (response.headersSent || response.writableFinished) return;
	for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
	response.status(status).json(body);
}

/**
 * Calls `settled` once, when an answer has gone out (its status) or the connection closed first
 * (`undefined`: the request was not answered, and says nothing about the run).
 */
export function whenAnswered(
	response: WebhookResponse,
	settled: (statusCode: number | undefined) => void,
) {
	let done = false;
	const settle = () => {
		if (done) return;
		done = true;
		settled(response.writableFinished ? response.statusCode : undefined);
	};
	response.once('finish', settle);
	response.once('close', settle);
}
