import { z } from 'zod';

/**
 * One question a run waits on, as the waiting node tells the account's triggers in a signed `wait`
 * hand-off (docs/design/conversations-at-scale.md, "Recording a wait"). Every field is bounded: a
 * row is loaded by every delivery, so a 1 MB "To" must never become one.
 */
export const waitSchema = z.object({
	executionId: z.string().min(1).max(64),
	/** n8n's signed resume path and query for the waiting node (never a host: the holder adds its own origin). */
	resumePath: z
		.string()
		.max(2048)
		.regex(/^\/[^/\\@]/, 'a path on the holder'),
	/** The chat id, or the phone's digits when the question went to a phone number. */
	chat: z.string().min(1).max(256),
	channelId: z.string().min(1).max(128),
	since: z.number(),
	until: z.number(),
	/** The question's message id, once it was sent (the quote rule). */
	questionId: z.string().max(256).nullable().optional(),
	/** Pass the reply on to the trigger workflows as a new message too. */
	passOn: z.boolean().optional(),
});

export type Wait = z.infer<typeof waitSchema>;

/** How many waits one `wait` hand-off carries at most (waitOutbox.ts). */
export const WAITS_PER_HANDOFF = 200;

/**
 * The body of a `wait` hand-off: new waits to record, waits recorded earlier whose presence in the
 * database is asked (`confirm`; one not there is written again), and rows to end (their question
 * was not sent, or the holder ended them: `ends`, by row id). A single wait (0.1.0's first form) is
 * read as `{ waits: [it] }`.
 */
export const waitBatchSchema = z.object({
	waits: z.array(waitSchema).max(WAITS_PER_HANDOFF).default([]),
	confirm: z.array(waitSchema).max(WAITS_PER_HANDOFF).default([]),
	ends: z.array(z.string().min(1).max(128)).max(WAITS_PER_HANDOFF).default([]),
	/** A trigger that just became the holder asks the one it replaced for every live wait (registration.ts). */
	export: z.boolean().optional(),
});

export type WaitBatch = z.infer<typeof waitBatchSchema>;

export function parseWaitBatch(body: unknown): WaitBatch | undefined {
	const batch = waitBatchSchema.safeParse(body);
	if (batch.success && (body as { executionId?: unknown }).executionId === undefined)
		return batch.data;
	const single = waitSchema.safeParse(body);
	return single.success ? { waits: [single.data], confirm: [], ends: [] } : undefined;
}

/** What the holder answers a `wait` hand-off (with its proof). */
export const waitBatchAnswerSchema = z.object({
	/** Per new wait, in order: recorded, or refused at the account's capacity. */
	recorded: z.array(z.boolean()),
	/** Per wait to confirm, in order: the static data the request loaded held it. */
	confirmed: z.array(z.boolean()).default([]),
	/** Per new wait: other live waits in its chat (then the question's id is sent too). */
	otherWaitsInChat: z.array(z.number()).default([]),
	/** Set when a wait was refused: the capacity, and how many runs were found waiting. */
	capacity: z.number().optional(),
	waiting: z.number().optional(),
	checked: z.number().optional(),
	/** Asked with `export`: every live wait this trigger holds. */
	exported: z.array(waitSchema).optional(),
});

export type WaitBatchAnswer = z.infer<typeof waitBatchAnswerSchema>;
