import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { chatKey, chatKeys, phoneDigits } from '../../../shared/chatIds';
import { answerRequest } from '../../../shared/answerRequest';
import { executionCustomData, requireN8nMethods } from '../../../shared/n8nCapabilities';
import { unwrapObject } from '../../../shared/responses';
import { CREDENTIAL_NAME } from '../../../shared/scopes';
import { serviceSecretMatches } from '../../../shared/serviceSecret';
import { readDelivery, rawBodyText } from '../../../shared/readDelivery';
import { tellAllTriggers } from '../../accountTriggers';
import { sendHandoff } from '../../../shared/sharedWebhook/peerClient';
import type { Registration } from '../../../shared/sharedWebhook/registeredUrl';
import {
	deriveShareKey,
	HANDOFF_HEADERS,
	proofFor,
	verifyHandoff,
} from '../../../shared/sharedWebhook/signedHandoff';
import { findReceiver, holdWebhook, releaseWebhook, SECRET_CHECK } from './waitingHolder';
import type { Wait } from '../../../shared/sendAndWait/wait';
import { signedWaitParams } from '../../../shared/sendAndWait/waitingRunUrl';
import { nodeOf, relayApiRequest } from '../../../shared/transport';
import { normaliseRecipient, requireId, requireText } from '../../validation';
import { decide, type ApprovalWords } from './approval';
import { resolveReplyTarget } from '../replyOrigin';

/**
 * Message → Send and Wait for Reply (docs/design/durability-and-conversations.md §5): sends a question, then the
 * execution waits in n8n until the contact writes in that chat. The account's triggers learn of the wait before
 * the question goes out (a signed `wait` hand-off to each); the holder offers the contact's next message to the
 * run at n8n's resume URL for this node (replyRouting.ts), and webhook() takes it only when the account key signed
 * it. With no trigger published, the run holds the account's webhook itself (waitingHolder.ts, §5b).
 */

/** n8n's "wait indefinitely" (n8n-nodes-base configureWaitTillDate.util.js: 3000-01-01). */
const FOREVER = new Date('3000-01-01T00:00:00.000Z');
/** The custom-data key of the question's message id (the output's `question.messageId`). */
const QUESTION_ID = 'relayQuestionId';

interface LimitWaitTime {
	values?: {
		limitType?: 'afterTimeInterval' | 'atSpecifiedTime';
		resumeAmount?: number;
		resumeUnit?: 'minutes' | 'hours' | 'days';
		maxDateAndTime?: string;
	};
}

const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

function waitUntil(this: IExecuteFunctions): Date {
	const limit = this.getNodeParameter('options.limitWaitTime', 0, {}) as LimitWaitTime;
	const values = limit.values;
	if (!values) return FOREVER;
	if (values.limitType === 'atSpecifiedTime') {
		const at = new Date(values.maxDateAndTime ?? '');
		if (Number.isNaN(at.getTime())) {
			throw new NodeOperationError(this.getNode(), 'The field "Max Date and Time" is not a date', {
				description: 'Pick a date and time, or switch Limit Type to "After Time Interval".',
			});
		}
		return at;
	}
	return new Date(
		Date.now() + (values.resumeAmount ?? 45) * UNIT_MS[values.resumeUnit ?? 'minutes'],
	);
}

/** Where the question goes: To and From Number, or (To empty) the chat and number of the trigger item, as Reply. */
function destination(this: IExecuteFunctions): { channelId: string; to: string } {
	const node = nodeOf(this);
	const to = this.getNodeParameter('waitTo', 0, '') as string;
	if (typeof to === 'string' && to.trim() !== '') {
		const channelId = requireId(
			node,
			this.getNodeParameter('waitChannelId', 0, '', { extractValue: true }),
			'From Number',
			0,
		);
		return { channelId, to: normaliseRecipient(node, to, 0) };
	}
	const target = resolveReplyTarget.call(this, 0);
	return { channelId: target.channelId, to: target.chatId };
}

