import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_MESSAGES_IN_FLIGHT } from '../actions/message';
import { numberLocator } from './numberLocator';
import { sendAndWaitFields } from './SendAndWaitDescription';

const showFor = (operation: string[]) => ({
	show: { resource: ['message'], operation },
});

export const messageOperations: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['message'] } },
		options: [
			{
				name: 'Pause Automatic Replies',
				value: 'pauseReplies',
				action: 'Pause automatic replies in a chat',
				description:
					'Stop new messages of one chat from starting the workflows whose trigger has "Pause When a Person Replies", for example when an assistant hands the chat to a person',
			},
			{
				name: 'Reply',
				value: 'reply',
				action: 'Reply to a received message',
				description:
					"Answer a received message on the same chat and number: connect it after the Messaging Relay Trigger (directly or after an AI Agent) and type the text, or leave it empty to send the agent's answer",
			},
			{
				name: 'Resume Automatic Replies',
				value: 'resumeReplies',
				action: 'Resume automatic replies in a chat',
				description: 'End the pause of one chat: its new messages start the workflows again',
			},
			{
				name: 'Send',
				value: 'send',
				action: 'Send a message',
				description: 'Send a text message from one of your numbers to a phone number or chat',
			},
			{
				name: 'Send and Wait for Reply',
				value: 'sendAndWait',
				action: 'Send a message and wait for the reply',
				description:
					'Ask a contact something and pause the workflow until they answer in that chat: any text, or yes / no for an approval',
			},
		],
		default: 'send',
	},
];

export const messageFields: INodeProperties[] = [
	{
		displayName:
			'The workflow waits here until the contact answers in the chat. The answer comes through the Messaging Relay Trigger published on this account (any workflow), so publish one.',
		name: 'sendAndWaitNotice',
		type: 'notice',
		default: '',
		displayOptions: showFor(['sendAndWait']),
	},
	{
		displayName: 'To',
		name: 'waitTo',
		type: 'string',
		default: '',
		placeholder: 'e.g. +4915112345678, or empty after a trigger',
		description:
			'Phone number in international format or a chat ID. Leave empty after a Messaging Relay Trigger (directly or through other nodes): the question goes to the chat of the message the item came from, from the number that received it.',
		displayOptions: showFor(['sendAndWait']),
	},
	{
		...numberLocator({
			displayName: 'From Number',
			name: 'waitChannelId',
			description: 'The number (line) that asks; needed only when To is set',
			displayOptions: showFor(['sendAndWait']),
		}),
		required: false,
	},
	{
		displayName: 'Chat',
		name: 'chat',
		type: 'string',
		default: '',
		placeholder: 'e.g. 4917612345678@c.us or +4917612345678',
		description:
			'The chat ID or phone number. Leave empty after a Messaging Relay Trigger (directly or through an AI Agent): the chat of the message the item came from.',
		displayOptions: showFor(['pauseReplies', 'resumeReplies']),
	},
	{
		displayName: 'Pause For (Minutes)',
		name: 'pauseMinutes',
		type: 'number',
		default: 60,
		typeOptions: { minValue: 0 },
		description:
			"How long the chat stays paused. 0 pauses it until Resume Automatic Replies (or the trigger's resume keyword).",
		displayOptions: showFor(['pauseReplies']),
	},
	numberLocator({
		displayName: 'From Number',
		name: 'channelId',
		description: 'The number (line) that sends the message',
		displayOptions: showFor(['send']),
	}),
	{
		displayName: 'To',
		name: 'to',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. +4915112345678',
		description:
			'Phone number in international format, or the chat ID of a received message (a group chat ID sends to the group)',
		displayOptions: showFor(['send']),
	},
	{
		displayName:
			'Connect this node after a Messaging Relay Trigger, directly or through other nodes such as an AI Agent: the reply goes to the chat of the message the item came from, from the number that received it.',
		name: 'replyNotice',
		type: 'notice',
		default: '',
		displayOptions: showFor(['reply']),
	},
	{
		displayName: 'Text',
		name: 'text',
		type: 'string',
		default: '',
		required: true,
		typeOptions: { rows: 4 },
		description: 'The message body',
		displayOptions: showFor(['send']),
	},
	{
		// Named "message" as in n8n's own send-and-wait nodes: the human-in-the-loop tool n8n generates
		// for this node (n8n's tool-generation module, hitl-tools) replaces the property called "message"
		// with its own (the tool call to approve) and keeps the rest (docs/design/n8n-internals.md, "The AI
		// Agent's human-in-the-loop tool").
		displayName: 'Message',
		name: 'message',
		type: 'string',
		default: '',
		required: true,
		typeOptions: { rows: 4 },
		placeholder: 'e.g. Reply 1 to confirm or 2 to cancel',
		description: 'The question to send; the workflow continues when the contact answers it',
		displayOptions: showFor(['sendAndWait']),
	},
	{
		// Not required: left empty after an AI Agent, Reply sends the agent's answer.
		displayName: 'Text',
		name: 'text',
		type: 'string',
		default: '',
		typeOptions: { rows: 4 },
		placeholder: "Leave empty to send the AI Agent's answer",
		description:
			'The message body. Left empty, Reply sends the answer of an AI Agent before it (the "output" field of the input item).',
		displayOptions: showFor(['reply']),
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: showFor(['send', 'reply']),
		options: [
			{
				displayName: 'Formatting',
				name: 'formatting',
				type: 'options',
				default: 'auto',
				description:
					'Whether Markdown (**bold**, # headings, [links](…), `code`) is turned into WhatsApp formatting (*bold*, _italic_, ~strike~, ```monospace```). Plain text is never changed.',
				options: [
					{
						name: 'Automatic',
						value: 'auto',
						description:
							"Convert the AI Agent's answer that Reply sends when Text is left empty; send typed text as written",
					},
					{
						name: 'Convert Markdown to WhatsApp',
						value: 'whatsapp',
						description: 'Always convert, for text written by a model or mapped from one',
					},
					{
						name: 'Send As Written',
						value: 'asWritten',
						description: 'Never change the text',
					},
				],
			},
			{
				displayName: 'Messages in Flight',
				name: 'messagesInFlight',
				type: 'number',
				default: DEFAULT_MESSAGES_IN_FLIGHT,
				typeOptions: { minValue: 1, maxValue: 1000 },
				description:
					'How many messages may be on their way at once. Messages to the same chat always go out one after the other, in input order. Lower it if the service rate-limits you.',
			},
		],
	},
	...sendAndWaitFields,
];
