import { z } from 'zod';

/**
 * The account's one relay webhook. `secret` is only present right after `PUT /v1/webhook`
 * (creation or rotation); `GET` may leave it out.
 */
export const webhookSchema = z
	.object({
		url: z.string().min(1),
		active: z.boolean().optional(),
		secret: z.string().optional(),
	})
	.passthrough();

export type RelayWebhook = z.infer<typeof webhookSchema>;
