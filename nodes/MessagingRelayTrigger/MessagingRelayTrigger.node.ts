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
import { fanOut } from '../shared/sharedWebhook/fanOut';
import { receiveHandoff } from '../shared/sharedWebhook/receiveHandoff';
import { deliveryIdOf, memberLedger } from '../shared/sharedWebhook/deliveryLedger';
import { isHandoff } from '../shared/sharedWebhook/signedHandoff';
import { triggerState } from '../shared/sharedWebhook/webhookState';
import { combineBurst, isCombining } from './burstMerge';
import { closeGate, isClosing, openGate } from './closingGate';
import { ALL_EVENTS } from './constants';
import { type FilterOptions, skipReason } from './deliveryFilters';
import { eventItem, unknownEventItem } from './eventItem';
import { managedSecretFor } from './managedSecret';
import { rawBodyText, readDelivery, readUnparsedBody, type Delivery } from './readDelivery';
import { startRegistrationRepair } from './registrationRepair';
import { rememberTestEvent, replayTestEvent } from './testEventPassThrough';
import { triggerProperties } from './TriggerDescription';
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
		// Version 2 (the default for new nodes) differs only in n8n's handling of the request: n8n
		// evaluates no "binary data" expression for it (webhook-helpers.js:878-896), so its webhook
		// phase needs no expression isolate. Version 1 workflows keep working unchanged.
		version: [1, 2],
		defaultVersion: 2,
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
	 * Published: opens the closing gate (closingGate.ts) and checks at an interval that the service
	 * still has this node's registration (registrationRepair.ts). A test event: emits what webhook()
	 * received (testEventPassThrough.ts).
	 */
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		if (this.getMode() === 'manual') return replayTestEvent.call(this);
		openGate(this);
		const repair = startRegistrationRepair.call(this);
		return {
			...repair,
			closeFunction: async () => {
				closeGate(this);
				await repair.closeFunction?.();
			},
		};
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const isTest = this.getMode() === 'manual';
		if (!isTest && isClosing(this)) {
			return respond(this, 503, { error: 'n8n is stopping this workflow; deliver the event again shortly' }, { 'Retry-After': '5' });
		}
		const state = triggerState(this);

		// 1. Who is calling: the service (its secret) or another trigger of the account (a signed
		//    hand-off). Nothing about the body is looked at before that is settled.
		const fromTrigger = isHandoff(this.getHeaderData() as Record<string, unknown>);
		if (fromTrigger) {
			const outcome = await receiveHandoff(this, rawBodyText(this.getRequestObject()), isTest);
			if (outcome.kind === 'answer') {
				if (outcome.afterSave) return { webhookResponse: outcome.body };
				return respond(this, outcome.status, outcome.body, outcome.headers);
			}
		} else {
			const managedElsewhere = this.getNodeParameter('registration', 'automatic') === 'manual';
			const provided = this.getHeaderData()['x-service-secret'];
			const expected = managedElsewhere ? await managedSecretFor(this, state, provided) : (state.webhookSecret ?? '');
			if (expected === '') {
				// Registration has not stored the secret yet (or the credential has none): ask the
				// service to retry rather than accept an unverifiable event.
				return respond(this, 503, { error: 'Webhook secret not configured yet' }, { 'Retry-After': '5' });
			}
			if (!secretMatches(provided, expected)) {
				return respond(this, 401, { error: 'Invalid or missing x-service-secret' });
			}
		}

		// 2. What arrived, and whether this trigger wants it (its Events and filters).
		const request = this.getRequestObject();
		await readUnparsedBody(request);
		const delivery = readDelivery(request);
		if (delivery.kind === 'refused') return respond(this, delivery.status, { error: delivery.error });
		const ignored = ignoreReason(this, delivery);
		const combining = !ignored && delivery.kind === 'valid' && isCombining(this, delivery.event);

		// A member runs a forwarded event once, even when the holder forwards it again because its
		// answer to the service was lost (its record: deliveryLedger.ts). A burst-held message is not
		// recorded: it may still be answered 503 and must then run at the redelivery.
		if (fromTrigger && !ignored && !combining) {
			const id = deliveryIdOf(rawBodyText(request));
			if (memberLedger.find(this, state, id)) return { webhookResponse: { received: true, ignored: 'already ran when it was forwarded before' } };
			memberLedger.record(this, state, id, { at: Date.now() });
		}

		// 3. The holder first passes the event on to every other trigger of the account
		//    (docs/shared-webhook.md, "A delivery at the holder").
		if (!fromTrigger && state.webhookUrl) {
			const runsNow = !ignored && !combining;
			const shared = await fanOut(this, state, rawBodyText(request), runsNow);
			if (shared.retryLater) {
				const retry = { error: 'A workflow sharing this webhook could not take the event yet' };
				// A burst-held message would be acknowledged by the burst: it waits for the redelivery.
				const own = runsNow && !shared.selfAlreadyRan ? await emit(this, delivery) : {};
				respond(this, 503, retry, { 'Retry-After': '5' });
				return rememberTestEvent(this, { noWebhookResponse: true, workflowData: own.workflowData });
			}
			if (shared.selfAlreadyRan) return { webhookResponse: { received: true, ignored: 'already ran at an earlier delivery' } };
		}

		// 4. This trigger's own execution: valid events on "Events", the rest on "Invalid Events".
		if (ignored) return { webhookResponse: { received: true, ignored } };
		return rememberTestEvent(this, await emit(this, delivery));
	}
}

type ReadableDelivery = Exclude<Delivery, { kind: 'refused' }>;

/** Why this trigger does not want the event (its Events and filters), or undefined. */
function ignoreReason(context: IWebhookFunctions, delivery: ReadableDelivery): string | undefined {
	const events = context.getNodeParameter('events', []) as string[];
	const type = delivery.body.type as string;
	if (!events.includes(ALL_EVENTS) && !events.includes(type)) return 'event type not selected';
	return skipReason(delivery.body, context.getNodeParameter('options', {}) as FilterOptions);
}

/** The execution's items. The service is answered 200 {"received":true} once it has started. */
async function emit(context: IWebhookFunctions, delivery: ReadableDelivery): Promise<IWebhookResponseData> {
	const webhookResponse = { received: true };
	if (delivery.kind === 'valid') {
		const item = eventItem(delivery.event);
		// "Combine Messages Within": a held message is answered only once its execution is saved.
		const combined = await combineBurst(context, delivery.event, item, webhookResponse);
		if (combined) return combined;
		return { webhookResponse, workflowData: [[{ json: item }], []] };
	}
	if (delivery.kind === 'unknown') {
		return { webhookResponse, workflowData: [[{ json: unknownEventItem(delivery.body) }], []] };
	}
	const type = delivery.body.type as string;
	context.logger.warn(`Messaging Relay Trigger: ${type} event does not match its schema`, {
		problems: delivery.problems,
	});
	return {
		webhookResponse,
		workflowData: [[], [{ json: { type, problems: delivery.problems, event: delivery.body } }]],
	};
}
