import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { chatKey } from '../../../shared/chatIds';
import { executionCustomData, requireN8nMethods } from '../../../shared/n8n/capabilities';
import { unwrapObject } from '../../../shared/responses';
import { CREDENTIAL_NAME } from '../../../shared/scopes';
import { tellAllTriggers } from '../../accountTriggers';
import {
	endWithTriggers,
	notRecordedError,
	recordWithTriggers,
	WaitNotRecorded,
} from '../../../shared/sendAndWait/waitOutbox';
import { deriveShareKey } from '../../../shared/sharedWebhook/signedHandoff';
import { findReceiver, holdWebhook } from './waitingHolder';
import type { Wait } from '../../../shared/protocol/wait';
import { signedWaitParams } from '../../../shared/protocol/waitingRunUrl';
import { nodeOf, relayApiRequest } from '../../../shared/transport';
import { normaliseRecipient, requireId, requireText } from '../../validation';
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
export const QUESTION_ID = 'relayQuestionId';
/** The custom-data key of the question the run waits on now: its node id and when it asked. */
export const CURRENT_ASK = 'relayAsk';
export const askOf = (nodeId: string, since: number | string) => `${nodeId}:${since}`;

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

	// Which question the run waits on now: its webhook declines a resume for any other (an earlier
	// question of this run, in sequence or in a loop: resume.ts).
	executionCustomData(this).set(CURRENT_ASK, askOf(this.getNode().id, since));

	// Before the question, so that a reply can never overtake the record of its wait: the
	// account's triggers record it, or (none published) this run holds the webhook itself (§5b).
	const receiver = await findReceiver.call(this, key, ownUrl);
	const registration =
		receiver.kind === 'triggers'
			? receiver.registration
			: await holdWebhook.call(this, key, ownUrl);
	let othersInChat = 0;
	if (registration) {
		try {
			othersInChat = await recordWithTriggers(this, key, registration, wait);
		} catch (error) {
			const failure =
				error instanceof WaitNotRecorded ? error : new WaitNotRecorded('holder', String(error));
			// Perhaps recorded though not confirmed: nothing may wait for a question not asked.
			if (failure.reason !== 'capacity')
				await endWithTriggers(this, key, registration, [wait]).catch(() => undefined);
			throw notRecordedError(node, failure);
		}
	}

	let body: unknown;
	let asked = false;
	try {
		({ body } = await relayApiRequest.call(this, {
			method: 'POST',
			path: '/v1/messages',
			body: { channelId, to, text },
			scope: 'messages:send',
			itemIndex: 0,
		}));
		asked = true;
	} finally {
		// The question did not go out: nothing may wait for its answer (the error is the request's).
		if (!asked && registration)
			await endWithTriggers(this, key, registration, [wait]).catch(() => undefined);
	}
	const sent = body === undefined ? {} : (unwrapObject(body, ['message', 'data']) as IDataObject);
	const questionId = typeof sent.id === 'string' ? sent.id : null;
	if (questionId) {
		executionCustomData(this).set(QUESTION_ID, questionId);
		// Only another run waiting in this chat needs the id (a reply quoting this question comes
		// here, not there): one save of the triggers' static data per run in the usual case.
		if (registration && othersInChat > 0)
			await tellAllTriggers(this, registration, 0, 'wait', JSON.stringify({ ...wait, questionId }));
	}

	await this.putExecutionToWait(until);
	return [this.getInputData()];
}
