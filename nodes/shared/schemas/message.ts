import { z } from 'zod';

/**
 * A message as the eight message events carry it under `message` (spec 2.2). The seven original fields of
 * `message.received` are required: the spec promises they stay. The later additions are optional, so a v1 event
 * with only the seven still parses. Open value lists (`type`, `status`, `origin`) are plain strings; inner shapes
 * the spec does not show (`attachments` items, `replyTo`, `location`, `contacts`, `linkPreview`, `group`,
 * `author`) are accepted as any JSON value.
 */
export const messageSchema = z
	.object({
		id: z.string().min(1),
		channelId: z.string().min(1),
		chatId: z.string().min(1),
		from: z.string().nullable(),
		senderName: z.string().nullable(),
		text: z.string().nullable(),
		timestamp: z.string(),
		type: z.string().optional(),
		status: z.string().nullable().optional(),
		attachments: z.array(z.unknown()).nullable().optional(),
		replyTo: z.unknown().optional(),
		location: z.unknown().optional(),
		contacts: z.array(z.unknown()).nullable().optional(),
		linkPreview: z.unknown().optional(),
		group: z.unknown().optional(),
		author: z.unknown().optional(),
		origin: z.string().optional(),
	})
	.passthrough();

/** `message.reaction` carries only these four fields of the message. */
export const reducedMessageSchema = z
	.object({
		id: z.string().min(1),
		chatId: z.string().min(1),
		type: z.string().optional(),
		status: z.string().nullable().optional(),
	})
	.passthrough();

export type RelayMessage = z.infer<typeof messageSchema>;
export type ReducedRelayMessage = z.infer<typeof reducedMessageSchema>;
