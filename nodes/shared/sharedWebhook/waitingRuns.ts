import type { IDataObject } from 'n8n-workflow';
import { z } from 'zod';

import { chatKeys, phoneDigits } from '../chatIds';
import { processKey, type ListenerContext } from '../processKey';
import type { WebhookState } from './webhookState';

/**
 * The record of runs that wait for a contact's reply (Message → Send and Wait for Reply,
 * docs/design/durability-and-conversations.md §5). Every trigger of the account keeps it, from
 * the signed `wait` hand-offs the waiting node sends before and after its question, so that a
 * holder hand-over keeps it; only the holder routes replies with it (replyRouting.ts). Like the
 * delivery ledger it lives in this process's memory and in the workflow's static data, and the
 * union is read and written back.
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

/** A wait as kept: what the hand-offs said, and the delivery that resumed it, if one did. */
export interface WaitEntry extends IDataObject {
	executionId: string;
	resumePath: string;
	chat: string;
	channelId: string;
	since: number;
	until: number;
	questionId?: string | null;
	passOn?: boolean;
	/** The delivery id of the reply this run took (a redelivery of it is acknowledged, not passed on). */
	resumedBy?: string;
	/** How many times the run asked again after an unclear answer (Approval). */
	asked?: number;
}

const MAX_WAITS = 1_000;
/** A wait is kept this long past its end, so that a late redelivery of its reply is still recognised. */
const KEEP_AFTER_MS = 60 * 60_000;

const inMemory = new Map<string, Record<string, WaitEntry>>();

function merged(a: WaitEntry | undefined, b: WaitEntry | undefined): WaitEntry | undefined {
	if (!a || !b) return a ?? b;
	const asked = Math.max(a.asked ?? 0, b.asked ?? 0);
	return { ...a, ...b, questionId: b.questionId ?? a.questionId ?? null, resumedBy: b.resumedBy ?? a.resumedBy, asked } as WaitEntry;
}

function prune(entries: Record<string, WaitEntry>, now: number) {
	for (const [id, entry] of Object.entries(entries)) if (entry.until + KEEP_AFTER_MS < now) delete entries[id];
	const sorted = Object.entries(entries).sort(([, a], [, b]) => a.since - b.since);
	sorted.slice(0, Math.max(0, sorted.length - MAX_WAITS)).forEach(([id]) => delete entries[id]);
}

/** Adds or updates a wait (both copies; static data gets the union). */
export function recordWait(context: ListenerContext, state: WebhookState, wait: WaitEntry, now = Date.now()) {
	const key = processKey(context);
	const memory = inMemory.get(key) ?? {};
	memory[wait.executionId] = merged(memory[wait.executionId], wait)!;
	prune(memory, now);
	inMemory.set(key, memory);
	const union: Record<string, WaitEntry> = { ...((state.waits as Record<string, WaitEntry> | undefined) ?? {}) };
	for (const [id, known] of Object.entries(memory)) union[id] = merged(union[id], known)!;
	prune(union, now);
	state.waits = union;
}

/** Forgets a wait whose run no longer waits (it timed out, was cancelled or deleted). */
export function dropWait(context: ListenerContext, state: WebhookState, executionId: string) {
	delete inMemory.get(processKey(context))?.[executionId];
	const stored = state.waits as Record<string, WaitEntry> | undefined;
	if (stored?.[executionId]) {
		delete stored[executionId];
		if (Object.keys(stored).length === 0) delete state.waits;
	}
}

function allWaits(context: ListenerContext, state: WebhookState): WaitEntry[] {
	const memory = inMemory.get(processKey(context)) ?? {};
	const stored = (state.waits as Record<string, WaitEntry> | undefined) ?? {};
	return [...new Set([...Object.keys(memory), ...Object.keys(stored)])].map((id) => merged(memory[id], stored[id])!);
}

/** The message id a reply quotes, wherever the service puts it (the shape of `replyTo` is not shown in the spec). */
export function quotedId(message: IDataObject): string | undefined {
	const replyTo = message.replyTo as unknown;
	if (typeof replyTo === 'string' && replyTo) return replyTo;
	if (replyTo && typeof replyTo === 'object') {
		for (const field of ['id', 'messageId', 'message_id']) {
			const value = (replyTo as IDataObject)[field];
			if (typeof value === 'string' && value) return value;
		}
	}
	return undefined;
}

/**
 * The waits this message may answer, in the order they are offered it: the one whose question
 * it quotes, then the others by age, oldest first. A wait for a chat id matches that chat; a wait
 * for a phone number matches a direct chat from that phone. A wait that already took another
 * delivery is left out; the one that took this very delivery comes first (a redelivery).
 */
export function waitsForReply(context: ListenerContext, state: WebhookState, message: IDataObject, deliveryId: string, now = Date.now()): WaitEntry[] {
	const chatId = typeof message.chatId === 'string' ? message.chatId : '';
	const isGroup = message.group !== undefined && message.group !== null;
	const keys = new Set([...chatKeys(chatId, isGroup), ...(isGroup ? [] : [phoneDigits(message.from)].filter((d): d is string => d !== undefined))]);
	const channelId = message.channelId;
	const quoted = quotedId(message);
	const candidates = allWaits(context, state).filter(
		(w) => keys.has(w.chat) && (typeof channelId !== 'string' || w.channelId === channelId) && (w.resumedBy ? w.resumedBy === deliveryId : w.until > now),
	);
	const rank = (w: WaitEntry) => (w.resumedBy === deliveryId ? 0 : quoted !== undefined && w.questionId === quoted ? 1 : 2);
	return candidates.sort((a, b) => rank(a) - rank(b) || a.since - b.since);
}
