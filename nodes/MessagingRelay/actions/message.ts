import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runChatOrdered } from '../chatOrderedPool';
import { unwrapObject, parseResource } from '../../shared/responses';
import { sentMessageSchema } from '../sentMessage';
import { nodeOf, relayApiRequest } from '../../shared/transport';
import { normaliseRecipient, requireId, requireText } from '../validation';
import { markdownToWhatsApp } from '../whatsappFormat';
import { agentAnswerOf, resolveReplyTarget } from './replyOrigin';

export { findReplyTarget } from './replyOrigin';

/** Options → Formatting: when the text goes out converted from Markdown to WhatsApp style. */
export type Formatting = 'auto' | 'whatsapp' | 'asWritten';

async function sendMessage(
	this: IExecuteFunctions,
	itemIndex: number,
	channelId: string,
	to: string,
	text: string,
): Promise<IDataObject> {
	const { body } = await relayApiRequest.call(this, {
		method: 'POST',
		path: '/v1/messages',
		body: { channelId, to, text },
		scope: 'messages:send',
		itemIndex,
	});
	// The response body is not specified: whatever the service returns is kept, on top of
	// what was sent, so the item always says where the message went.
	const sent = body === undefined ? {} : unwrapObject(body, ['message', 'data']);
	const parsed = parseResource(
		nodeOf(this),
		sentMessageSchema,
		sent,
		'the sent message',
		itemIndex,
	);
	return { channelId, to, text, ...parsed };
}

/**
 * Chosen from `npm run bench` (docs/performance.md has the sweep): from 100 in flight on, n8n's own work per
 * request, not the wait, bounds the run, and 100 is as fast as n8n's HTTP Request node (500 messages at 25 ms:
 * 1202 ms vs 1307) while keeping bursts bounded, since the service's rate limits are not published.
 */
export const DEFAULT_MESSAGES_IN_FLIGHT = 100;

interface PreparedMessage {
	itemIndex: number;
	channelId: string;
	to: string;
	text: string;
	/** Messages to one chat from one number go out one after the other, in input order. */
	key: string;
}

/**
 * Reply's text: what the user typed, or, when Text is left empty, the AI Agent's answer in the
 * input item (`output`). Only that default answer is converted by "Automatic" formatting: a
 * text the user wrote (perhaps already in WhatsApp style) goes out as written.
 */
function replyText(
	this: IExecuteFunctions,
	itemIndex: number,
): { text: string; isAgentAnswer: boolean } {
	const typed = this.getNodeParameter('text', itemIndex, '') as unknown;
	const typedText = typeof typed === 'string' ? typed : typed == null ? '' : String(typed);
	if (typedText.trim() !== '') return { text: typedText, isAgentAnswer: false };
	const answer = agentAnswerOf(this.getInputData()[itemIndex].json);
	if (answer !== undefined) return { text: answer, isAgentAnswer: true };
	throw new NodeOperationError(nodeOf(this), `The field "Text" is empty [item ${itemIndex}]`, {
		itemIndex,
		description:
			'Type the text to send, or put this node after an AI Agent: with Text left empty, Reply sends the agent\'s answer (the "output" field of its input item). Empty messages are not sent.',
	});
}

function applyFormatting(text: string, formatting: Formatting, isAgentAnswer: boolean): string {
	const convert = formatting === 'whatsapp' || (formatting === 'auto' && isAgentAnswer);
	return convert ? markdownToWhatsApp(text) : text;
}

/** Reads and checks one item's parameters; no request is made here. */
function prepare(this: IExecuteFunctions, operation: string, itemIndex: number): PreparedMessage {
	const node = nodeOf(this);
	const formatting = this.getNodeParameter('options.formatting', itemIndex, 'auto') as Formatting;
	let text: string;
	let channelId: string;
	let to: string;
	if (operation === 'send') {
		text = requireText(node, this.getNodeParameter('text', itemIndex), 'Text', itemIndex);
		text = applyFormatting(text, formatting, false);
		channelId = requireId(
			node,
			this.getNodeParameter('channelId', itemIndex, '', { extractValue: true }),
			'From Number',
			itemIndex,
		);
		to = normaliseRecipient(node, this.getNodeParameter('to', itemIndex), itemIndex);
	} else if (operation === 'reply') {
		const reply = replyText.call(this, itemIndex);
		text = applyFormatting(reply.text, formatting, reply.isAgentAnswer);
		({ channelId, chatId: to } = resolveReplyTarget.call(this, itemIndex));
	} else {
		throw new NodeOperationError(node, `Unknown message operation "${operation}"`, { itemIndex });
	}
	return { itemIndex, channelId, to, text, key: `${channelId}\u0000${to}` };
}

function errorItem(error: unknown, itemIndex: number): INodeExecutionData {
	const { message, description } = error as { message: string; description?: string };
	return {
		json: { error: message, ...(description ? { description } : {}) },
		pairedItem: { item: itemIndex },
	};
}

/**
 * Message → Send and Reply for all input items at once. Every item is checked before the
 * first request, so a typo in item 7 sends nothing (unless "Continue On Fail" turns it into an
 * error item). Then up to "Messages in Flight" requests run at once, chat by chat in input
 * order; the output keeps the input order and each item's pairing.
 */
export async function executeMessages(
	this: IExecuteFunctions,
	operation: string,
): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	const continueOnFail = this.continueOnFail();
	const results: INodeExecutionData[] = new Array(items.length);
	const ready: PreparedMessage[] = [];

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			ready.push(prepare.call(this, operation, itemIndex));
		} catch (error) {
			// prepare() throws NodeOperationErrors naming the field and item, or n8n's own
			// expression errors: both already say what is wrong, so they are passed on as they are.
			const invalid = error as NodeOperationError;
			if (!continueOnFail) throw invalid;
			results[itemIndex] = errorItem(invalid, itemIndex);
		}
	}

	const limit = this.getNodeParameter(
		'options.messagesInFlight',
		0,
		DEFAULT_MESSAGES_IN_FLIGHT,
	) as number;
	let firstError: unknown;
	await runChatOrdered(ready, limit, async (message) => {
		try {
			const json = await sendMessage.call(
				this,
				message.itemIndex,
				message.channelId,
				message.to,
				message.text,
			);
			results[message.itemIndex] = { json, pairedItem: { item: message.itemIndex } };
			return true;
		} catch (error) {
			if (!continueOnFail) {
				firstError ??= error;
				return false;
			}
			results[message.itemIndex] = errorItem(error, message.itemIndex);
			return true;
		}
	});
	if (firstError !== undefined) throw firstError;
	return results;
}
