import type {
	IHookFunctions,
	INodeType,
	INodeTypeBaseDescription,
	ITriggerFunctions,
	ITriggerResponse,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { retryLater, type Answer } from '../shared/answerRequest';
import { testMessagingRelayApi } from '../shared/credentialTest/credentialTest';
import { whatArrived, type ReadableDelivery } from '../shared/readDelivery';
import { repairTables, tablesNotSaved } from '../shared/sharedWebhook/accountTable';
import { accountKeyOf, upgradeStoredKey } from '../shared/sharedWebhook/accountKey';
import { upgradeStoredSecret } from '../shared/serviceSecret';
import { closeGate, holdUntilAnswered, isClosing, openGate } from '../shared/sharing/closingGate';
import { holderLedger } from '../shared/sharing/deliveryLedger';
import { missedEventId } from '../shared/sharing/missedEventId';
import { LISTS_MEMBERS } from '../shared/sharedWebhook/registeredUrl';
import { routeReply, RUN_NOT_READY } from '../shared/sendAndWait/replyRouting';
import { receiveHandoff } from '../shared/sharing/receiveHandoff';
import { shareDelivery } from '../shared/sharing/shareDelivery';
import { whoIsCalling, type Caller } from '../shared/sharing/whoIsCalling';
import { waits } from '../shared/sendAndWait/waitingRuns';
import type { WebhookState } from '../shared/sharedWebhook/webhookState';

import { canHoldAnother, combineBurst, releaseBurstsOf } from './burstMerge';
import { acknowledgeOf } from './acknowledgement';
import { applyChatPause, applyPauseCommand, CHAT_PAUSE_EVENTS } from './chatPause';
import { combineSeconds, isManagedElsewhere, pauseSettings, whyIgnored } from './triggerSettings';
import { eventItem, unknownEventItem } from './eventItem';
import type { UnsavedWrites } from './savedOutsideRun';
import { answerDelivery, type DeliveryOutcome } from './deliveryOutcome';
import { startRegistrationRepair } from './registrationRepair';
import { logRefused } from './refusedDelivery';
import { replayTestEvent } from './testEventPassThrough';
import { triggerProperties } from './TriggerDescription';
import { answerFields } from './webhookAnswer';
import { checkExists, create, deleteRegistration } from './webhookLifecycle';

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
		const response = await answerDelivery(this, await deliver.call(this));
		if (response.workflowData) tablesNotSaved(this);
		return response;
	}
}

/**
 * One request, top to bottom: who is calling; a control hand-off goes to its handler, an event
 * through its pipeline (takeEvent). Each ends in a DeliveryOutcome, which answerDelivery alone
 * turns into n8n's answer.
 */
async function deliver(this: IWebhookFunctions): Promise<DeliveryOutcome> {
	// A workflow that n8n is stopping starts nothing new; the service delivers it again later.
	if (isClosing(this)) return answer(STOPPING);
	// Let in: n8n's shutdown now waits for its answer (closingGate.ts).
	if (this.getMode() !== 'manual') holdUntilAnswered(this);
	const state = this.getWorkflowStaticData('node') as WebhookState;
	// What an earlier version kept in clear (the service's secret, K) gives way to what verifies it.
	upgradeStoredSecret(state);
	if (state.shareKey !== undefined) upgradeStoredKey(this, state);

	// 1. Who is calling: the service (its secret) or another trigger of the account (a signed
	//    hand-off). Nothing of the body is parsed before that is settled, and nothing is written.
	const caller = await whoIsCalling(this, state, isManagedElsewhere(this));
	if (caller.kind === 'answered') return answer(caller.answer);
	// 1b. A hand-off that asks this trigger to do something (a ping, waits, a pause, a takeover).
	if (caller.kind === 'handoff') {
		const handled = await receiveHandoff(this, state, caller.handoff, applyPauseCommand);
		return handled.kind === 'answered'
			? answer(handled.answer)
			: { kind: 'held', response: handled.response };
	}
	// Rows of this process that another webhook process's save dropped go back with this request
	// (docs/design/conversations-at-scale.md); nothing for a refused caller.
	repairTables(this, state);
	return await takeEvent(this, state, caller);
}

/**
 * An event, from the service or forwarded by the account's holder: what arrived → whether this
 * trigger wants it → a run that waits for it → the account's other triggers → this trigger's own
 * execution. A lone trigger with no waiting run goes from step 3 to step 5.
 */
