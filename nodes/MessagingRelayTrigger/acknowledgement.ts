import type { INodeProperties } from 'n8n-workflow';

import { ACKNOWLEDGE } from './constants';

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
 * How n8n learns the mode (docs/performance.md, "What n8n evaluates per delivery"): it reads the
 * webhook description's `responseMode` / `responseData` for every request
 * (n8n 2.41.1 n8n/dist/webhooks/webhook-helpers.js:423, 839-845; n8n 1.123.81 webhook-helpers.js:266,
 * 510-514). A plain string is returned as it is (n8n-workflow workflow-expression.js:19-21,
 * expressions/expression-helpers.js:8-12); a string starting with "=" is an expression, which needs an
 * expression isolate: with lazy acquire (n8n 2.41.1) the only one a delivery would build. So each
 * version has its own fixed description (MessagingRelayTrigger.node.ts): versions 1 and 2 plain
 * `onReceived`, version 3 a template with a native resolver (below).
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
