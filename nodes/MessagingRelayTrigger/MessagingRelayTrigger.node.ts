import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../shared/scopes';
import { type FilterOptions, skipReason } from './deliveryFilters';
import { eventItem, unknownEventItem } from './eventItem';
import { rawBodyText, readDelivery, type Delivery } from './readDelivery';
import { fanOut } from './share/fanOut';
import { receiveHandoff } from './share/receiveHandoff';
import { isHandoff } from './share/signedHandoff';
import { triggerState } from './triggerState';
import { ALL_EVENTS, triggerProperties } from './TriggerDescription';
import { secretMatches } from './verifySecret';
import { checkExists, create, deleteRegistration } from './webhookLifecycle';

/** Answers the service directly; the workflow is not started. */
function respond(
	context: IWebhookFunctions,
	status: number,
	body: IDataObject,
	headers: Record<string, string> = {},
): IWebhookResponseData {
	const res = context.getResponseObject();
	for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
	res.status(status).json(body);
	return { noWebhookResponse: true };
}

export class MessagingRelayTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging Relay Trigger',
		name: 'messagingRelayTrigger',
		icon: {
			light: 'file:../../icons/messagingRelayTrigger.svg',
			dark: 'file:../../icons/messagingRelayTrigger.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["events"].join(", ") }}',
		description: 'Starts the workflow when Messaging Relay pushes an event: messages, groups, numbers',
		defaults: { name: 'Messaging Relay Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		outputNames: ['Events', 'Invalid Events'],
		credentials: [{ name: CREDENTIAL_NAME, required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty, so n8n answers with webhook()'s `webhookResponse` ({"received":true});
				// left out, n8n 2.41 answers with its default's name, "firstEntryJson".
				responseData: '',
				path: 'webhook',
			},
		],
		properties: triggerProperties,
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await deleteRegistration.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const isTest = this.getMode() === 'manual';
		const state = triggerState(this);

		// 1. Who is calling: the service (its secret) or another trigger of the account (a signed
		//    hand-off). Nothing about the body is looked at before that is settled.
		const fromTrigger = isHandoff(this.getHeaderData() as Record<string, unknown>);
		if (fromTrigger) {
			const outcome = await receiveHandoff(this, isTest);
			if (outcome.kind === 'answer') {
				if (outcome.afterSave) return { webhookResponse: outcome.body };
				return respond(this, outcome.status, outcome.body, outcome.headers);
			}
		} else {
			const managedElsewhere = this.getNodeParameter('registration', 'automatic') === 'manual';
			const expected = managedElsewhere
				? String((await this.getCredentials(CREDENTIAL_NAME)).webhookSecret ?? '')
				: (state.webhookSecret ?? '');
			if (expected === '') {
				// Registration has not stored the secret yet (or the credential has none): ask the
				// service to retry rather than accept an unverifiable event.
				return respond(this, 503, { error: 'Webhook secret not configured yet' }, { 'Retry-After': '5' });
			}
			if (!secretMatches(this.getHeaderData()['x-service-secret'], expected)) {
				return respond(this, 401, { error: 'Invalid or missing x-service-secret' });
			}
		}

		// 2. What arrived.
		const request = this.getRequestObject();
		const delivery = readDelivery(request);
		if (delivery.kind === 'refused') return respond(this, delivery.status, { error: delivery.error });
		const emitted = selectAndShape(this, delivery);

		// 3. The holder passes the event on to every other trigger of the account.
		if (fromTrigger || !state.webhookUrl) return emitted;
		const shared = await fanOut(this, state, rawBodyText(request), emitted.workflowData !== undefined);
		const own = shared.selfAlreadyRan ? {} : emitted;
		if (shared.retryLater) {
			respond(this, 503, { error: 'A workflow sharing this webhook could not take the event yet' }, { 'Retry-After': '5' });
			return { noWebhookResponse: true, workflowData: own.workflowData };
		}
		return { webhookResponse: own.webhookResponse ?? { received: true }, workflowData: own.workflowData };
	}
}

/**
 * Whether this trigger wants the event (its Events and filters), and its item: valid events on
 * "Events", the rest on "Invalid Events". The service is answered 200 {"received":true} as soon
 * as the workflow starts.
 */
function selectAndShape(context: IWebhookFunctions, delivery: Exclude<Delivery, { kind: 'refused' }>): IWebhookResponseData {
	const events = context.getNodeParameter('events', []) as string[];
	const type = delivery.body.type as string;
	if (!events.includes(ALL_EVENTS) && !events.includes(type)) {
		return { webhookResponse: { received: true, ignored: 'event type not selected' } };
	}
	const skip = skipReason(delivery.body, context.getNodeParameter('options', {}) as FilterOptions);
	if (skip) return { webhookResponse: { received: true, ignored: skip } };

	const webhookResponse = { received: true };
	if (delivery.kind === 'valid') {
		return { webhookResponse, workflowData: [[{ json: eventItem(delivery.event) }], []] };
	}
	if (delivery.kind === 'unknown') {
		return { webhookResponse, workflowData: [[{ json: unknownEventItem(delivery.body) }], []] };
	}
	context.logger.warn(`Messaging Relay Trigger: ${type} event does not match its schema`, {
		problems: delivery.problems,
	});
	return {
		webhookResponse,
		workflowData: [[], [{ json: { type, problems: delivery.problems, event: delivery.body } }]],
	};
}
