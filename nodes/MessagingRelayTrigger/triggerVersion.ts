import type {
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	ITriggerFunctions,
	ITriggerResponse,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { answerRequest, retryLater } from '../shared/answerRequest';
import { testMessagingRelayApi } from '../shared/credentialTest/credentialTest';
import { whatArrived, type ReadableDelivery } from '../shared/readDelivery';
import { repairTables, tablesNotSaved } from '../shared/sharedWebhook/accountTable';
import { accountKeyOf, upgradeStoredKey } from '../shared/sharedWebhook/accountKey';
import { upgradeStoredSecret } from '../shared/serviceSecret';
import { holderLedger } from './sharing/deliveryLedger';
import { missedEventId } from './sharing/missedEventId';
import { LISTS_MEMBERS } from '../shared/sharedWebhook/registeredUrl';
import { routeReply, RUN_NOT_READY } from '../shared/sendAndWait/replyRouting';
import { shareDelivery } from './sharing/shareDelivery';
import { waits } from '../shared/sendAndWait/waitingRuns';
import type { WebhookState } from '../shared/sharedWebhook/webhookState';

import { canHoldAnother, combineBurst, releaseBurstsOf } from './burstMerge';
import { acknowledgeOf } from './acknowledgement';
import { applyChatPause, CHAT_PAUSE_EVENTS } from './chatPause';
import { closeGate, holdUntilAnswered, isClosing, openGate } from './closingGate';
import { combineSeconds, pauseSettings, whyIgnored } from './triggerSettings';
import { eventItem, unknownEventItem } from './eventItem';
import { saveOutsideRun, type UnsavedWrites } from './savedOutsideRun';
import { startRegistrationRepair } from './registrationRepair';
import { logRefused } from './refusedDelivery';
import { rememberTestEvent, replayTestEvent } from './testEventPassThrough';
import { triggerProperties } from './TriggerDescription';
import { answerFields } from './webhookAnswer';
import { checkExists, create, deleteRegistration } from './webhookLifecycle';
import { whoIsCalling } from './whoIsCalling';
import { receiveHandoff } from './receiveHandoff';

/** The service's 200 for an event that starts nothing here, and why. */
const acknowledged = (ignored: string): IWebhookResponseData => ({
	webhookResponse: { received: true, ignored },
});

/** The 200 for an event this trigger ran (or offered) before: `ranBefore` tells a holder so (fanOut.ts). */
const ranBefore = (ignored: string): IWebhookResponseData => ({
	webhookResponse: { received: true, ignored, ranBefore: true },
});

/**
 * The trigger at one or more of its versions (MessagingRelayTrigger.node.ts): the same parameters
 * and code, and the webhook description of those versions (webhookAnswer.ts).
 */
export class MessagingRelayTriggerVersion implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription, versions: number[]) {
		this.description = {
			...baseDescription,
			version: versions.length === 1 ? versions[0] : versions,
			defaults: { name: 'Messaging Relay Trigger' },
			inputs: [],
			outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
			outputNames: ['Events', 'Invalid Events'],
			// Literals, as in MessagingRelay.node.ts (the scan reads them there).
			credentials: [
				{ name: 'messagingRelayApi', required: true, testedBy: 'messagingRelayApiTest' },
			],
			webhooks: [
				{ name: 'default', httpMethod: 'POST', path: 'webhook', ...answerFields(versions) },
			],
			properties: triggerProperties,
		};
	}

	/** On each version: n8n's CredentialsTester.getCredentialTestFunction looks a versioned node's test up
	 * version by version (docs/design/n8n-internals.md, "The credential test: a test function, not declared rules"). */
	methods = {
		credentialTest: { messagingRelayApiTest: testMessagingRelayApi },
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
	 * still has this node's registration (registrationRepair.ts). Closing refuses new deliveries, runs
	 * held bursts at once and waits for what was let in. A test event: emits what webhook() received.
	 */
	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		if (this.getMode() === 'manual') return replayTestEvent.call(this);
		openGate(this);
		const repair = startRegistrationRepair.call(this);
		return {
			...repair,
			closeFunction: async () => {
				const drained = closeGate(this);
				releaseBurstsOf(this);
				await Promise.all([drained, repair.closeFunction?.()]);
			},
		};
	}

	/**
	 * One request to the trigger's URL (deliver, below). A request that starts a run is marked: n8n
	 * 2.41.1 saves nothing webhook() wrote in it (accountTable.ts tablesNotSaved).
	 */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const response = await deliver.call(this);
		if (response.workflowData) tablesNotSaved(this);
		return response;
	}
}

