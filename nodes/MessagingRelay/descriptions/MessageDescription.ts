import type { INodeProperties } from 'n8n-workflow';

import { DEFAULT_MESSAGES_IN_FLIGHT } from '../actions/message';
import { numberLocator } from './numberLocator';

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
				name: 'Reply',
				value: 'reply',
				action: 'Reply to a received message',
				description:
					'Answer the message in the input item on the same chat and number: connect it after the Messaging Relay Trigger and type only the text',
			},
			{
				name: 'Send',
				value: 'send',
				action: 'Send a message',
				description: 'Send a text message from one of your numbers to a phone number or chat',
			},
		],
		default: 'send',
	},
];

export const messageFields: INodeProperties[] = [
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
			'Connect this node after a Messaging Relay Trigger (or any node whose item holds a received message): the reply goes to that message\'s chat, from the number that received it.',
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
		displayOptions: showFor(['send', 'reply']),
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
];
