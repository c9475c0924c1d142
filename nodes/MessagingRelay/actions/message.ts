import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { unwrapObject, parseResource } from '../../shared/responses';
import { sentMessageSchema } from '../../shared/schemas/sentMessage';
import { relayApiRequest } from '../../shared/transport';
import { normaliseRecipient, requireId, requireText } from '../../shared/validation';

interface ReplyTarget {
	channelId: string;
	chatId: string;
}

function asTarget(value: unknown): ReplyTarget | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const { channelId, chatId } = value as Record<string, unknown>;
	if (typeof channelId === 'string' && channelId && typeof chatId === 'string' && chatId) {
		return { channelId, chatId };
	}
	return undefined;
}

/**
 * Where a reply goes: the chat and number of the message in the input item. The trigger puts
 * `chatId` and `channelId` at the top of its message items; a raw event body (for example
 * from n8n's own Webhook node) has them under `message`, or under `body.message`.
 */
export function findReplyTarget(json: IDataObject): ReplyTarget | undefined {
	const body = json.body as IDataObject | undefined;
	return (
		asTarget(json) ??
		asTarget(json.message) ??
		asTarget((json.event as IDataObject | undefined)?.message) ??
		asTarget(body?.message)
	);
}

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
	const parsed = parseResource(this.getNode(), sentMessageSchema, sent, 'the sent message', itemIndex);
	return { channelId, to, text, ...parsed };
}

export async function executeMessage(
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
): Promise<IDataObject> {
	const node = this.getNode();
	const text = requireText(node, this.getNodeParameter('text', itemIndex), 'Text', itemIndex);

	if (operation === 'send') {
		const channelId = requireId(
			node,
			this.getNodeParameter('channelId', itemIndex, '', { extractValue: true }),
			'From Number',
			itemIndex,
		);
		const to = normaliseRecipient(node, this.getNodeParameter('to', itemIndex), itemIndex);
		return await sendMessage.call(this, itemIndex, channelId, to, text);
	}

	if (operation === 'reply') {
		const target = findReplyTarget(this.getInputData()[itemIndex].json);
		if (!target) {
			throw new NodeOperationError(
				node,
				`The input item holds no received message to reply to [item ${itemIndex}]`,
				{
					itemIndex,
					description:
						'Reply reads "chatId" and "channelId" from the item of a Messaging Relay Trigger message event (or from "message" in a raw event). Connect this node after the trigger, or use Send and set From Number and To.',
				},
			);
		}
		return await sendMessage.call(this, itemIndex, target.channelId, target.chatId, text);
	}

	throw new NodeOperationError(node, `Unknown message operation "${operation}"`, { itemIndex });
}