export async function executeSendAndWait(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	// Before anything goes out: an n8n older than the package supports has no signed resume URLs.
	requireN8nMethods(this, 'Send and Wait for Reply', ['getSignedResumeUrl', 'putExecutionToWait']);
	const node = nodeOf(this);
	const text = requireText(node, this.getNodeParameter('message', 0), 'Message', 0);
	const { channelId, to } = destination.call(this);
	const until = waitUntil.call(this);
	const passOn = this.getNodeParameter('options.passReplyOn', 0, false) as boolean;
	const { apiKey } = await this.getCredentials<{ apiKey: string }>(CREDENTIAL_NAME, 0);
	const key = deriveShareKey(apiKey);

	// n8n's signed resume URL for this node, the whole wait record signed into it (waitingRunUrl.ts).
	const chat = chatKey(to);
	const since = Date.now();
	const ownUrl = this.getSignedResumeUrl(
		signedWaitParams({ chat, channelId, since, until: until.getTime(), passOn }),
	);
	const resumeUrl = new URL(ownUrl);
	const wait: Wait = {
		executionId: String(this.getExecutionId()),
		resumePath: `${resumeUrl.pathname}${resumeUrl.search}`,
		chat,
		channelId,
		since,
		until: until.getTime(),
		questionId: null,
		passOn,
	};

	// Before the question, so that a reply can never overtake the record of its wait: the
	// account's triggers record it, or (none published) this run holds the webhook itself (§5b).
	const receiver = await findReceiver.call(this, key, ownUrl);
	const registration =
		receiver.kind === 'triggers'
			? receiver.registration
			: await holdWebhook.call(this, key, ownUrl);
	const othersInChat = registration ? await recordWithTriggers.call(this, registration, wait) : 0;
	if (registration) await confirmWithHolder.call(this, registration, key, wait);

	const { body } = await relayApiRequest.call(this, {
		method: 'POST',
		path: '/v1/messages',
		body: { channelId, to, text },
		scope: 'messages:send',
		itemIndex: 0,
	});
	const sent = body === undefined ? {} : (unwrapObject(body, ['message', 'data']) as IDataObject);
	const questionId = typeof sent.id === 'string' ? sent.id : null;
	if (questionId) {
		executionCustomData(this).set(QUESTION_ID, questionId);
		// Only another run waiting in this chat needs the id (a reply quoting this question comes
		// here, not there): one save of the triggers' static data per run in the usual case.
		if (registration && othersInChat > 0)
			await tellAllTriggers.call(
				this,
				registration,
				0,
				'wait',
				JSON.stringify({ ...wait, questionId }),
			);
	}

	await this.putExecutionToWait(until);
	return [this.getInputData()];
}

/**
 * The `wait` hand-off to every trigger the registration lists; the holder must have taken it.
 * Returns how many other runs the holder has waiting in the same chat.
 */
async function recordWithTriggers(
	this: IExecuteFunctions,
	registration: Registration,
	wait: Wait,
): Promise<number> {
	const { answers } = await tellAllTriggers.call(
		this,
		registration,
		0,
		'wait',
		JSON.stringify(wait),
	);
	const holder = answers.find((a) => a.path === registration.holderPath)?.answer;
	const taken = (holder?.kind === 'member' ? holder.body : undefined) as
		| { recorded?: unknown; capacity?: unknown; otherWaitsInChat?: unknown }
		| undefined;
	if (taken?.recorded === false && typeof taken.capacity === 'number') {
		throw new NodeOperationError(
			nodeOf(this),
			`This account already has ${taken.capacity.toLocaleString('en-US')} runs waiting for a reply, the most one account can hold`,
			{
				description:
					'The question was not sent. Each waiting run ends when its contact answers or its time limit passes; until some do, a new question cannot be routed. Set "Limit Wait Time" on your Send and Wait nodes so unanswered runs end, or spread the campaign over time.',
			},
		);
	}
	if (taken?.recorded !== true) {
		throw new NodeOperationError(
			nodeOf(this),
			"The Messaging Relay Trigger that receives this account's events did not take the wait",
			{
				description:
					'The question was not sent. n8n may be restarting: run this again, or turn on "Retry On Fail" in this node\'s settings.',
			},
		);
	}
	// A holder of an earlier version does not say: send the id, as before.
	return typeof taken.otherWaitsInChat === 'number' ? taken.otherWaitsInChat : 1;
}

