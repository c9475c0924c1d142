import type { INodeProperties } from 'n8n-workflow';

import { EVENT_TYPES } from '../shared/schemas/events';
import { acknowledgeProperty } from './acknowledgement';
import { ALL_EVENTS, DEFAULT_REPAIR_INTERVAL, MAX_QUIET_SECONDS } from './constants';

/** What each event means, in the words of the spec's catalogue (part 6.2). */
const EVENT_DESCRIPTIONS: Record<(typeof EVENT_TYPES)[number], string> = {
	'group.member_joined': 'Someone was added to a group',
	'group.member_left': 'Someone left a group or was removed',
	'group.updated': 'A group was created or its subject changed',
	'message.deleted': 'A message was deleted for everyone',
	'message.delivered': "An outgoing message reached the recipient's device",
	'message.edited': 'The sender edited a message',
	'message.failed': 'An outgoing message was rejected',
	'message.reaction': 'Someone reacted to a message or removed their reaction',
	'message.read': 'An outgoing message was read',
	'message.received': 'A contact sent a message (never your own)',
	'message.sent': 'Your number sent a message, from the phone or through the API',
	'number.disconnected': 'The link to the phone stopped working and must be restored',
	'number.history_synced': 'Recent history of a newly linked number was imported',
	'number.phone_offline': 'The phone does not respond for now; no relinking needed',
	'number.phone_online': 'The phone responds again',
	'number.reconnected': 'The link to the phone works again',
};

/** How often a published trigger checks its registration (registrationRepair.ts). */
const repairIntervalOption: INodeProperties = {
	displayName: 'Check Registration Every',
	name: 'repairInterval',
	type: 'options',
	default: DEFAULT_REPAIR_INTERVAL,
	description:
		'While published, how often the trigger checks that the service still has its webhook, and registers it again if the service lost it. Each check is one GET /v1/webhook. A webhook that points elsewhere is reported, never taken over. It registers again through its own webhook URL: nothing fails and your error workflow does not run; n8n\'s log names the repair. Only if n8n cannot reach that URL does n8n publish the workflow again, and then your error workflow, if set, runs with "The workflow was deactivated because its trigger node … failed".',
	options: [
		{ name: 'Every 15 Minutes', value: '15m' },
		{ name: 'Every 30 Seconds', value: '30s' },
		{ name: 'Every 5 Minutes', value: '5m' },
		{ name: 'Every 5 Seconds (Testing)', value: '5s' },
		{ name: 'Every Hour', value: '1h' },
		{ name: 'Every Minute', value: '1m' },
		{ name: 'Never', value: 'off' },
	],
};

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			'Several workflows can each have a trigger on the same account: use the same Messaging Relay credential and each one receives the events it selects. The account\'s one webhook is shared between them automatically, and "Listen for test event" does not take events away from published workflows.',
		name: 'oneWebhookNotice',
		type: 'notice',
		default: '',
	},
	{
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
	},
	{
		displayName:
			"Set the account's webhook to this node's Production URL (or Test URL while testing), and put the secret you were given into the credential's \"Webhook Secret\" field.",
		name: 'manualNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { registration: ['manual'] } },
	},
	{
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
	},
	acknowledgeProperty,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
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
			},
			{
				displayName: 'Combine Messages Within (Seconds)',
				name: 'combineWithinSeconds',
				type: 'number',
				default: 0,
				typeOptions: { minValue: 0, maxValue: MAX_QUIET_SECONDS },
				description:
					'Messages of one chat that follow each other within this quiet time start one execution with all their texts (chatInput, texts, messageCount). 0 starts one execution per message. A burst is released after 60 s or 20 messages at the latest; other events are never held.',
			},
			{
				displayName: 'Ignore Chats',
				name: 'ignoreChats',
				type: 'string',
				default: '',
				placeholder: '+49 151 2345678, 120363025551234567@g.us',
				description:
					'Comma-separated phone numbers or chat IDs (for example staff and family). Message events of these chats start nothing. A phone number matches its direct chat; a group only by its chat ID.',
			},
			{
				displayName: 'Ignore Events Older Than (Minutes)',
				name: 'maxAgeMinutes',
				type: 'number',
				default: 0,
				typeOptions: { minValue: 0 },
				description:
					'Skip events whose occurredAt is older than this, for example after n8n was down. 0 keeps all. Events without occurredAt are kept.',
			},
			{
				displayName: 'Only Numbers',
				name: 'channelIds',
				type: 'string',
				default: '',
				placeholder: 'num_main, num_sales',
				description:
					'Comma-separated number IDs (channelId). Events of other numbers are ignored. Empty keeps all.',
			},
			{
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
			},
			{
				displayName: 'Replace Existing Webhook',
				name: 'replaceExisting',
				type: 'boolean',
				default: false,
				description:
					"Whether to take over the account's webhook when it points at another URL. The receiver there (another workflow or system) stops getting events.",
			},
			repairIntervalOption,
		],
	},
];