/**
 * One delivery, top to bottom: who is calling → what arrived → whether this trigger wants it →
 * a run that waits for it → the account's other triggers → this trigger's own execution. A lone
 * trigger with no waiting run goes from step 3 to step 5: steps 3b and 4 run only when there is
 * a wait or another trigger to serve.
 */
async function deliver(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	// A workflow that n8n is stopping starts nothing new; the service delivers it again later.
	if (isClosing(this)) {
		const stopping = 'n8n is stopping this workflow; deliver the event again shortly';
		return answerRequest(this, retryLater(stopping, 'later'));
	}
	// Let in: n8n's shutdown now waits for its answer (closingGate.ts).
	const manual = this.getMode() === 'manual';
	if (!manual) holdUntilAnswered(this);
	const state = this.getWorkflowStaticData('node') as WebhookState;
	// What an earlier version kept in clear (the service's secret, K) gives way to what verifies it.
	upgradeStoredSecret(state);
	if (state.shareKey !== undefined) upgradeStoredKey(this, state);

	// 1. Who is calling: the service (its secret) or another trigger of the account (a signed
	//    hand-off). Nothing of the body is parsed before that is settled, and nothing is written.
	const caller = await whoIsCalling(this, state);
	if (caller.kind === 'answered') return answerRequest(this, caller.answer);
	// 1b. A hand-off that asks this trigger to do something (a ping, waits, a pause, a takeover).
	if (caller.kind === 'handoff') {
		const handled = await receiveHandoff(this, state, caller.handoff);
		return handled.kind === 'answered' ? answerRequest(this, handled.answer) : handled.response;
	}
	// Rows of this process that another webhook process's save dropped go back with this request
	// (docs/design/conversations-at-scale.md); nothing for a refused caller.
	repairTables(this, state);

	// 2. What arrived: the event, its text and its delivery id, read once.
	const arrival = await whatArrived(
		this.getRequestObject(),
		caller.kind === 'trigger' ? caller.bodyText : undefined,
	);
	if (arrival.kind === 'refused') {
		logRefused(this, arrival.status, arrival.error);
		return answerRequest(this, { status: arrival.status, body: { error: arrival.error } });
	}
	const { delivery } = arrival;
	const type = String(delivery.body.type ?? 'unknown');

	// 3. Whether this trigger wants it (its Events and filters, and whether a person took the
	//    chat over from the phone), and whether it runs now or is held to be combined with the
	//    messages that follow it. A person's message is noted whatever this trigger selects.
	const pause =
		delivery.kind === 'valid' && CHAT_PAUSE_EVENTS.has(type) ? pauseSettings(this) : undefined;
	const paused = pause ? applyChatPause(this, state, delivery.body, pause) : undefined;
	const ignored = whyIgnored(this, delivery.body) ?? paused;
	const combineWithin = delivery.kind === 'valid' ? combineSeconds(this, delivery.event) : 0;
	const runsNow = !ignored && !(combineWithin > 0 && canHoldAnother());

	// What n8n will not save if this request starts a run (savedOutsideRun.ts).
	const unsaved: UnsavedWrites = {
		pause: pause && { body: delivery.body, settings: pause },
		droppedWaits: [],
	};

	// 3b. A contact's answer to a run that waits for it (Send and Wait for Reply): the holder
	//     offers it to that run first; taken, it is not a new message for the triggers.
	if (
		caller.kind === 'service' &&
		delivery.kind === 'valid' &&
		type === 'message.received' &&
		!waits.isEmpty(this, state)
	) {
		const key = await accountKeyOf(this, state);
		const reply = await routeReply(this, state, arrival.text, delivery.body, arrival.id, key);
		if (reply.kind === 'held') return reply.response;
		if (reply.kind === 'not a reply') unsaved.droppedWaits = reply.ended;
		if (reply.kind === 'retry later') {
			return answerRequest(this, RUN_NOT_READY);
		}
		if (reply.kind === 'answered a waiting run' && !reply.passOn) {
			return answerRequest(this, {
				status: 200,
				body: { received: true, answered: 'a waiting run' },
			});
		}
	}

	// 4. The account's other triggers (docs/shared-webhook.md): the holder passes the event on
	//    first, a member recognises a forward of an event it already ran.
	if (caller.kind === 'trigger' || sharesTheWebhook(this, state)) {
		const event = { ...arrival, type, missedId: missedEventId(delivery.body, arrival.id) };
		const acknowledge = acknowledgeOf(this);
		const shared = await shareDelivery(this, state, caller.kind, event, runsNow, acknowledge);
		if (shared.kind === 'ran before') return ranBefore(shared.reason);
		if (shared.kind === 'still running') {
			const running =
				'This workflow is still running the event; it answers once the execution has ended';
			return answerRequest(this, retryLater(running, 'later'));
		}
		if (shared.kind === 'retry later') {
			// Answering at the run's end, the holder runs the event with the others at the
			// redelivery that is answered 2xx: a run started after a 503 could die unrecorded.
			const own = shared.runSelf ? await emit(this, delivery, combineWithin) : {};
			const kept = await saved(this, state, unsaved, own);
			const busy = retryLater(
				'A workflow sharing this webhook could not take the event yet',
				'later',
			);
			return remembered(
				this,
				answerRequest(this, busy, kept.workflowData as INodeExecutionData[][] | undefined),
			);
		}
	}

	// 5. This trigger's own execution: valid events on "Events", the rest on "Invalid Events".
	//    What steps 3 and 3b wrote is saved by requests of their own (savedOutsideRun.ts).
	if (ignored) return acknowledged(ignored);
	return remembered(
		this,
		await saved(this, state, unsaved, await emit(this, delivery, combineWithin)),
	);
}

