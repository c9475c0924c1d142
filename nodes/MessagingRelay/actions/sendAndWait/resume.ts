import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { answerRequest } from '../../../shared/answerRequest';
import { chatKeys, isDirectChat, phoneDigits } from '../../../shared/chatIds';
import { executionCustomData } from '../../../shared/n8n/capabilities';
import { memorySlot } from '../../../shared/processMemory';
import { readDelivery, rawBodyText } from '../../../shared/readDelivery';
import { CREDENTIAL_NAME } from '../../../shared/scopes';
import { serviceSecretMatches } from '../../../shared/serviceSecret';
import {
	deriveShareKey,
	HANDOFF_HEADERS,
	proofFor,
	verifyHandoff,
} from '../../../shared/sharedWebhook/signedHandoff';
import {
	resumeEventSchema,
	resumeRequestSchema,
	type ResumeEvent,
	type ResumeRequest,
} from '../../../shared/protocol/resume';
import { relayApiRequest } from '../../../shared/transport';
import { decide, type ApprovalWords } from './approval';
import { askOf, CURRENT_ASK, QUESTION_ID } from './sendAndWait';
import { releaseWebhook, SECRET_CHECK } from './waitingHolder';

/**
 * Send and Wait for Reply, the waiting run's side (sendAndWait.ts asks): who may resume it, and
 * whether a message answers its question (Approval: yes, no, or asked again).
 */

const reAskedHere = memorySlot<number>('re-asks', {
	holds:
		'how often a run that holds the webhook asked again, by execution; a restart may ask once more',
	maxEntries: 10_000,
	// A run that timed out or was stopped never comes back to delete its count.
	maxAgeMs: 7 * 24 * 3_600_000,
});

type Answer =
	| { kind: 'notThisChat' }
	| { kind: 'askedAgain' }
	| { kind: 'taken'; output: IDataObject };

/**
 * K of the node's credential, kept per credential in this process's memory: a resume is n8n's waiting
 * webhook, which reads and decrypts the credential on every call (the campaign's profile: 2.6 % of n8n's
 * time in getDecrypted). `fresh`: read it anew (a signature that does not match may be a changed key).
 */
