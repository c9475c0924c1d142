import { z } from 'zod';

/**
 * The body of a `pause` hand-off (docs/design/durability-and-conversations.md §5a): Message →
 * Pause Automatic Replies or Resume Automatic Replies, sent signed by the action node to every
 * trigger of the account. A trigger with "Pause When a Person Replies" applies it to its record
 * of paused chats, as if a person had written from the phone (or sent the resume keyword).
 */
export const pauseCommandSchema = z.object({
	/** The chat: a chat id (`4917612345678@c.us`) or a phone number's digits. */
	chat: z.string().min(1),
	/** Pause (true) or resume (false). */
	pause: z.boolean(),
	/** How long; 0 pauses until resumed. */
	minutes: z.number().min(0).optional(),
	/** When it was given (ms since epoch): the newest word on a chat wins. */
	at: z.number(),
	/** The exact end (ms since epoch, 0: ended): a trigger saving a person's pause in a request of its own. */
	until: z.number().min(0).optional(),
});

export type PauseCommand = z.infer<typeof pauseCommandSchema>;
