import { z } from 'zod';

/**
 * A number (a phone-linked line), as `GET /v1/numbers/:id` returns it and as number events
 * carry it. The spec says both forms have the same shape, so this one schema reads both.
 *
 * Every object is `passthrough()`: the service adds fields and never renames them, so what we
 * do not know yet is handed on, not dropped. Open value lists (`status`) are plain strings.
 */
export const numberHealthSchema = z
	.object({
		phoneOnline: z.boolean(),
		lastSeenAt: z.string().nullable().optional(),
		lastEventAt: z.string().nullable().optional(),
	})
	.passthrough();

export const numberSchema = z
	.object({
		id: z.string().min(1),
		displayName: z.string().nullable().optional(),
		declaredNumber: z.string().nullable().optional(),
		pairedNumber: z.string().nullable().optional(),
		status: z.string().nullable().optional(),
		health: numberHealthSchema.nullable().optional(),
	})
	.passthrough();

export type RelayNumber = z.infer<typeof numberSchema>;

/** The one status value the spec names: the number lost its link and must be paired again. */
export const NEEDS_RELINK_STATUS = 'CREDENTIALS';

export type NumberConnection = 'connected' | 'phone offline' | 'needs relinking' | 'unknown';

/** What a user wants to know before picking a number to send from. */
export function describeConnection(number: RelayNumber): NumberConnection {
	if (number.status === NEEDS_RELINK_STATUS) return 'needs relinking';
	if (number.health?.phoneOnline === false) return 'phone offline';
	if (number.health?.phoneOnline === true) return 'connected';
	return 'unknown';
}
