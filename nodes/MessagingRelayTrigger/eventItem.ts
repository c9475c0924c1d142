import type { IDataObject } from 'n8n-workflow';

import type { EventFamily, EventType, RelayEvent, RelayEventOf } from '../shared/schemas/events';

/**
 * The trigger's output item: one stable shape per event family, so a no-code user maps `{{ $json.text }}` or
 * `{{ $json.chatId }}` without reading the spec. Every item has `type`, `occurredAt` (null when the event has none)
 * and `event`, the body as delivered; message items also `chatId` and `channelId` (what Message → Reply reads), and
 * `chatInput` and `sessionId`, which the AI Agent and Simple Memory read at their defaults, so trigger → AI Agent
 * needs no expression (n8n 2.41.1: docs/ai-assistant.md, "What each node does with its defaults").
 */

/** One conversation per chat of a number: the same contact on two numbers is two conversations. */
export function sessionIdOf(channelId: string | null | undefined, chatId: string): string {
	return channelId ? `${channelId}:${chatId}` : chatId;
}

type MessageEvent = RelayEventOf<
	| 'message.received'
	| 'message.sent'
	| 'message.delivered'
	| 'message.read'
	| 'message.failed'
	| 'message.edited'
	| 'message.deleted'
>;

function messageItem(event: MessageEvent): IDataObject {
	const { message } = event;
	return {
		channelId: message.channelId,
		chatId: message.chatId,
		messageId: message.id,
		text: message.text,
		chatInput: message.text ?? '',
		sessionId: sessionIdOf(message.channelId, message.chatId),
		from: message.from,
		senderName: message.senderName,
		messageType: message.type ?? null,
		status: message.status ?? null,
		isGroup: message.group !== undefined && message.group !== null,
		group: (message.group as IDataObject | undefined) ?? null,
		author: (message.author as IDataObject | undefined) ?? null,
		by: 'by' in event && typeof event.by === 'string' ? event.by : null,
		reason: 'reason' in event && typeof event.reason === 'string' ? event.reason : null,
		origin: message.origin ?? null,
	};
}

function reactionItem(event: RelayEventOf<'message.reaction'>): IDataObject {
	return {
		// The reduced message of a reaction carries no channelId.
		channelId: null,
		chatId: event.message.chatId,
		messageId: event.message.id,
		emoji: event.emoji,
		removed: event.emoji === null,
		by: event.by,
	};
}

function groupItem(
	event: RelayEventOf<'group.member_joined' | 'group.member_left' | 'group.updated'>,
): IDataObject {
	if (event.type === 'group.updated') {
		return {
			channelId: event.chat.channelId ?? null,
			chatId: event.chat.chatId,
			groupName: event.subject,
			subject: event.subject,
			by: event.by,
		};
	}
	return {
		channelId: event.chat.channelId,
		chatId: event.chat.chatId,
		groupName: event.chat.name,
		memberPhone: event.member.phone,
		memberName: event.member.name,
		removed: event.member.removed,
		by: event.by,
	};
}

function numberItem(event: RelayEventOf<`number.${string}` & EventType>): IDataObject {
	const { number } = event;
	return {
		channelId: number.id,
		numberName: number.displayName ?? null,
		pairedNumber: number.pairedNumber ?? null,
		status: number.status ?? null,
		phoneOnline: number.health?.phoneOnline ?? null,
		reason: 'reason' in event && typeof event.reason === 'string' ? event.reason : null,
		...('counts' in event ? { counts: (event.counts ?? null) as IDataObject | null } : {}),
	};
}

export function eventItem(event: RelayEvent): IDataObject {
	const family = event.type.slice(0, event.type.indexOf('.')) as EventFamily;
	let fields: IDataObject;
	if (event.type === 'message.reaction') fields = reactionItem(event);
	else if (family === 'message') fields = messageItem(event as MessageEvent);
	else if (family === 'group') fields = groupItem(event as Parameters<typeof groupItem>[0]);
	else fields = numberItem(event as Parameters<typeof numberItem>[0]);
	return {
		type: event.type,
		occurredAt: event.occurredAt ?? null,
		...fields,
		event: event as unknown as IDataObject,
	};
}

/** An event of a type this version does not know, emitted when "All Events" is chosen. */
export function unknownEventItem(body: IDataObject): IDataObject {
	return {
		type: body.type,
		occurredAt: typeof body.occurredAt === 'string' ? body.occurredAt : null,
		event: body,
	};
}

/** The channelId an event belongs to, for the "Only Numbers" option. */
export function channelOf(body: IDataObject): string | undefined {
	const message = body.message as IDataObject | undefined;
	const chat = body.chat as IDataObject | undefined;
	const number = body.number as IDataObject | undefined;
	const candidate = message?.channelId ?? chat?.channelId ?? number?.id;
	return typeof candidate === 'string' ? candidate : undefined;
}
