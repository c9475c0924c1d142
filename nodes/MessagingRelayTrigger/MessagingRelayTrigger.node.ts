import type { INodeTypeBaseDescription } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import { MessagingRelayTriggerVersion } from './triggerVersion';

/**
 * The trigger, one node type at three versions with the same parameters and code. They differ in
 * what n8n does with a request:
 * - 2 from 1: n8n evaluates no "binary data" expression for it (n8n 2.41.1
 *   n8n/dist/webhooks/webhook-helpers.js:878-883; 1.123.81 webhook-helpers.js:518-523).
 * - 3 (the default for new nodes) adds "Acknowledge Events", answering when the execution has ended
 *   (acknowledgement.ts). Workflows made with 1 or 2 keep answering when it starts.
 * Each version set has a webhook description of its own (webhookAnswer.ts): a description shared
 * by all three held expressions that n8n evaluated on every delivery of every version, an
 * expression isolate per delivery (docs/performance.md). n8n loads a versioned type per version
 * (n8n-core nodes-loader/directory-loader.js:143-153, 239-250), as for its own nodes.
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
