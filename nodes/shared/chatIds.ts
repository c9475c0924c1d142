/**
 * What names a chat, for the trigger's Ignore Chats and its record of paused chats: a chat id as
 * the service sends it (`4917612345678@c.us`, a group's `…@g.us`), or a phone number as people
 * type it. The spec does not define how a direct chat id relates to the phone; these assume the
 * part before "@" is the phone's digits, as in the service's examples.
 */

/** Phone-number punctuation people type: "+49 (151) 234-56.78". */
const PHONE_PUNCTUATION = /[\s+()\-.]/g;

/** Digits of a phone number as typed, or of a direct chat id before "@"; undefined when not only digits. */
export function phoneDigits(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	const digits = value.split('@')[0].replace(PHONE_PUNCTUATION, '');
	return /^\d+$/.test(digits) ? digits : undefined;
}

/**
 * The key a chat is recorded under: a chat id as it is (groups included), a phone number as its
 * digits. A direct chat is also found under its phone's digits (chatKeys).
 */
export function chatKey(chat: string): string {
	const trimmed = chat.trim();
	return trimmed.includes('@') ? trimmed : (phoneDigits(trimmed) ?? trimmed);
}

/** Every key a message's chat may be recorded under: its chat id, and for a direct chat its phone's digits. */
export function chatKeys(chatId: string, isGroup: boolean): string[] {
	const digits = isGroup ? undefined : phoneDigits(chatId);
	return digits && digits !== chatId ? [chatId, digits] : [chatId];
}

/** The chat id suffixes of a one-to-one chat with a phone (the service's examples use `@c.us`). */
const DIRECT_SUFFIXES = ['@c.us', '@s.whatsapp.net'];

/**
 * Whether a message is in a one-to-one chat with the phone that sent it: no `group`, and a chat id
 * that is a phone's (`…@c.us`) or has no suffix. A group (`…@g.us`), a broadcast (`status@broadcast`)
 * or a linked id (`…@lid`) is not, even when the service leaves `group` out: its sender's phone does
 * not name the chat (docs/assumptions.md).
 */
export function isDirectChat(chatId: string, group: unknown): boolean {
	if (group !== undefined && group !== null) return false;
	const at = chatId.indexOf('@');
	return at < 0 || DIRECT_SUFFIXES.includes(chatId.slice(at).toLowerCase());
}
