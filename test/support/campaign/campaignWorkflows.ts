/**
 * The two campaigns a campaign run compares, as a user builds them (issue 41): runs started by
 * n8n's Webhook node as it is added from the panel (it answers "Immediately", once its run has
 * started), each asking its own contact and waiting for the answer.
 *   - relay: Webhook → Messaging Relay → Send and Wait for Reply (To from the request). The
 *     contact's answer reaches the account's webhook, held by a published Messaging Relay Trigger.
 *   - waitNode: what n8n offers without this package, Webhook → Messaging Relay → Send (its text is
 *     n8n's resume URL, so that the driver can read it) → Wait "On Webhook Call". The answer is a
 *     POST straight to the run's resume URL: no routing, no check of who sends it.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	NODE_TYPES,
	triggerWorkflowData,
	type CredentialRef,
	type WorkflowData,
} from '../workflows';

export type CampaignKind = 'relay' | 'waitNode';

export const QUESTION = 'Your order is ready: when shall we deliver it?';
export const startPath = (kind: CampaignKind) => `campaign-${kind}`;

const webhookNode = (kind: CampaignKind, webhookId: string): IDataObject => ({
	id: 'start',
	name: 'Start',
	type: 'n8n-nodes-base.webhook',
	typeVersion: 2,
	position: [0, 0],
	webhookId,
	parameters: { httpMethod: 'POST', path: startPath(kind), options: {} },
});

const chain = (...names: string[]): IDataObject =>
	Object.fromEntries(
		names
			.slice(0, -1)
			.map((from, i) => [from, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]),
	);

/** Webhook → Send and Wait for Reply to the request's `chat`, no time limit. */
export function relayCampaign(
	credential: CredentialRef,
	webhookIds: [string, string],
): WorkflowData {
	return {
		name: 'campaign: Send and Wait for Reply',
		nodes: [
			webhookNode('relay', webhookIds[0]),
			{
				id: 'ask',
				name: 'Ask',
				type: NODE_TYPES.action,
				typeVersion: 1,
				position: [240, 0],
				webhookId: webhookIds[1],
				parameters: {
					resource: 'message',
					operation: 'sendAndWait',
					waitTo: '={{ $json.body.chat }}',
					waitChannelId: { __rl: true, mode: 'id', value: 'num_main' },
					message: QUESTION,
					responseType: 'freeText',
				},
				credentials: { messagingRelayApi: credential },
			},
		],
		connections: chain('Start', 'Ask'),
		settings: { executionOrder: 'v1' },
	};
}

/** Webhook → Send (n8n's resume URL as its text) → Wait "On Webhook Call". */
export function waitNodeCampaign(
	credential: CredentialRef,
	webhookIds: [string, string],
): WorkflowData {
	return {
		name: "campaign: n8n's Wait node",
		nodes: [
			webhookNode('waitNode', webhookIds[0]),
			{
				id: 'ask',
				name: 'Ask',
				type: NODE_TYPES.action,
				typeVersion: 1,
				position: [240, 0],
				parameters: {
					resource: 'message',
					operation: 'send',
					channelId: { __rl: true, mode: 'id', value: 'num_main' },
					to: '={{ $json.body.chat }}',
					text: '={{ $execution.resumeUrl }}',
				},
				credentials: { messagingRelayApi: credential },
			},
			{
				id: 'wait',
				name: 'Wait',
				type: 'n8n-nodes-base.wait',
				typeVersion: 1.1,
				position: [480, 0],
				webhookId: webhookIds[1],
				parameters: { resume: 'webhook', httpMethod: 'POST', options: {} },
			},
		],
		connections: chain('Start', 'Ask', 'Wait'),
		settings: { executionOrder: 'v1' },
	};
}

/** The account's trigger, published as the README advises (it starts nothing for these chats' answers). */
export function holderWorkflow(credential: CredentialRef, webhookId: string): WorkflowData {
	return triggerWorkflowData({
		name: 'campaign: the account trigger',
		credential,
		webhookId,
		events: ['message.received'],
		typeVersion: 3,
	});
}
