import type { INodeProperties, IWebhookFunctions } from 'n8n-workflow';

import { ACKNOWLEDGE, type Acknowledge } from '../shared/protocol/acknowledge';

/**
 * When the service gets its 2xx for an event. "When the Workflow Finishes" (the default from version 3) is n8n's
 * `lastNode` mode: answered when the execution has ended, so an event whose run dies with n8n is delivered again,
 * and a run that failed gets n8n's 500 "Error in workflow" (kept on purpose). "When the Workflow Starts" (versions
 * 1 and 2) is `onReceived`. Why, with n8n's code: docs/design/n8n-internals.md, "Acknowledge Events: when n8n
 * answers a delivery"; the protocol: docs/shared-webhook.md, "What a 2xx means".
 */

export const acknowledgeProperty: INodeProperties = {
	displayName: 'Acknowledge Events',
	name: 'acknowledge',
	type: 'options',
	noDataExpression: true,
	default: 'whenFinished',
	displayOptions: { show: { '@version': [{ _cnd: { gte: 3 } }] } },
	description:
		'When the service is told an event was taken. Until then it delivers the event again.',
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

/** Acknowledge Events as this delivery reads it; versions 1 and 2 have no such parameter: when it starts. */
export function acknowledgeOf(context: Pick<IWebhookFunctions, 'getNodeParameter'>): Acknowledge {
	return context.getNodeParameter('acknowledge', ACKNOWLEDGE.whenStarted) ===
		ACKNOWLEDGE.whenFinished
		? ACKNOWLEDGE.whenFinished
		: ACKNOWLEDGE.whenStarted;
}
