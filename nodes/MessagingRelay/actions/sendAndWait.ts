import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { chatKey, chatKeys, phoneDigits } from '../../shared/chatIds';
import { unwrapObject } from '../../shared/responses';
import { CREDENTIAL_NAME } from '../../shared/scopes';
import { accountTriggers, tellAllTriggers } from '../../shared/sharedWebhook/accountTriggers';
import { deriveShareKey, isHandoff, proofFor, verifyHandoff } from '../../shared/sharedWebhook/signedHandoff';
import type { Wait } from '../../shared/sharedWebhook/waitingRuns';
import { nodeOf, relayApiRequest } from '../../shared/transport';
import { normaliseRecipient, requireId, requireText } from '../../shared/validation';
import { decide, type ApprovalWords } from './approval';
import { resolveReplyTarget } from './replyOrigin';

/**
 * Message → Send and Wait for Reply (docs/design/durability-and-conversations.md §5): sends a
 * question, then the execution waits in n8n until the contact writes in that chat. The account's
 * triggers learn of the wait before the question goes out (a signed `wait` hand-off to each), and
 * the holder offers the contact's next message to the waiting run (replyRouting.ts) at n8n's
 * resume URL for this node; the node's webhook() takes it only when the account key signed it.
 */

/** n8n's "wait indefinitely" (n8n-nodes-base configureWaitTillDate.util.js: 3000-01-01). */
const FOREVER = new Date('3000-01-01T00:00:00.000Z');

interface LimitWaitTime {
	values?: { limitType?: 'afterTimeInterval' | 'atSpecifiedTime'; resumeAmount?: number; resumeUnit?: 'minutes' | 'hours' | 'days'; maxDateAndTime?: string };
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
	return new Date(Date.now() + (values.resumeAmount ?? 45) * UNIT_MS[values.resumeUnit ?? 'minutes']);
}

/** Where the question goes: To and From Number, or (To empty) the chat and number of the trigger item, as Reply. */
function destination(this: IExecuteFunctions): { channelId: string; to: string } {
	const node = nodeOf(this);
	const to = this.getNodeParameter('waitTo', 0, '') as string;
	if (typeof to === 'string' && to.trim() !== '') {
		const channelId = requireId(node, this.getNodeParameter('waitChannelId', 0, '', { extractValue: true }), 'From Number', 0);
		return { channelId, to: normaliseRecipient(node, to, 0) };
	}
	const target = resolveReplyTarget.call(this, 0);
	return { channelId: target.channelId, to: target.chatId };
}

export async function executeSendAndWait(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const node = nodeOf(this);
	const text = requireText(node, this.getNodeParameter('text', 0), 'Text', 0);
	const { channelId, to } = destination.call(this);
	const until = waitUntil.call(this);
	const passOn = this.getNodeParameter('options.passReplyOn', 0, false) as boolean;

	// n8n's signed resume path for this node; the chat is part of what n8n signs.
	const chat = chatKey(to);
	const resumeUrl = new URL(this.getSignedResumeUrl({ chat }));
	const wait: Wait = {
		executionId: String(this.getExecutionId()),
		resumePath: `${resumeUrl.pathname}${resumeUrl.search}`,
		chat,
		channelId,
		since: Date.now(),
		until: until.getTime(),
		questionId: null,
		passOn,
	};

	// Before the question: a reply can never overtake the record of its wait.
	const registration = await accountTriggers.call(this, 0, 'wait for a reply');
	const told = await tellAllTriggers.call(this, registration, 0, 'wait', JSON.stringify(wait));
	const holder = told.answers.find((a) => a.path === registration.holderPath)?.answer;
	if (holder?.kind !== 'member' || (holder.body as { recorded?: unknown } | undefined)?.recorded !== true) {
		throw new NodeOperationError(node, 'The Messaging Relay Trigger that receives this account\'s events did not take the wait', {
			description: 'The question was not sent. n8n may be restarting: run this again, or turn on "Retry On Fail" in this node\'s settings.',
		});
	}

	const { body } = await relayApiRequest.call(this, { method: 'POST', path: '/v1/messages', body: { channelId, to, text }, scope: 'messages:send', itemIndex: 0 });
	const sent = body === undefined ? {} : (unwrapObject(body, ['message', 'data']) as IDataObject);
	const questionId = typeof sent.id === 'string' ? sent.id : null;
	if (questionId) await tellAllTriggers.call(this, registration, 0, 'wait', JSON.stringify({ ...wait, questionId }));

	await this.putExecutionToWait(until);
	return [this.getInputData()];
}

