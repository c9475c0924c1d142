import { z } from 'zod';

/**
 * One run that waits for a contact's reply, as the waiting node tells the account's triggers in a
 * signed `wait` hand-off (docs/design/durability-and-conversations.md §5).
 */
export const waitSchema = z.object({
	executionId: z.string().min(1),
	/** n8n's signed resume path and query for the waiting node (never a host: the holder adds its own origin). */
	resumePath: z.string().startsWith('/'),
	/** The chat id, or the phone's digits when the question went to a phone number. */
	chat: z.string().min(1),
	channelId: z.string().min(1),
	since: z.number(),
	until: z.number(),
	/** The question's message id, once it was sent (the quote rule). */
	questionId: z.string().nullable().optional(),
	/** Pass the reply on to the trigger workflows as a new message too. */
	passOn: z.boolean().optional(),
});

export type Wait = z.infer<typeof waitSchema>;
