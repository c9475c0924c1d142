import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { chatKey, chatKeys } from '../shared/chatIds';
import { processKey, type ListenerContext } from '../shared/processKey';
import { pauseCommandSchema, type PauseCommand } from '../shared/sharedWebhook/pauseCommand';
import type { PauseEntry, WebhookState } from '../shared/sharedWebhook/webhookState';

/**
 * "Pause When a Person Replies" (docs/design/durability-and-conversations.md §5a): when someone
 * writes in a chat from the account's own phone (a `message.sent` whose `message.origin` is not
 * one of the values that mean "sent through the API"), `message.received` of that chat stop
 * starting this workflow until the pause ends. Every message the person sends renews it; the
 * resume keyword, sent from the phone, ends it early.
 *
 * Each trigger keeps its own record: the holder forwards every event to every member whatever
 * it selects, so each one sees the person's messages. Like the delivery ledger, the record lives
 * in this process's memory and in the workflow's static data, and the union (newest `at` per
 * chat) is what is read and written back: two deliveries at once in one process both see a pause.
 */

/** The option as the user set it (Options → Pause When a Person Replies). */
export interface PauseSettings {
	minutes: number;
	keyword: string;
	/** Lower-cased values of `message.origin` that mean "sent through the API", not typed by a person. */
	apiOrigins: string[];
}

export const PAUSED = 'chat paused: a person replied from the phone';

/** The events the pause reads (a person's message) or acts on (the contact's); others never read the option. */
export const CHAT_PAUSE_EVENTS: ReadonlySet<string> = new Set(['message.sent', 'message.received']);

/** At most this many chats are remembered; the oldest are dropped first. */
const MAX_CHATS = 1_000;
/** An ended pause is kept this long, so that it outlives any copy that still says "paused". */
const KEEP_ENDED_MS = 24 * 60 * 60_000;

const inMemory = new Map<string, Record<string, PauseEntry>>();

interface PauseOption {
	settings?: { minutes?: number; keyword?: string; apiOrigins?: string };
}

/**
 * The trigger's settings, or undefined when the option is off. Only this option is read (n8n
 * evaluates the expressions of the path it is asked for): reading all Options would evaluate
 * the others too, and one that fails (a broken Only Numbers expression) would then fail events
 * this trigger does not even select (the set-aside e2e soak caught that in CI).
 */
export function pauseSettings(context: IWebhookFunctions): PauseSettings | undefined {
	const option = context.getNodeParameter('options.pauseWhenPersonReplies', {}) as PauseOption;
	const settings = option.settings;
	if (!settings) return undefined;
	return {
		minutes: settings.minutes ?? 30,
		keyword: (settings.keyword ?? '').trim().toLowerCase(),
		apiOrigins: (settings.apiOrigins ?? 'api')
			.split(',')
			.map((value) => value.trim().toLowerCase())
			.filter(Boolean),
	};
}

/**
 * Notes what a proven, valid event says about paused chats, before any filter: a person's
 * message pauses (or, with the keyword, resumes) its chat. Then tells whether this event starts
 * nothing because its chat is paused (the reason), or undefined.
 */
export function applyChatPause(
	context: IWebhookFunctions & ListenerContext,
	state: WebhookState,
	body: IDataObject,
	settings: PauseSettings,
	now = Date.now(),
): string | undefined {
	const message = body.message as IDataObject | undefined;
	const chat = typeof message?.chatId === 'string' ? message.chatId : undefined;
	if (!message || !chat) return undefined;
	if (body.type === 'message.sent') {
		const origin = message.origin;
		// No origin says nothing about who typed it: it pauses nothing.
		if (typeof origin !== 'string' || settings.apiOrigins.includes(origin.trim().toLowerCase())) return undefined;
		const at = sentAt(body, message, now);
		const text = typeof message.text === 'string' ? message.text.trim().toLowerCase() : '';
		const ended = settings.keyword !== '' && text === settings.keyword;
		record(context, state, chat, { at, until: ended ? 0 : at + settings.minutes * 60_000 }, now);
		return undefined;
	}
	if (body.type !== 'message.received') return undefined;
	const isGroup = message.group !== undefined && message.group !== null;
	// A pause given by the action node for a phone number is kept under its digits (chatIds.ts).
	const memory = inMemory.get(processKey(context));
	const entry = chatKeys(chat, isGroup)
		.map((key) => merged(memory?.[key], state.pausedChats?.[key]))
		.reduce(merged, undefined);
	return entry && entry.until > now ? PAUSED : undefined;
}

/**
 * Message → Pause or Resume Automatic Replies, received as a verified `pause` hand-off
 * (pauseCommand.ts): applied like a person's message from the phone, if this trigger has the
 * option on. The answer tells the action node whether it was applied, and why not.
 */
export function applyPauseCommand(context: IWebhookFunctions & ListenerContext, state: WebhookState, bodyText: string, now = Date.now()): IDataObject {
	const settings = pauseSettings(context);
	if (!settings) return { applied: false, reason: 'Pause When a Person Replies is off in this trigger' };
	let command: PauseCommand;
	try {
		command = pauseCommandSchema.parse(JSON.parse(bodyText));
	} catch {
		return { applied: false, reason: 'not a pause command' };
	}
	const at = Math.min(command.at, now);
	const minutes = command.minutes ?? settings.minutes;
	const until = !command.pause ? 0 : minutes === 0 ? FOREVER : at + minutes * 60_000;
	record(context, state, chatKey(command.chat), { at, until }, now);
	return { applied: true };
}

/** "Until resumed": a pause with no end (the count bound still applies). */
const FOREVER = Number.MAX_SAFE_INTEGER;

/** When the person sent it: the event's time (never later than now), else its arrival. */
function sentAt(body: IDataObject, message: IDataObject, now: number): number {
	for (const value of [body.occurredAt, message.timestamp]) {
		const time = typeof value === 'string' ? Date.parse(value) : NaN;
		if (!Number.isNaN(time)) return Math.min(time, now);
	}
	return now;
}

/** Adds the chat's entry to this process's copy and writes the union to static data. */
function record(context: ListenerContext, state: WebhookState, chat: string, entry: PauseEntry, now: number) {
	const key = processKey(context);
	const memory = inMemory.get(key) ?? {};
	memory[chat] = merged(memory[chat], entry)!;
	prune(memory, now);
	inMemory.set(key, memory);
	const union: Record<string, PauseEntry> = { ...(state.pausedChats ?? {}) };
	for (const [id, known] of Object.entries(memory)) union[id] = merged(union[id], known)!;
	prune(union, now);
	state.pausedChats = union;
}

/** The newer of two entries for one chat (by when the person's message was sent). */
function merged(a: PauseEntry | undefined, b: PauseEntry | undefined): PauseEntry | undefined {
	if (!a || !b) return a ?? b;
	return b.at > a.at ? b : a;
}

function prune(entries: Record<string, PauseEntry>, now: number) {
	for (const [chat, entry] of Object.entries(entries)) {
		if (entry.until <= now && entry.at + KEEP_ENDED_MS <= now) delete entries[chat];
	}
	const sorted = Object.entries(entries).sort(([, a], [, b]) => a.at - b.at);
	sorted.slice(0, Math.max(0, sorted.length - MAX_CHATS)).forEach(([chat]) => delete entries[chat]);
}
