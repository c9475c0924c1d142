import { z } from 'zod';

import { missedRequestSchema, missedSummarySchema } from './missed';
import { pauseCommandSchema } from './pauseCommand';
import { waitBatchAnswerSchema } from './wait';

/**
 * The triggers' own protocol (docs/shared-webhook.md, "Signed hand-offs"): what each hand-off's
 * member answers, as the sender reads it. The proof every answer but an event's carries is checked
 * before (peerClient.ts), so it is not part of these. An answer that does not match is one this
 * version cannot read (another version's, during an upgrade): the sender sees no body, not a cast.
 */
export const handoffAnswerSchemas = {
	/** The member's n8n answer to a forwarded event: the trigger's own words, when it ran nothing. */
	event: z.object({ ignored: z.string().optional(), ranBefore: z.boolean().optional() }),
	ping: z.object({}),
	/** `moved-on`: the registration already had another holder; nothing to do. */
	takeover: z.object({ result: z.enum(['registered', 'moved-on']) }),
	/** `null`: nothing missed (or not a member it knows). */
	missed: z.object({ missed: missedSummarySchema.nullable().optional() }),
	/** Not applied: the trigger does not pause chats ("Pause When a Person Replies" is off), or not a command. */
	pause: z.object({ applied: z.boolean(), reason: z.string().optional() }),
	wait: waitBatchAnswerSchema,
	/** Not consumed: the run waits on another question or chat; `reAsked`: its Approval asked again. */
	resume: z.object({ consumed: z.boolean(), reAsked: z.boolean().optional() }),
	/** What the repair found: the registration standing (`intact`), or made again. */
	repair: z.object({ result: z.enum(['registered', 'intact']) }),
};

export type HandoffOp = keyof typeof handoffAnswerSchemas;
export type HandoffAnswer<Op extends HandoffOp> = z.output<(typeof handoffAnswerSchemas)[Op]>;

/** A member's answer body as its hand-off's schema reads it; undefined when it does not match. */
export function readHandoffAnswer<Op extends HandoffOp>(
	op: Op,
	body: unknown,
): HandoffAnswer<Op> | undefined {
	return readWith<HandoffAnswer<Op>>(handoffAnswerSchemas[op], body);
}

/**
 * What the receiving trigger reads from a hand-off's body (receiveHandoff.ts, chatPause.ts). A ping's
 * and a repair's carry nothing; an event's is the service's event (readDelivery.ts); a `wait`'s has
 * an earlier form too (wait.ts, parseWaitBatch); a `resume` goes to a waiting run (resume.ts).
 */
export const handoffRequestSchemas = {
	/** The holder that leaves names itself: the new holder lists everyone else. */
	takeover: z.object({ leaving: z.string().startsWith('/') }),
	missed: missedRequestSchema,
	pause: pauseCommandSchema,
};

type RequestOp = keyof typeof handoffRequestSchemas;
export type HandoffRequest<Op extends RequestOp> = z.output<(typeof handoffRequestSchemas)[Op]>;

/** A hand-off's body, byte for byte as it arrived, as its schema reads it; undefined when it does not match. */
export function readHandoffRequest<Op extends RequestOp>(
	op: Op,
	body: string,
): HandoffRequest<Op> | undefined {
	let json: unknown;
	try {
		json = JSON.parse(body);
	} catch {
		return undefined;
	}
	return readWith<HandoffRequest<Op>>(handoffRequestSchemas[op], json);
}

function readWith<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, value: unknown): T | undefined {
	const parsed = schema.safeParse(value);
	return parsed.success ? parsed.data : undefined;
}
