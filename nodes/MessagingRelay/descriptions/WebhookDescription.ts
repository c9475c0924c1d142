import type { INodeProperties } from 'n8n-workflow';

export const webhookOperations: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhook'] } },
		options: [
			{
				name: 'Delete',
				value: 'delete',
				action: 'Delete the webhook',
				description: 'Stop the service from pushing events',
			},
			{
				name: 'Get',
				value: 'get',
				action: 'Get the webhook',
				description: 'Get the URL the service pushes events to',
			},
			{
				name: 'Set',
				value: 'set',
				action: 'Set the webhook',
				description: 'Point the service at a new URL; this issues a new secret',
			},
		],
		default: 'get',
	},
];

export const webhookFields: INodeProperties[] = [
	{
		displayName:
			"An account has exactly one webhook, and the Messaging Relay Trigger node registers it for itself. Setting another URL here stops every published Messaging Relay Trigger from receiving events; a deleted webhook is registered again by a published trigger at its next check (its option 'Check Registration Every').",
		name: 'webhookNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { resource: ['webhook'] } },
	},
	{
		displayName: 'URL',
		name: 'url',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'https://example.com/hooks/relay',
		description: 'Publicly reachable HTTPS address that receives the events',
		displayOptions: { show: { resource: ['webhook'], operation: ['set'] } },
	},
	{
		displayName: 'Include Secret in Output',
		name: 'includeSecret',
		type: 'boolean',
		default: false,
		description:
			'Whether to put the new webhook secret in the output item. It is shown only once; anyone who can read this execution can read it. Leave off unless you configure a receiver by hand.',
		displayOptions: { show: { resource: ['webhook'], operation: ['set'] } },
	},
];
