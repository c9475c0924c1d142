import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { MessagingRelayTriggerVersion } from './triggerVersion';

/**
 * The trigger, one node type at three versions with the same parameters and code, which differ in what n8n does
 * with a request: from 2 on, n8n's parseRequestBody evaluates no "binary data" expression for it; 3 (the default
 * for new nodes) adds "Acknowledge Events", answering when the execution has ended (acknowledgement.ts), while 1
 * and 2 keep answering when it starts. Each version set has a webhook description of its own (webhookAnswer.ts),
 * so n8n evaluates no expression per delivery: docs/performance.md, "What n8n evaluates per delivery".
 */
export class MessagingRelayTrigger extends VersionedNodeType {
	constructor() {
		const baseDescription: INodeTypeBaseDescription = {
			displayName: 'Messaging Relay Trigger',
			name: 'messagingRelayTrigger',
			icon: {
				light: 'file:../../icons/messagingRelayTrigger.svg',
				dark: 'file:../../icons/messagingRelayTrigger.dark.svg',
			},
			group: ['trigger'],
			subtitle: '={{ $parameter["events"].join(", ") }}',
			description:
				'Starts the workflow when Messaging Relay pushes an event: messages, groups, numbers',
			defaultVersion: 3,
		};
		const startedAnswer = new MessagingRelayTriggerVersion(baseDescription, [1, 2]);
		super(
			{
				1: startedAnswer,
				2: startedAnswer,
				3: new MessagingRelayTriggerVersion(baseDescription, [3]),
			},
			baseDescription,
		);
	}
}
