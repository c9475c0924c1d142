import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	ITriggerFunctions,
	ITriggerResponse,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_NAME } from '../shared/scopes';
import { type FilterOptions, skipReason } from './deliveryFilters';
import { eventItem, unknownEventItem } from './eventItem';
import { readDelivery } from './readDelivery';
import { startRegistrationRepair } from './registrationRepair';
import { rememberTestEvent, replayTestEvent } from './testEventPassThrough';
import { ALL_EVENTS, triggerProperties } from './TriggerDescription';
import { secretMatches } from './verifySecret';
import { checkExists, create, deleteRegistration, storedRegistration } from './webhookLifecycle';

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

	/**
	 * Published: checks at an interval that the service still has this node's registration
	 * (registrationRepair.ts). A test event: emits what webhook() received (testEventPassThrough.ts).
	 */
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		if (this.getMode() === 'manual') return replayTestEvent.call(this);
		return startRegistrationRepair.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		// 1. Who is calling: nothing about the body is looked at before the secret matches.
		const managedElsewhere = this.getNodeParameter('registration', 'automatic') === 'manual';
		const expected = managedElsewhere
			? String((await this.getCredentials(CREDENTIAL_NAME)).webhookSecret ?? '')
			: (storedRegistration(this).webhookSecret ?? '');
		if (expected === '') {
			// Registration has not stored the secret yet (or the credential has none): ask the
			// service to retry rather than accept an unverifiable event.
			return respond(this, 503, { error: 'Webhook secret not configured yet' }, { 'Retry-After': '5' });
		}
		if (!secretMatches(this.getHeaderData()['x-service-secret'], expected)) {
			return respond(this, 401, { error: 'Invalid or missing x-service-secret' });
		}

		// 2. What arrived.
		const delivery = readDelivery(this.getRequestObject());
		if (delivery.kind === 'refused') return respond(this, delivery.status, { error: delivery.error });

		// 3. Whether the user wants it.
		const events = this.getNodeParameter('events', []) as string[];
		const allEvents = events.includes(ALL_EVENTS);
		const type = delivery.body.type as string;
		if (!allEvents && !events.includes(type)) {
			return respond(this, 200, { received: true, ignored: 'event type not selected' });
		}
		const skip = skipReason(delivery.body, this.getNodeParameter('options', {}) as FilterOptions);
		if (skip) return respond(this, 200, { received: true, ignored: skip });

		// 4. One item per event: valid ones on "Events", the rest on "Invalid Events".
		// The service is answered 200 {"received":true} as soon as the workflow starts.
		const webhookResponse = { received: true };
		if (delivery.kind === 'valid') {
			return rememberTestEvent(this, { webhookResponse, workflowData: [[{ json: eventItem(delivery.event) }], []] });
		}
		if (delivery.kind === 'unknown') {
			return rememberTestEvent(this, { webhookResponse, workflowData: [[{ json: unknownEventItem(delivery.body) }], []] });
		}
		this.logger.warn(`Messaging Relay Trigger: ${type} event does not match its schema`, {
			problems: delivery.problems,
		});
		return rememberTestEvent(this, {
			webhookResponse,
			workflowData: [
				[],
				[{ json: { type, problems: delivery.problems, event: delivery.body } }],
			],
		});
	}
}
