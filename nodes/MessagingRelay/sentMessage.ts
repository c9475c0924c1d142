import { z } from 'zod';

/**
 * The answer to `POST /v1/messages`. The spec does not show it, so nothing is required:
 * whatever object the service returns is passed on, and fields we recognise are typed.
 */
export const sentMessageSchema = z
	.object({
		id: z.string().optional(),
		channelId: z.string().optional(),
		chatId: z.string().optional(),
		status: z.string().optional(),
	})
	.passthrough();

export type SentMessage = z.infer<typeof sentMessageSchema>;
