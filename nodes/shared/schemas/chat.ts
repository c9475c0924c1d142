import { z } from 'zod';

/** An item of `chat.members`: the reduced participant list of group events (spec 2.3). */
export const chatMemberSchema = z
	.object({
		phone: z.string(),
		name: z.string().nullable().optional(),
		role: z.string().optional(),
		self: z.boolean().optional(),
	})
	.passthrough();

/** The group a group event is about. */
export const chatSchema = z
	.object({
		id: z.string().min(1),
		chatId: z.string().min(1),
		channelId: z.string().min(1),
		kind: z.string(),
		name: z.string().nullable(),
		members: z.array(chatMemberSchema),
	})
	.passthrough();

/** In `group.updated` the chat is reduced to these three fields. */
export const reducedChatSchema = z
	.object({
		id: z.string().min(1),
		chatId: z.string().min(1),
		kind: z.string(),
		channelId: z.string().optional(),
	})
	.passthrough();

/** `member` of `group.member_joined` and `group.member_left`. */
export const groupMemberSchema = z
	.object({
		phone: z.string(),
		name: z.string().nullable(),
		removed: z.boolean(),
	})
	.passthrough();

export type RelayChat = z.infer<typeof chatSchema>;
export type ReducedRelayChat = z.infer<typeof reducedChatSchema>;
export type RelayGroupMember = z.infer<typeof groupMemberSchema>;