/**
 * Whether the holder serves other triggers: members in its registration, or records left from
 * them (deliveries it answered 503, in static data or this process's memory; members' health).
 * A lone trigger keeps none of these.
 */
function sharesTheWebhook(context: IWebhookFunctions, state: WebhookState): boolean {
	if (state.webhookUrl !== undefined && LISTS_MEMBERS.test(state.webhookUrl)) return true;
	return state.members !== undefined || !holderLedger.isEmpty(context, state);
}

/** What steps 3 and 3b wrote that n8n would not save with a run (savedOutsideRun.ts). */
async function saved(
	context: IWebhookFunctions,
	state: WebhookState,
	unsaved: UnsavedWrites,
	response: IWebhookResponseData,
) {
	if (!unsaved.pause && unsaved.droppedWaits.length === 0) return response;
	return await saveOutsideRun(context, state, unsaved, response);
}

/** A test event's data is kept for trigger() (testEventPassThrough.ts). */
function remembered(
	context: IWebhookFunctions,
	response: IWebhookResponseData,
): IWebhookResponseData {
	return context.getMode() === 'manual' ? rememberTestEvent(context, response) : response;
}

/**
 * The execution's items. The service is answered 200 {"received":true} once it has started, or an
 * empty 200 once it has ended ("Acknowledge Events", acknowledgement.ts).
 */
async function emit(
	context: IWebhookFunctions,
	delivery: ReadableDelivery,
	combineWithin: number,
): Promise<IWebhookResponseData> {
	const webhookResponse = { received: true };
	if (delivery.kind === 'valid') {
		const item = eventItem(delivery.event);
		// "Combine Messages Within": a held message is answered only once its execution is saved.
		const combined =
			combineWithin > 0
				? await combineBurst(context, delivery.event, item, webhookResponse, combineWithin)
				: undefined;
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
