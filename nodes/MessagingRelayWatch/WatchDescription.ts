import type { INodeProperties } from 'n8n-workflow';

/**
 * The Watch node's parameters. n8n adds "Poll Times" itself to every polling node (its
 * DirectoryLoader puts its own `pollTimes` in front of these), so it is not declared here.
 */
export const watchProperties: INodeProperties[] = [
	{
		displayName:
			'Checks the numbers (GET /v1/numbers) and the webhook (GET /v1/webhook) at each poll and emits one item per change. The first poll after publishing only records the current state. Every 5 minutes is enough for most accounts: 24 requests an hour.',
		name: 'notice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Phone Offline Alert After (Minutes)',
		name: 'offlineMinutes',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 30,
		description:
			'Emit when a phone has been offline (health.phoneOnline false) for this long, and again when it is back. 0 turns it off. A short outage is normal and needs no relinking.',
	},
	{
		displayName: 'No Events Alert After (Minutes)',
		name: 'silenceMinutes',
		type: 'number',
		typeOptions: { minValue: 0 },
		default: 0,
		description:
			'Emit when a number has had no event (health.lastEventAt) for this long, and again when events resume. 0 (the default) turns it off: a quiet line is often just quiet.',
	},
	{
		displayName: 'Watch the Webhook',
		name: 'watchWebhook',
		type: 'boolean',
		default: true,
		description:
			"Whether to emit when the account's webhook no longer points at this n8n (gone, inactive or another URL) and when it is back. Needs the webhooks:manage scope; turn it off for a read-only key.",
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Expected Webhook URL',
				name: 'expectedWebhookUrl',
				type: 'string',
				default: '',
				placeholder: 'https://n8n.example.com/webhook/…/webhook',
				description:
					"The Production URL of the Messaging Relay Trigger that should receive this account's events. Empty: any production webhook URL of this n8n (its address followed by /webhook/) counts.",
				displayOptions: { show: { '/watchWebhook': [true] } },
			},
			{
				displayName: 'Report Current Problems at Start',
				name: 'emitAtStart',
				type: 'boolean',
				default: false,
				description:
					'Whether the first poll after publishing emits the problems that exist already (numbers that need relinking, phones offline too long, a webhook elsewhere). Off: the first poll only records the state.',
			},
		],
	},
];

export interface WatchSettings {
	offlineMinutes: number;
	silenceMinutes: number;
	watchWebhook: boolean;
	expectedWebhookUrl: string;
	emitAtStart: boolean;
}
