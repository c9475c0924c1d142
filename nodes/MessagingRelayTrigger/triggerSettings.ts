import type { IDataObject, INodeProperties, IWebhookFunctions } from 'n8n-workflow';

import { phoneDigits } from '../shared/chatIds';
import { ALL_EVENTS, MAX_QUIET_SECONDS } from './constants';
import { channelOf } from './eventItem';
import { EVENT_DESCRIPTIONS, EVENT_TYPES, type RelayEvent } from '../shared/schemas/events';

/**
 * The settings a delivery reads, each with its property (as the editor shows it) above its reader:
 * Registration, Events and the filters of Options, Pause When a Person Replies, Combine Messages
 * Within. TriggerDescription.ts puts the properties in their order; Acknowledge Events has its own
 * file (acknowledgement.ts). Each reader reads only its own parameter path (n8n evaluates the
 * expressions of the path it is asked for).
 */

/** Webhook Registration: automatic, or managed elsewhere (read by isManagedElsewhere, below). */
export const registrationProperty: INodeProperties = {
	displayName: 'Webhook Registration',
	name: 'registration',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Register Automatically',
			value: 'automatic',
			description: "This node sets the account's webhook to its own URL and keeps the secret",
		},
		{
			name: 'Webhook Managed Elsewhere',
			value: 'manual',
			description:
				"You set the webhook yourself (for example in the dashboard) and put its secret in the credential's Webhook Secret field; this node registers nothing",
		},
	],
	default: 'automatic',
};

/** What a user who manages the webhook elsewhere must do. */
export const manualRegistrationNotice: INodeProperties = {
	displayName:
		"Set the account's webhook to this node's Production URL (or Test URL while testing), and put the secret you were given into the credential's \"Webhook Secret\" field.",
	name: 'manualNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: { registration: ['manual'] } },
};

/** Registration: Webhook Managed Elsewhere. The node then registers nothing and shares nothing. */
export function isManagedElsewhere(context: Pick<IWebhookFunctions, 'getNodeParameter'>): boolean {
	return context.getNodeParameter('registration', 'automatic') === 'manual';
}

/** Events: the types that start the workflow (read by whyIgnored, below). */
export const eventsProperty: INodeProperties = {
	displayName: 'Events',
	name: 'events',
	type: 'multiOptions',
	required: true,
	default: ['message.received'],
	description: 'The events that start the workflow. Others are acknowledged and ignored.',
	options: [
		{
			name: 'All Events',
			value: ALL_EVENTS,
			description: 'Every event, including types added to the service after this node was built',
		},
		...EVENT_TYPES.map((type) => ({
			name: type,
			value: type,
			description: EVENT_DESCRIPTIONS[type],
		})),
	],
};

/** Options → Chats (read by whyIgnored). */
export const chatTypeOption: INodeProperties = {
	displayName: 'Chats',
	name: 'chatType',
	type: 'options',
	default: 'all',
	description:
		'For message events: whether group messages, direct messages or both start the workflow',
	options: [
		{ name: 'All Chats', value: 'all' },
		{ name: 'Only Direct Messages', value: 'direct' },
		{ name: 'Only Group Messages', value: 'group' },
	],
};

/** Options → Ignore Chats (read by whyIgnored, isIgnoredChat). */
export const ignoreChatsOption: INodeProperties = {
	displayName: 'Ignore Chats',
	name: 'ignoreChats',
	type: 'string',
	default: '',
	placeholder: '+49 151 2345678, 120363025551234567@g.us',
	description:
		'Comma-separated phone numbers or chat IDs (for example staff and family). Message events of these chats start nothing. A phone number matches its direct chat; a group only by its chat ID.',
};

/** Options → Ignore Events Older Than (read by whyIgnored). */
export const maxAgeOption: INodeProperties = {
	displayName: 'Ignore Events Older Than (Minutes)',
	name: 'maxAgeMinutes',
	type: 'number',
	default: 0,
	typeOptions: { minValue: 0 },
	description:
		'Skip events whose occurredAt is older than this, for example after n8n was down. 0 keeps all. Events without occurredAt are kept.',
};

/** Options → Only Numbers (read by whyIgnored). */
export const onlyNumbersOption: INodeProperties = {
	displayName: 'Only Numbers',
	name: 'channelIds',
	type: 'string',
	default: '',
	placeholder: 'num_main, num_sales',
	description:
		'Comma-separated number IDs (channelId). Events of other numbers are ignored. Empty keeps all.',
};

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

/** Options → Pause When a Person Replies (read by pauseSettings, below; applied in chatPause.ts). */
export const pauseWhenPersonRepliesOption: INodeProperties = {
	displayName: 'Pause When a Person Replies',
	name: 'pauseWhenPersonReplies',
	type: 'fixedCollection',
	default: { settings: { minutes: 30, keyword: '', apiOrigins: 'api' } },
	description:
		"When someone writes in a chat from the number's own phone, new messages of that chat stop starting this workflow for a while, so an automatic reply or AI assistant does not talk over a person",
	options: [
		{
			displayName: 'Settings',
			name: 'settings',
			values: [
				{
					displayName: 'Pause For (Minutes)',
					name: 'minutes',
					type: 'number',
					default: 30,
					typeOptions: { minValue: 1 },
					description:
						"How long after the person's last message the chat stays paused. Every message they send from the phone starts this time again.",
				},
				{
					displayName: 'Resume Keyword',
					name: 'keyword',
					type: 'string',
					default: '',
					placeholder: '#bot',
					description:
						'A message that is exactly this word, sent from the phone in the chat, ends its pause at once (not case-sensitive). Empty: only the time ends it.',
				},
				{
					displayName: 'API Origins',
					name: 'apiOrigins',
					type: 'string',
					default: 'api',
					description:
						'Comma-separated values of message.origin that mean a message was sent through the API (by a workflow), not typed on the phone. The service does not document its values; "api" is assumed. A sent message without an origin pauses nothing.',
				},
			],
		},
	],
};

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

/** Options → Combine Messages Within (read by combineSeconds, below; held in burstMerge.ts). */
export const combineMessagesOption: INodeProperties = {
	displayName: 'Combine Messages Within (Seconds)',
	name: 'combineWithinSeconds',
	type: 'number',
	default: 0,
	typeOptions: { minValue: 0, maxValue: MAX_QUIET_SECONDS },
	description:
		'Messages of one chat that follow each other within this quiet time start one execution with all their texts (chatInput, texts, messageCount). 0 starts one execution per message. A burst is released after 60 s or 20 messages at the latest; other events are never held.',
};

/**
 * Combine Messages Within: the quiet time (seconds) this event is held for, 0 when it is not held
 * (another event type, or a test listener: it takes exactly one event, later ones find none).
 */
export function combineSeconds(context: IWebhookFunctions, event: RelayEvent): number {
	if (event.type !== 'message.received' || context.getMode() === 'manual') return 0;
	return Number(context.getNodeParameter('options.combineWithinSeconds', 0) ?? 0);
}
