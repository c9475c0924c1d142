import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import {
	NodeApiError,
	NodeConnectionTypes,
	NodeOperationError,
	SEND_AND_WAIT_OPERATION,
} from 'n8n-workflow';

import { executeAutomaticReplies } from './actions/automaticReplies';
import { executeMessages } from './actions/message';
import { sendAndWaitWebhook } from './actions/sendAndWait/resume';
import { executeSendAndWait } from './actions/sendAndWait/sendAndWait';
import { executeNumber } from './actions/number';
import { executeWebhook } from './actions/webhook';
import { messageFields, messageOperations } from './descriptions/MessageDescription';
import { numberFields, numberOperations } from './descriptions/NumberDescription';
import { webhookFields, webhookOperations } from './descriptions/WebhookDescription';
import { searchNumbers } from './listSearch';
import { testMessagingRelayApi } from '../shared/credentialTest/credentialTest';

/** The Message operations that send (a batch); the others act per item. */
const SENDING = ['send', 'reply'];

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
		const items = this.getInputData();
		const returnData: INodeExecutionData[] = [];

		if (
			this.getNodeParameter('resource', 0) === 'message' &&
			this.getNodeParameter('operation', 0) === SEND_AND_WAIT_OPERATION
		) {
			return await executeSendAndWait.call(this);
		}
		// Messages are sent as a batch (checked first, then several in flight, chat by chat).
		if (
			this.getNodeParameter('resource', 0) === 'message' &&
			SENDING.includes(this.getNodeParameter('operation', 0) as string)
		) {
			return [await executeMessages.call(this, this.getNodeParameter('operation', 0) as string)];
		}

		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const resource = this.getNodeParameter('resource', itemIndex) as string;
			const operation = this.getNodeParameter('operation', itemIndex) as string;
			try {
				let result: IDataObject | IDataObject[];
				if (resource === 'message') {
					result = await executeAutomaticReplies.call(this, operation, itemIndex);
				} else if (resource === 'number') {
					result = await executeNumber.call(this, operation, itemIndex);
				} else if (resource === 'webhook') {
					result = await executeWebhook.call(this, operation, itemIndex);
				} else {
					throw new NodeOperationError(this.getNode(), `Unknown resource "${resource}"`, {
						itemIndex,
					});
				}
				const executionData = this.helpers.constructExecutionMetaData(
					this.helpers.returnJsonArray(result),
					{ itemData: { item: itemIndex } },
				);
				returnData.push(...executionData);
			} catch (error) {
				if (this.continueOnFail()) {
					const { message, description } = error as { message: string; description?: string };
					returnData.push({
						json: { error: message, ...(description ? { description } : {}) },
						pairedItem: { item: itemIndex },
					});
					continue;
				}
				// Our own errors already say what to do; anything else is wrapped so n8n shows it
				// with the node and item it came from.
				const failure =
					error instanceof NodeApiError || error instanceof NodeOperationError
						? error
						: new NodeOperationError(this.getNode(), error as Error, { itemIndex });
				throw failure;
			}
		}

		return [returnData];
	}
}