const keysByCredential = memorySlot<string>('resume keys', {
	holds: 'K by credential id, for waiting runs; read again after a restart',
	maxEntries: 1_000,
});
async function accountKey(context: IWebhookFunctions, fresh = false): Promise<string> {
	const credential = context.getNode().credentials?.[CREDENTIAL_NAME]?.id ?? '';
	const known = keysByCredential.get(credential);
	if (known && !fresh) return known;
	const { apiKey } = (await context.getCredentials(CREDENTIAL_NAME)) as { apiKey: string };
	const key = deriveShareKey(apiKey);
	keysByCredential.set(credential, key);
	return key;
}

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
	let key = await accountKey(this);
	const current = isCurrentAsk.call(this);

	if (headers[HANDOFF_HEADERS.version] === undefined) {
		if (headers['x-service-secret'] === undefined)
			return answer(401, {
				error: "This run resumes only on the contact's reply, through the account's webhook",
			});
		const check = executionCustomData(this).get(SECRET_CHECK);
		let matches = serviceSecretMatches(headers['x-service-secret'], { hmacKey: key, check });
		// The credential may have changed since this process read it: once more, read anew.
		if (!matches) {
			key = await accountKey(this, true);
			matches = serviceSecretMatches(headers['x-service-secret'], { hmacKey: key, check });
		}
		if (!matches) return answer(401, { error: 'Invalid secret' });
		const delivery = readDelivery(request);
		if (delivery.kind === 'refused') return answer(delivery.status, { error: delivery.error });
		if (!current)
			return answer(200, { received: true, ignored: 'this run no longer waits on that question' });
		const executionId = String(this.getExecutionId());
		const asked = reAskedHere.get(executionId) ?? 0;
		const event = resumeEventSchema.safeParse(delivery.body);
		const taken = await takeAnswer.call(
			this,
			event.success ? event.data : undefined,
			asked,
			executionCustomData(this).get(QUESTION_ID) ?? null,
		);
		if (taken.kind === 'notThisChat')
			return answer(200, {
				received: true,
				ignored:
					'not the reply this run waits for, and no Messaging Relay Trigger is published on this account',
			});
		if (taken.kind === 'askedAgain') {
			reAskedHere.set(executionId, asked + 1);
			return answer(200, { received: true, answered: 'this waiting run', reAsked: true });
		}
		reAskedHere.delete(executionId);
		await releaseWebhook.call(this);
		return answer(200, { received: true, answered: 'this waiting run' }, taken.output);
	}

	const ownPath = new URL(request.originalUrl ?? request.url ?? '/', 'http://n8n').pathname;
	const bodyText = rawBodyText(request);
	let check = verifyHandoff(key, headers, ownPath, bodyText);
	if (!check.ok && check.refusal === 'signature') {
		key = await accountKey(this, true);
		check = verifyHandoff(key, headers, ownPath, bodyText);
	}
	if (!check.ok) return answer(401, { error: `Invalid hand-off: ${check.reason}` });
	const proof = proofFor(key, check.nonce, ownPath);
	// Whether the run still waits on this very question: a trigger joining while this run holds
	// the account's webhook, or the holder checking its oldest waits at capacity. No proof: no.
	if (check.op === 'ping') return answer(200, current ? { proof } : { waiting: false });
	if (check.op !== 'resume') return answer(401, { error: 'Invalid hand-off: not a resume' });
	// An earlier question of this run (asked again in sequence or in a loop): not this one's answer.
	if (!current) return answer(200, { proof, consumed: false });
	const resume = readResume(bodyText);
	if (!resume) return answer(400, { error: 'A resume hand-off this version cannot read' });
	const { asked, questionId, event } = resume;
	// The wait carries the question's id only when its chat had another wait: the run keeps its own.
	const taken = await takeAnswer.call(
		this,
		event,
		asked,
		questionId ?? executionCustomData(this).get(QUESTION_ID) ?? null,
	);
	if (taken.kind === 'notThisChat') return answer(200, { proof, consumed: false });
	if (taken.kind === 'askedAgain') return answer(200, { proof, consumed: true, reAsked: true });
	return answer(200, { proof, consumed: true }, taken.output);
}

/**
 * Whether the resume path names the question the run waits on now (its node id and `since`, both
 * signed into the path by n8n, against the run's custom data). A run that began to wait before the
 * package kept it has none: any question of it is its current one.
 */
function isCurrentAsk(this: IWebhookFunctions): boolean {
	const current = executionCustomData(this).get(CURRENT_ASK);
	const since = (this.getQueryData() as { since?: unknown }).since;
	return current === undefined || current === askOf(this.getNode().id, String(since ?? ''));
}

/**
 * Whether `event` answers this run: a `message.received` in the chat the question went to. For
 * Approval, an unclear answer is asked again while `asked` is below the node's limit.
 */
async function takeAnswer(
	this: IWebhookFunctions,
	event: ResumeEvent | undefined,
	asked: number,
	questionId: string | null,
): Promise<Answer> {
	const message = event?.message;
	const chat = String((this.getQueryData() as { chat?: unknown }).chat ?? '');
	if (event?.type !== 'message.received' || !message || !fromChat(message, chat))
		return { kind: 'notThisChat' };

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
			return { kind: 'askedAgain' };
		}
		output.decision = decision;
		output.approved = decision === 'approved';
	}
	return { kind: 'taken', output };
}

/** Whether the message is in the waited-for chat (a chat id, or a direct chat from that phone). */
function fromChat(message: IDataObject, chat: string): boolean {
	const chatId = typeof message.chatId === 'string' ? message.chatId : '';
	const direct = isDirectChat(chatId, message.group);
	return chatKeys(chatId, !direct).includes(chat) || (direct && phoneDigits(message.from) === chat);
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

/** The resume hand-off's body, or undefined when it is not JSON of its form. */
function readResume(bodyText: string): ResumeRequest | undefined {
	let json: unknown;
	try {
		json = JSON.parse(bodyText);
	} catch {
		return undefined;
	}
	const parsed = resumeRequestSchema.safeParse(json);
	return parsed.success ? parsed.data : undefined;
}
