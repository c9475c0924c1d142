import type { IDataObject } from 'n8n-workflow';
import { z } from 'zod';

/** A JSON object, as n8n's items hold one: a message's fields are read one by one where used. */
const jsonObject = z.custom<IDataObject>(
	(value) => value !== null && typeof value === 'object' && !Array.isArray(value),
);

/**
 * The service's event a waiting run is offered (docs/shared-webhook.md, `resume`): only a
 * `message.received` with a message can answer it; anything else is read as "not this chat".
 */
export const resumeEventSchema = z
	.object({ type: z.string().optional(), message: jsonObject.optional() })
	.passthrough();
export type ResumeEvent = z.infer<typeof resumeEventSchema>;

/**
 * The body of a `resume` hand-off, from the holder to a waiting run's resume path (replyRouting.ts):
 * how often the holder saw the run ask again, the question's id when its chat had another wait, and
 * the event. Fields this version cannot read fall back to "asked 0 times" and "no id".
 */
export const resumeRequestSchema = z.object({
	asked: z.number().int().min(0).catch(0),
	questionId: z.string().nullable().catch(null),
	event: resumeEventSchema.optional().catch(undefined),
});
export type ResumeRequest = z.infer<typeof resumeRequestSchema>;