async function takeEvent(
	context: IWebhookFunctions,
	state: WebhookState,
	caller: Extract<Caller, { kind: 'service' | 'trigger' }>,
): Promise<DeliveryOutcome> {
	// 2. What arrived: the event, its text and its delivery id, read once.
	const arrival = await whatArrived(
		context.getRequestObject(),
		caller.kind === 'trigger' ? caller.bodyText : undefined,
	);
	if (arrival.kind === 'refused') {
		logRefused(context, arrival.status, arrival.error);
		return answer({ status: arrival.status, body: { error: arrival.error } });
	}
	const { delivery } = arrival;
	const type = String(delivery.body.type ?? 'unknown');

	// 3. Whether this trigger wants it (its Events and filters, and whether a person took the
	//    chat over from the phone), and whether it runs now or is held to be combined with the
	//    messages that follow it. A person's message is noted whatever this trigger selects.
	const pause =
		delivery.kind === 'valid' && CHAT_PAUSE_EVENTS.has(type) ? pauseSettings(context) : undefined;
	const paused = pause ? applyChatPause(context, state, delivery.body, pause) : undefined;
	const ignored = whyIgnored(context, delivery.body) ?? paused;
	const combineWithin = delivery.kind === 'valid' ? combineSeconds(context, delivery.event) : 0;
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
		!waits.isEmpty(context, state)
	) {
		const key = await accountKeyOf(context, state);
		const reply = await routeReply(context, state, arrival.text, delivery.body, arrival.id, key);
		if (reply.kind === 'held') return { kind: 'held', response: reply.response };
		if (reply.kind === 'notAReply') unsaved.droppedWaits = reply.ended;
		if (reply.kind === 'retryLater') return answer(RUN_NOT_READY);
		if (reply.kind === 'answered' && !reply.passOn)
			return answer({ status: 200, body: { received: true, answered: 'a waiting run' } });
	}

	// 4. The account's other triggers (docs/shared-webhook.md): the holder passes the event on
	//    first, a member recognises a forward of an event it already ran.
	if (caller.kind === 'trigger' || sharesTheWebhook(context, state)) {
		const acknowledge = acknowledgeOf(context);
		const event = { ...arrival, type, missedId: missedEventId(delivery.body, arrival.id) };
		const shared = await shareDelivery(context, state, caller.kind, event, runsNow, acknowledge);
		if (shared.kind === 'ranBefore')
			return { kind: 'acknowledge', ignored: shared.reason, ranBefore: true };
		if (shared.kind === 'stillRunning') return answer(STILL_RUNNING);
		if (shared.kind === 'retryLater') {
			// Answering at the run's end, the holder runs the event with the others at the
			// redelivery that is answered 2xx: a run started after a 503 could die unrecorded.
			const run = shared.runSelf ? await emit(context, delivery, combineWithin) : {};
			return { kind: 'run', run, state, unsaved, busy: MEMBER_BUSY };
		}
	}

	// 5. This trigger's own execution: valid events on "Events", the rest on "Invalid Events".
	//    What steps 3 and 3b wrote is saved by requests of their own (savedOutsideRun.ts).
	if (ignored) return { kind: 'acknowledge', ignored };
	return { kind: 'run', run: await emit(context, delivery, combineWithin), state, unsaved };
}

const answer = (reply: Answer): DeliveryOutcome => ({ kind: 'answer', answer: reply });
const STOPPING = retryLater(
	'n8n is stopping this workflow; deliver the event again shortly',
	'later',
);
const STILL_RUNNING = retryLater(
	'This workflow is still running the event; it answers once the execution has ended',
	'later',
);
const MEMBER_BUSY = retryLater(
	'A workflow sharing this webhook could not take the event yet',
	'later',
);

/**
 * Whether the holder serves other triggers: members in its registration, or records left from
 * them (deliveries it answered 503, in static data or this process's memory; members' health).
 * A lone trigger keeps none of these.
 */
function sharesTheWebhook(context: IWebhookFunctions, state: WebhookState): boolean {
	if (state.webhookUrl !== undefined && LISTS_MEMBERS.test(state.webhookUrl)) return true;
	return state.members !== undefined || !holderLedger.isEmpty(context, state);
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
