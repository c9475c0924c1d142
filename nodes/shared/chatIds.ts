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