/** How often the node asks the holder whether its wait is in the database, and the pause between. */
const CONFIRM_TRIES = 5;
const CONFIRM_PAUSE_MS = 200;

/**
 * The holder answered "recorded" after n8n saved it, but with two webhook processes another
 * process's save can drop it (docs/design/account-state.md, "Two webhook processes"). So the same
 * wait goes to the holder again until a request finds it in the static data it loaded (`stored`);
 * each one that does not writes it again. Only then does the question go out.
 */
async function confirmWithHolder(
	this: IExecuteFunctions,
	registration: Registration,
	key: string,
	wait: Wait,
) {
	const url = `${registration.origin}${registration.holderPath}`;
	for (let tried = 0; tried < CONFIRM_TRIES; tried++) {
		if (tried > 0) await sleep(CONFIRM_PAUSE_MS);
		const answer = await sendHandoff(this, key, 'wait', url, JSON.stringify(wait));
		const body = (answer.kind === 'member' ? answer.body : undefined) as
			| { stored?: unknown }
			| undefined;
		// A holder of an earlier version does not say: its "recorded" is all there is.
		if (body?.stored === true || (answer.kind === 'member' && body?.stored === undefined)) return;
	}
	throw new NodeOperationError(
		nodeOf(this),
		"The Messaging Relay Trigger that receives this account's events could not keep the wait",
		{
			description: `The question was not sent. ${CONFIRM_TRIES} tries to see the wait saved in n8n failed: n8n may be overloaded or restarting. Run this again, or turn on "Retry On Fail" in this node's settings.`,
		},
	);
}

/** The parts of the resume request the node reads. */
interface ResumeBody {
	asked?: number;
	questionId?: string | null;
	event?: { type?: string; message?: IDataObject };
}

/** How many times a run that holds the webhook asked again (memory: a restart may ask once more). */
const reAskedHere = new Map<string, number>();

type Answer =
	| { kind: 'not this chat' }
	| { kind: 'asked again' }
	| { kind: 'taken'; output: IDataObject };

/**
 * Sends and waits: the webhook. Two callers can resume the run: the account's trigger, with a
 * signed `resume` hand-off, and (when this run holds the account's webhook, §5b) the service
 * itself, proven by its secret. Anything else is declined (the run keeps waiting); it never
 * throws, since a thrown error would resume the run as failed.
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject() as unknown as Parameters<typeof readDelivery>[0] & {
		originalUrl?: string;
		url?: string;
	};
	const answer = (status: number, body: IDataObject, output?: IDataObject): IWebhookResponseData =>
		answerRequest(this, { status, body }, output && [[{ json: output }]]);
	const headers = this.getHeaderData() as Record<string, unknown>;
	const { apiKey } = (await this.getCredentials(CREDENTIAL_NAME)) as { apiKey: string };
	const key = deriveShareKey(apiKey);

	if (headers[HANDOFF_HEADERS.version] === undefined) {
		if (headers['x-service-secret'] === undefined)
			return answer(401, {
				error: "This run resumes only on the contact's reply, through the account's webhook",
			});
		const kept = { hmacKey: key, check: executionCustomData(this).get(SECRET_CHECK) };
		if (!serviceSecretMatches(headers['x-service-secret'], kept))
			return answer(401, { error: 'Invalid secret' });
		const delivery = readDelivery(request);
		if (delivery.kind === 'refused') return answer(delivery.status, { error: delivery.error });
		const executionId = String(this.getExecutionId());
		const asked = reAskedHere.get(executionId) ?? 0;
		const taken = await takeAnswer.call(
			this,
			delivery.body as ResumeBody['event'],
			asked,
			executionCustomData(this).get(QUESTION_ID) ?? null,
		);
		if (taken.kind === 'not this chat')
			return answer(200, {
				received: true,
				ignored:
					'not the reply this run waits for, and no Messaging Relay Trigger is published on this account',
			});
		if (taken.kind === 'asked again') {
			reAskedHere.set(executionId, asked + 1);
			return answer(200, { received: true, answered: 'this waiting run', reAsked: true });
		}
		reAskedHere.delete(executionId);
		await releaseWebhook.call(this);
		return answer(200, { received: true, answered: 'this waiting run' }, taken.output);
	}

	const ownPath = new URL(request.originalUrl ?? request.url ?? '/', 'http://n8n').pathname;
	const bodyText = rawBodyText(request);
	const check = verifyHandoff(key, headers, ownPath, bodyText);
	if (!check.ok) return answer(401, { error: `Invalid hand-off: ${check.reason}` });
	const proof = proofFor(key, check.nonce, ownPath);
	// A trigger joining while this run holds the account's webhook asks whether it still waits.
	if (check.op === 'ping') return answer(200, { proof });
	if (check.op !== 'resume') return answer(401, { error: 'Invalid hand-off: not a resume' });
	const { asked = 0, questionId = null, event } = JSON.parse(bodyText) as ResumeBody;
	// The wait carries the question's id only when its chat had another wait: the run keeps its own.
	const taken = await takeAnswer.call(
		this,
		event,
		asked,
		questionId ?? executionCustomData(this).get(QUESTION_ID) ?? null,
	);
	if (taken.kind === 'not this chat') return answer(200, { proof, consumed: false });
	if (taken.kind === 'asked again') return answer(200, { proof, consumed: true, reAsked: true });
	return answer(200, { proof, consumed: true }, taken.output);
}

/**
 * Whether `event` answers this run: a `message.received` in the chat the question went to. For
 * Approval, an unclear answer is asked again while `asked` is below the node's limit.
 */
