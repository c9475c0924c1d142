/**
 * What a user without this package builds from n8n's own nodes, the baselines of section 1: the
 * Webhook node with its own Header Auth credential, which checks `x-service-secret` natively (no
 * expression: n8n-nodes-base Webhook/utils.js:276-292), answering when it receives the request
 * (its default, "Immediately") or when the last node finishes (with no response body, as the
 * trigger's version 3); alone (every event) or followed by an IF on the event type (event
 * selection), and for the auto-reply an HTTP Request to POST /v1/messages after that IF.
 */
import type { IDataObject } from 'n8n-workflow';

import type { CredentialRef, WorkflowData } from '../../test/support/workflows';
import { REPLY_TEXT } from './measure';

/** When the Webhook node answers: "Immediately" (its default) or "When Last Node Finishes", with no body. */
export type PeerAnswer = 'onReceived' | 'lastNode';

function webhookNode(
	webhookId: string,
	path: string,
	headerAuth: CredentialRef,
	answer: PeerAnswer,
): IDataObject {
	const responseMode =
		answer === 'lastNode' ? { responseMode: 'lastNode', responseData: 'noData' } : {};
	return {
		id: 'w',
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId,
		parameters: {
			httpMethod: 'POST',
			path,
			authentication: 'headerAuth',
			...responseMode,
			options: {},
		},
		credentials: { httpHeaderAuth: headerAuth },
	};
}

/** An IF (version 2.2) that lets through the items where `leftValue` equals `rightValue`. */
function ifNode(name: string, leftValue: string, rightValue: string): IDataObject {
	return {
		id: 'i',
		name,
		type: 'n8n-nodes-base.if',
		typeVersion: 2.2,
		position: [220, 0],
		parameters: {
			conditions: {
				options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
				conditions: [
					{ id: 'c1', leftValue, rightValue, operator: { type: 'string', operation: 'equals' } },
				],
				combinator: 'and',
			},
			options: {},
		},
	};
}

/** The reply without this package: an HTTP Request to POST /v1/messages into the message's chat. */
function httpReplyNode(account: { simUrl: string; apiKey: string }): IDataObject {
	return {
		id: 'h',
		name: 'Reply',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [440, 0],
		parameters: {
			method: 'POST',
			url: `${account.simUrl}/v1/messages`,
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'X-API-KEY', value: account.apiKey }] },
			sendBody: true,
			specifyBody: 'json',
			jsonBody: `={{ JSON.stringify({ channelId: $json.body.message.channelId, to: $json.body.message.chatId, text: "${REPLY_TEXT}" }) }}`,
			options: {},
		},
	};
}

const then = (from: string, to: string) => ({
	[from]: { main: [[{ node: to, type: 'main', index: 0 }]] },
});

/** Webhook with Header Auth, nothing after it: every event starts a run. */
export function headerAuthWebhook(
	webhookId: string,
	path: string,
	headerAuth: CredentialRef,
	answer: PeerAnswer,
): WorkflowData {
	return {
		name: `bench: Webhook (Header Auth, ${answer})`,
		nodes: [webhookNode(webhookId, path, headerAuth, answer)],
		connections: {},
	};
}

/** Webhook with Header Auth → IF the event is a message.received (→ HTTP Request reply). */
export function headerAuthWebhookWithTypeIf(
	webhookId: string,
	path: string,
	headerAuth: CredentialRef,
	answer: PeerAnswer,
	replyWith?: { simUrl: string; apiKey: string },
): WorkflowData {
	const nodes = [
		webhookNode(webhookId, path, headerAuth, answer),
		ifNode('Is a message', '={{ $json.body.type }}', 'message.received'),
	];
	let connections: IDataObject = then('Webhook', 'Is a message');
	if (replyWith) {
		nodes.push(httpReplyNode(replyWith));
		connections = { ...connections, ...then('Is a message', 'Reply') };
	}
	return {
		name: `bench: Webhook (Header Auth, ${answer}) → IF event type${replyWith ? ' → HTTP Request' : ''}`,
		nodes,
		connections,
	};
}
