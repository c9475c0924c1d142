import { z } from 'zod';

/**
 * The body of a `missed` hand-off: a set-aside member asks the holder what it missed, or tells it
 * that it reported them up to a time, to have them forgotten (memberHealth.ts).
 */
export const missedRequestSchema = z.object({
	/** The member's own webhook path. */
	member: z.string().startsWith('/'),
	/** Not a number: only the question is answered (nothing is forgotten). */
	reportedUpTo: z.number().optional().catch(undefined),
});

/**
 * What a set-aside member is told it missed (the `missed` hand-off's answer). `events` is optional
 * because a holder of an earlier version answers without it (mixed versions during an upgrade);
 * the member's report then gives the counts only.
 */
export const missedSummarySchema = z.object({
	count: z.number(),
	/** Per event type, of the misses kept with their type. */
	types: z.record(z.string(), z.number()),
	/** Misses beyond those, counted only. */
	uncounted: z.number(),
	firstAt: z.number(),
	lastAt: z.number(),
	/** Report up to this time; the member sends it back to have them forgotten. */
	upTo: z.number(),
	/** The kept misses one by one, oldest first: the id the report names each by (missedEventId.ts), its type, when it was missed. */
	events: z.array(z.object({ id: z.string(), type: z.string(), at: z.number() })).optional(),
});
export type MissedSummary = z.infer<typeof missedSummarySchema>;