async function takeAnswer(
	this: IWebhookFunctions,
	event: ResumeBody['event'],
	asked: number,
	questionId: string | null,
): Promise<Answer> {
	const message = event?.message;
	const chat = String((this.getQueryData() as { chat?: unknown }).chat ?? '');
	if (event?.type !== 'message.received' || !message || !fromChat(message, chat))
		return { kind: 'not this chat' };

	// The reply as the trigger's message items name it, so that Reply after this node answers in
	// the same chat with nothing typed (replyOrigin.ts reads chatId and channelId).
	const reply = {
		text: typeof message.text === 'string' ? message.text : '',
		messageId: message.id ?? null,
		from: message.from ?? null,
		senderName: message.senderName ?? null,
		chatId: message.chatId ?? null,
		channelId: message.channelId ?? null,
		timestamp: message.timestamp ?? null,
	};
	const question = { text: this.getNodeParameter('message', '') as string, messageId: questionId };
	const output: IDataObject = { answered: true, ...reply, question };

	if (this.getNodeParameter('responseType', 'freeText') === 'approval') {
		const decision = decide(reply.text, approvalWords.call(this));
		const maxReAsks = this.getNodeParameter('approvalOptions.reAskTimes', 1) as number;
		if (decision === 'unclear' && asked < maxReAsks) {
			await askAgain.call(this, message);
			return { kind: 'asked again' };
		}
		output.decision = decision;
		output.approved = decision === 'approved';
	}
	return { kind: 'taken', output };
}

/** Whether the message is in the waited-for chat (a chat id, or a direct chat from that phone). */
function fromChat(message: IDataObject, chat: string): boolean {
	const chatId = typeof message.chatId === 'string' ? message.chatId : '';
	const isGroup = message.group !== undefined && message.group !== null;
	return (
		chatKeys(chatId, isGroup).includes(chat) || (!isGroup && phoneDigits(message.from) === chat)
	);
}

function approvalWords(this: IWebhookFunctions): ApprovalWords {
	const list = (name: string, fallback: string) =>
		String(this.getNodeParameter(`approvalOptions.${name}`, fallback))
			.split(',')
			.map((w) => w.trim())
			.filter(Boolean);
	return {
		yes: list('approveWords', 'yes, y, 1, ok, 👍'),
		no: list('declineWords', 'no, n, 2, 👎'),
	};
}

async function askAgain(this: IWebhookFunctions, message: IDataObject) {
	const text = this.getNodeParameter(
		'approvalOptions.reAskText',
		'Sorry, I did not understand. Please answer yes or no.',
	) as string;
	await relayApiRequest.call(this, {
		method: 'POST',
		path: '/v1/messages',
		body: { channelId: message.channelId, to: message.chatId, text },
		scope: 'messages:send',
	});
}
