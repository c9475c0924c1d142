import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { phoneDigits } from '../shared/chatIds';
import { ALL_EVENTS } from './constants';
import { channelOf } from './eventItem';
import type { RelayEvent } from '../shared/schemas/events';

/**
 * What the user set on this trigger, as each delivery reads it: Registration, Events and the
 * filters of Options, Pause When a Person Replies, Combine Messages Within
 * (Acknowledge Events: acknowledgement.ts).
 * Each reads only its own parameter path (n8n evaluates the expressions of the path it is asked for).
 */

/** Registration: Webhook Managed Elsewhere. The node then registers nothing and shares nothing. */
export function isManagedElsewhere(context: Pick<IWebhookFunctions, 'getNodeParameter'>): boolean {
	return context.getNodeParameter('registration', 'automatic') === 'manual';
}

/** The trigger's "Options" that filter events, as the user set them. */
interface FilterOptions {
	channelIds?: string;
	maxAgeMinutes?: number;
	chatType?: 'all' | 'direct' | 'group';
	ignoreChats?: string;
}

/**
 * Why this trigger does not want an event (its Events selection and its Options filters), or
 * undefined when it does. Works on the raw body, so the same rules apply to valid, invalid and
 * unknown events. The reason is what the service's 200 answer says (`ignored`).
 */
export function whyIgnored(
	context: IWebhookFunctions,
	body: IDataObject,
	now = Date.now(),
): string | undefined {
	const events = context.getNodeParameter('events', []) as string[];
	if (!events.includes(ALL_EVENTS) && !events.includes(body.type as string))
		return 'event type not selected';
	const options = context.getNodeParameter('options', {}) as FilterOptions;

	const wanted = (options.channelIds ?? '')
		.split(',')
		.map((id) => id.trim())
		.filter(Boolean);
	if (wanted.length > 0) {
		const channel = channelOf(body);
		if (channel === undefined || !wanted.includes(channel)) return 'number not selected';
	}

	const maxAge = options.maxAgeMinutes ?? 0;
	if (maxAge > 0 && typeof body.occurredAt === 'string') {
		const occurred = Date.parse(body.occurredAt);
		if (!Number.isNaN(occurred) && now - occurred > maxAge * 60_000) return 'event too old';
	}

	const message = body.message as IDataObject | undefined;
	if (message && typeof message === 'object' && isIgnoredChat(message, options.ignoreChats ?? ''))
		return 'chat ignored';

	const chatType = options.chatType ?? 'all';
	if (chatType !== 'all' && message && typeof message === 'object') {
		const isGroup = message.group !== undefined && message.group !== null;
		if (chatType === 'group' && !isGroup) return 'not a group message';
		if (chatType === 'direct' && isGroup) return 'not a direct message';
	}
	return undefined;
}

/**
 * Ignore Chats (docs/design/durability-and-conversations.md §5a): the message's chat id equals
 * an entry, or an entry that is a phone number (digits once its punctuation is dropped) has the
 * digits of the chat id before "@" or of the sender. A group is matched by its chat id only.
 */
export function isIgnoredChat(message: IDataObject, list: string): boolean {
	const entries = list
		.split(',')
		.map((entry) => entry.trim())
		.filter(Boolean);
	if (entries.length === 0) return false;
	const chatId = typeof message.chatId === 'string' ? message.chatId : '';
	const isGroup = message.group !== undefined && message.group !== null;
	const phones = isGroup
		? []
		: [phoneDigits(chatId), phoneDigits(message.from)].filter((d) => d !== undefined);
	return entries.some((entry) => {
		if (entry === chatId) return true;
		const digits = phoneDigits(entry);
		return digits !== undefined && phones.includes(digits);
	});
}

/** The option as the user set it (Options → Pause When a Person Replies). */
export interface PauseSettings {
	minutes: number;
	keyword: string;
	/** Lower-cased values of `message.origin` that mean "sent through the API", not typed by a person. */
	apiOrigins: string[];
}

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
 * Combine Messages Within: the quiet time (seconds) this event is held for, 0 when it is not held
 * (another event type, or a test listener: it takes exactly one event, later ones find none).
 */
export function combineSeconds(context: IWebhookFunctions, event: RelayEvent): number {
	if (event.type !== 'message.received' || context.getMode() === 'manual') return 0;
	return Number(context.getNodeParameter('options.combineWithinSeconds', 0) ?? 0);
}
