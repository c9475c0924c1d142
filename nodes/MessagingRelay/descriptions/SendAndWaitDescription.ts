import type { INodeProperties } from 'n8n-workflow';

/**
 * Message → Send and Wait for Reply: what it waits for (Free Text or Approval) and how long. Its
 * other fields (the notice, To, From Number, Message) are in MessageDescription.ts, which lists these last.
 */
const forSendAndWait = { show: { resource: ['message'], operation: ['sendAndWait'] } };

export const sendAndWaitFields: INodeProperties[] = [
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		default: 'freeText',
		options: [
			{
				name: 'Free Text',
				value: 'freeText',
				description: 'The next message of the contact in that chat, whatever it says',
			},
			{
				name: 'Approval',
				value: 'approval',
				description: 'Yes or no: the output has "approved" (true or false) and "decision"',
			},
		],
		displayOptions: forSendAndWait,
	},
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: {
			show: { resource: ['message'], operation: ['sendAndWait'], responseType: ['approval'] },
		},
		options: [
			{
				displayName: 'Ask Again Text',
				name: 'reAskText',
				type: 'string',
				default: 'Sorry, I did not understand. Please answer yes or no.',
				description: 'Sent when the answer is neither a yes nor a no word',
			},
			{
				displayName: 'Ask Again Times',
				name: 'reAskTimes',
				type: 'number',
				default: 1,
				typeOptions: { minValue: 0 },
				description:
					'How many unclear answers are met with the Ask Again Text before the workflow continues with decision "unclear"',
			},
			{
				displayName: 'No Words',
				name: 'declineWords',
				type: 'string',
				default: 'no, n, 2, 👎',
				description: 'Comma-separated; not case- or accent-sensitive',
			},
			{
				displayName: 'Yes Words',
				name: 'approveWords',
				type: 'string',
				default: 'yes, y, 1, ok, 👍',
				description: 'Comma-separated; not case- or accent-sensitive. "yes please" counts as yes.',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: forSendAndWait,
		options: [
			{
				displayName: 'Limit Wait Time',
				name: 'limitWaitTime',
				type: 'fixedCollection',
				default: {
					values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' },
				},
				description:
					'Continue without an answer after a time (the output is then the input item, without "answered"). n8n checks waits about once a minute.',
				options: [
					{
						displayName: 'Values',
						name: 'values',
						values: [
							{
								displayName: 'Limit Type',
								name: 'limitType',
								type: 'options',
								default: 'afterTimeInterval',
								options: [
									{ name: 'After Time Interval', value: 'afterTimeInterval' },
									{ name: 'At Specified Time', value: 'atSpecifiedTime' },
								],
							},
							{
								displayName: 'Amount',
								name: 'resumeAmount',
								type: 'number',
								default: 45,
								typeOptions: { minValue: 0, numberPrecision: 2 },
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
							},
							{
								displayName: 'Unit',
								name: 'resumeUnit',
								type: 'options',
								default: 'minutes',
								options: [
									{ name: 'Minutes', value: 'minutes' },
									{ name: 'Hours', value: 'hours' },
									{ name: 'Days', value: 'days' },
								],
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
							},
							{
								displayName: 'Max Date and Time',
								name: 'maxDateAndTime',
								type: 'dateTime',
								default: '',
								displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
							},
						],
					},
				],
			},
			{
				displayName: 'Pass the Reply On',
				name: 'passReplyOn',
				type: 'boolean',
				default: false,
				description:
					'Whether the answer also starts the trigger workflows as a new message. Off, an auto-reply or assistant does not answer "yes" or "1" as well.',
			},
		],
	},
];