/** The parts of the resume request the node reads. */
interface ResumeBody {
	asked?: number;
	questionId?: string | null;
	event?: { type?: string; message?: IDataObject };
}

/**
 * A signed `resume` hand-off from the holder. Declines (the run keeps waiting) anything not
 * signed with the account key or not from the chat the question went to; never throws (a thrown
 * error would resume the run as failed).
 */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject() as unknown as { originalUrl?: string; url?: string; rawBody?: Uint8Array | string; body?: unknown };
	const res = this.getResponseObject();
	const decline = (status: number, error: string): IWebhookResponseData => {
		res.status(status).json({ error });
		return { noWebhookResponse: true };
	};
	const headers = this.getHeaderData() as Record<string, unknown>;
	if (!isHandoff(headers)) return decline(401, 'This run resumes only on the contact\'s reply, through the account\'s Messaging Relay Trigger');
	const { apiKey } = (await this.getCredentials(CREDENTIAL_NAME)) as { apiKey: string };
	const key = deriveShareKey(apiKey);
	const ownPath = new URL(request.originalUrl ?? request.url ?? '/', 'http://n8n').pathname;
	const raw = request.rawBody;
	const bodyText = raw instanceof Uint8Array ? Buffer.from(raw).toString('utf8') : typeof raw === 'string' ? raw : JSON.stringify(request.body ?? {});
	const check = verifyHandoff(key, headers, ownPath, bodyText);
	if (!check.ok || check.op !== 'resume') return decline(401, `Invalid hand-off: ${check.ok ? 'not a resume' : check.reason}`);
	const proof = proofFor(key, check.nonce, ownPath);

	const { asked = 0, questionId = null, event } = JSON.parse(bodyText) as ResumeBody;
	const message = event?.message;
	const chat = String((this.getQueryData() as { chat?: unknown }).chat ?? '');
	if (event?.type !== 'message.received' || !message || !fromChat(message, chat)) {
		res.status(200).json({ proof, consumed: false });
		return { noWebhookResponse: true };
	}

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
	const question = { text: this.getNodeParameter('text', '') as string, messageId: questionId };
	const output: IDataObject = { answered: true, ...reply, question };

	if (this.getNodeParameter('responseType', 'freeText') === 'approval') {
		const words = approvalWords.call(this);
		const decision = decide(reply.text, words);
		const maxReAsks = this.getNodeParameter('approvalOptions.reAskTimes', 1) as number;
		if (decision === 'unclear' && asked < maxReAsks) {
			await askAgain.call(this, message);
			res.status(200).json({ proof, consumed: true, reAsked: true });
			return { noWebhookResponse: true };
		}
		output.decision = decision;
		output.approved = decision === 'approved';
	}
	res.status(200).json({ proof, consumed: true });
	return { noWebhookResponse: true, workflowData: [[{ json: output }]] };
}

/** Whether the message is in the waited-for chat (a chat id, or a direct chat from that phone). */
function fromChat(message: IDataObject, chat: string): boolean {
	const chatId = typeof message.chatId === 'string' ? message.chatId : '';
	const isGroup = message.group !== undefined && message.group !== null;
	return chatKeys(chatId, isGroup).includes(chat) || (!isGroup && phoneDigits(message.from) === chat);
}

function approvalWords(this: IWebhookFunctions): ApprovalWords {
	const list = (name: string, fallback: string) =>
		String(this.getNodeParameter(`approvalOptions.${name}`, fallback))
			.split(',')
			.map((w) => w.trim())
			.filter(Boolean);
	return { yes: list('approveWords', 'yes, y, 1, ok, 👍'), no: list('declineWords', 'no, n, 2, 👎') };
}

async function askAgain(this: IWebhookFunctions, message: IDataObject) {
	const text = this.getNodeParameter('approvalOptions.reAskText', 'Sorry, I did not understand. Please answer yes or no.') as string;
	await relayApiRequest.call(this, {
		method: 'POST',
		path: '/v1/messages',
		body: { channelId: message.channelId, to: message.chatId, text },
		scope: 'messages:send',
	});
}
