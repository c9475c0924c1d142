import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { chatKey, chatKeys, isDirectChat } from '../shared/chatIds';
import type { ListenerContext } from '../shared/processKey';
import {
	AccountTable,
	packAfter,
	packNumber,
	readPacked,
	unpackAfter,
	unpackNumber,
} from '../shared/sharedWebhook/accountTable';
import { readHandoffRequest } from '../shared/protocol/handoffs';
import type { PauseEntry, WebhookState } from '../shared/sharedWebhook/webhookState';
import { pauseSettings, type PauseSettings } from './triggerSettings';

/**
 * "Pause When a Person Replies" (docs/design/durability-and-conversations.md §5a): when someone writes in a chat
 * from the account's own phone (a `message.sent` whose `message.origin` is not a "sent through the API" value),
 * that chat's `message.received` stop starting this workflow; each such message renews the pause, the resume
 * keyword ends it. Each trigger keeps its own record (every member sees every event) in an AccountTable
 * (accountTable.ts, docs/design/account-state.md): memory and static data, merged, the newest `at` per chat.
 */

export const PAUSED = 'chat paused: a person replied from the phone';

/** The events the pause reads (a person's message) or acts on (the contact's); others never read the option. */
export const CHAT_PAUSE_EVENTS: ReadonlySet<string> = new Set(['message.sent', 'message.received']);

/**
 * An ended pause is kept this long, so that it outlives any copy that still says "paused". A pause
 * that has not ended is never dropped, however many chats are paused (docs/design/account-state.md).
 */
const KEEP_ENDED_MS = 24 * 60 * 60_000;

/** "Until resumed": a pause with no end, kept until the keyword or a Resume ends it. */
const FOREVER = Number.MAX_SAFE_INTEGER;

/** The paused chats, by chat key, packed in static data (`pauseRows`, accountTable.ts). */
const table = new AccountTable<PauseEntry>({
	rowsField: 'pauseRows',
	revField: 'pausesRev',
	// `until` as "E" (ended), "F" (until resumed) or its distance from `at`: about 34 bytes a pause.
	encode: (p) => [
		packNumber(p.at),
		p.until === 0 ? 'E' : p.until === FOREVER ? 'F' : packAfter(p.at, p.until),
	],
	decode: ([packedAt, packedUntil]) => {
		const at = unpackNumber(packedAt ?? '');
		const until =
			packedUntil === 'E' ? 0 : packedUntil === 'F' ? FOREVER : unpackAfter(at, packedUntil ?? '');
		return Number.isFinite(at) && Number.isFinite(until) ? { at, until } : undefined;
	},
	merge: mergePauses,
	// Only a pause that ended a day ago or more goes.
	expired: (p, now) => p.until <= now && p.at + KEEP_ENDED_MS <= now,
});

/**
 * The newer of two entries for one chat (by when the person's message was sent); at the same
 * millisecond the earlier end wins, so that a resume and a pause given at once resume, in any
 * order (a join: docs/design/conversations-at-scale.md, "Merges are joins").
 */
export function mergePauses(a: PauseEntry, b: PauseEntry): PauseEntry {
	if (a.at !== b.at) return a.at > b.at ? a : b;
	return a.until <= b.until ? a : b;
}

/** The paused chats as static data holds them (what n8n saved), by chat key: for tests and the bench. */
export function pausesInStaticData(state: WebhookState): Record<string, PauseEntry> {
	return Object.fromEntries(readPacked(state, table));
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
		const noted = personsPause(body, settings, now);
		if (noted) record(context, state, noted.chat, noted.entry, now);
		return undefined;
	}
	if (body.type !== 'message.received') return undefined;
	// A pause given by the action node for a phone number is kept under its digits (chatIds.ts).
	const paused = chatKeys(chat, !isDirectChat(chat, message.group)).some(
		(key) => (table.get(context, state, key)?.until ?? 0) > now,
	);
	return paused ? PAUSED : undefined;
}

/**
 * What a `message.sent` typed by a person (its origin not one of the API's) says about its chat:
 * paused until `minutes` after it was sent, or (the resume keyword) ended. Undefined for any
 * other event.
 */
export function personsPause(
	body: IDataObject,
	settings: PauseSettings,
	now = Date.now(),
): { chat: string; entry: PauseEntry } | undefined {
	const message = body.message as IDataObject | undefined;
	const chat = typeof message?.chatId === 'string' ? message.chatId : undefined;
	if (body.type !== 'message.sent' || !message || !chat) return undefined;
	const origin = message.origin;
	// No origin says nothing about who typed it: it pauses nothing.
	if (typeof origin !== 'string' || settings.apiOrigins.includes(origin.trim().toLowerCase()))
		return undefined;
	const at = sentAt(body, message, now);
	const text = typeof message.text === 'string' ? message.text.trim().toLowerCase() : '';
	const ended = settings.keyword !== '' && text === settings.keyword;
	return { chat, entry: { at, until: ended ? 0 : at + settings.minutes * 60_000 } };
}

/**
 * Message → Pause or Resume Automatic Replies, received as a verified `pause` hand-off
 * (protocol/pauseCommand.ts): applied like a person's message from the phone, if this trigger has the
 * option on. The answer tells the action node whether it was applied, and why not.
 */
export function applyPauseCommand(
	context: IWebhookFunctions & ListenerContext,
	state: WebhookState,
	bodyText: string,
	now = Date.now(),
): IDataObject {
	const settings = pauseSettings(context);
	if (!settings)
		return { applied: false, reason: 'Pause When a Person Replies is off in this trigger' };
	const command = readHandoffRequest('pause', bodyText);
	if (!command) return { applied: false, reason: 'not a pause command' };
	const at = Math.min(command.at, now);
	const minutes = command.minutes ?? settings.minutes;
	// `until`: this trigger's own hand-off of a person's pause (savedOutsideRun.ts) gives the exact end.
	const until =
		command.until ?? (!command.pause ? 0 : minutes === 0 ? FOREVER : at + minutes * 60_000);
	record(context, state, chatKey(command.chat), { at, until }, now);
	return { applied: true };
}

/** When the person sent it: the event's time (never later than now), else its arrival. */
function sentAt(body: IDataObject, message: IDataObject, now: number): number {
	for (const value of [body.occurredAt, message.timestamp]) {
		const time = typeof value === 'string' ? Date.parse(value) : NaN;
		if (!Number.isNaN(time)) return Math.min(time, now);
	}
	return now;
}

/** Writes back the pauses this process holds that another process's save dropped (accountTable.ts `repair`). */
export function repairPauses(
	context: ListenerContext,
	state: WebhookState,
	now = Date.now(),
): boolean {
	return table.repair(context, state, now);
}

/** Adds the chat's entry to this process's copy and to static data (the newer entry wins). */
function record(
	context: ListenerContext,
	state: WebhookState,
	chat: string,
	entry: PauseEntry,
	now: number,
) {
	table.write(context, state, [[chat, entry]], now);
}
