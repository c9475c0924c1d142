import { z } from 'zod';

import { chatSchema, groupMemberSchema, reducedChatSchema } from './chat';
import { messageSchema, reducedMessageSchema } from './message';
import { numberSchema } from './number';

/**
 * The sixteen events of spec part 6, one schema each, and the TypeScript types derived from them, so schemas
 * and types cannot drift. Every schema passes unknown fields through (fields are added, never renamed).
 * `occurredAt` is optional because the v1 `message.received` did not carry it. `reason` and `origin` are open
 * strings: the spec shows one sample value at most.
 */
const base = <T extends string>(type: T) =>
	z
		.object({
			type: z.literal(type),
			occurredAt: z.string().optional(),
		})
		.passthrough();

const phone = z.string().min(1);

export const eventSchemas = {
	'message.received': base('message.received').extend({ message: messageSchema }),
	'message.sent': base('message.sent').extend({
		message: messageSchema.extend({ origin: z.string() }),
	}),
	'message.delivered': base('message.delivered').extend({ message: messageSchema }),
	'message.read': base('message.read').extend({ message: messageSchema, by: phone.optional() }),
	'message.failed': base('message.failed').extend({ message: messageSchema, reason: z.string() }),
	'message.reaction': base('message.reaction').extend({
		message: reducedMessageSchema,
		emoji: z.string().nullable(),
		by: phone,
	}),
	'message.edited': base('message.edited').extend({ message: messageSchema, by: phone }),
	'message.deleted': base('message.deleted').extend({ message: messageSchema, by: phone }),
	'group.member_joined': base('group.member_joined').extend({
		chat: chatSchema,
		member: groupMemberSchema,
		by: phone,
	}),
	'group.member_left': base('group.member_left').extend({
		chat: chatSchema,
		member: groupMemberSchema,
		by: phone,
	}),
	'group.updated': base('group.updated').extend({
		chat: reducedChatSchema,
		subject: z.string(),
		by: phone,
	}),
	'number.disconnected': base('number.disconnected').extend({
		number: numberSchema,
		reason: z.string(),
	}),
	'number.reconnected': base('number.reconnected').extend({ number: numberSchema }),
	'number.phone_offline': base('number.phone_offline').extend({ number: numberSchema }),
	'number.phone_online': base('number.phone_online').extend({ number: numberSchema }),
	'number.history_synced': base('number.history_synced').extend({
		number: numberSchema,
		counts: z.unknown(),
	}),
} as const;

export type EventType = keyof typeof eventSchemas;
export type RelayEvent = { [T in EventType]: z.infer<(typeof eventSchemas)[T]> }[EventType];
export type RelayEventOf<T extends EventType> = z.infer<(typeof eventSchemas)[T]>;

/** The catalogue in alphabetical order, as the trigger lists it. */
export const EVENT_TYPES = (Object.keys(eventSchemas) as EventType[]).sort();

/** What each event means, in the words of the spec's catalogue (part 6.2): the trigger's Events list shows it. */
export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
	'group.member_joined': 'Someone was added to a group',
	'group.member_left': 'Someone left a group or was removed',
	'group.updated': 'A group was created or its subject changed',
	'message.deleted': 'A message was deleted for everyone',
	'message.delivered': "An outgoing message reached the recipient's device",
	'message.edited': 'The sender edited a message',
	'message.failed': 'An outgoing message was rejected',
	'message.reaction': 'Someone reacted to a message or removed their reaction',
	'message.read': 'An outgoing message was read',
	'message.received': 'A contact sent a message (never your own)',
	'message.sent': 'Your number sent a message, from the phone or through the API',
	'number.disconnected': 'The link to the phone stopped working and must be restored',
	'number.history_synced': 'Recent history of a newly linked number was imported',
	'number.phone_offline': 'The phone does not respond for now; no relinking needed',
	'number.phone_online': 'The phone responds again',
	'number.reconnected': 'The link to the phone works again',
};

export type EventFamily = 'message' | 'group' | 'number';
