import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	Icon,
	INodeProperties,
} from 'n8n-workflow';

/**
 * The API key of a Messaging Relay account.
 *
 * The service accepts the key either as `X-API-KEY` or as `Authorization: Bearer`, so the
 * user picks one. `authenticate` is a function rather than a generic header map because a
 * generic map cannot send exactly one of two headers.
 */
export class MessagingRelayApi implements ICredentialType {
	name = 'messagingRelayApi';

	displayName = 'Messaging Relay API';

	icon: Icon = {
		light: 'file:../icons/messagingRelay.svg',
		dark: 'file:../icons/messagingRelay.dark.svg',
	};

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-messaging-relay';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description: 'Address of the Messaging Relay API, without /v1. A trailing slash is fine.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Created in the dashboard under API keys. It is shown only once, at creation.',
		},
		{
			displayName: 'Send Key As',
			name: 'authHeader',
			type: 'options',
			default: 'xApiKey',
			options: [
				{
					name: 'X-API-KEY Header',
					value: 'xApiKey',
				},
				{
					name: 'Authorization: Bearer',
					value: 'bearer',
				},
			],
			description:
				'The service accepts both. Keep the default unless a proxy strips custom headers.',
		},
		{
			displayName: 'Webhook Secret',
			name: 'webhookSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Only for a Messaging Relay Trigger set to "Webhook Managed Elsewhere": the secret the dashboard showed when the webhook was set. Leave empty when the trigger registers the webhook itself.',
		},
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const apiKey = String(credentials.apiKey ?? '');
		const headers =
			credentials.authHeader === 'bearer'
				? { Authorization: `Bearer ${apiKey}` }
				: { 'X-API-KEY': apiKey };
		return { ...requestOptions, headers: { ...requestOptions.headers, ...headers } };
	}

	// No declared `test`: every node that uses this credential names the package's test function
	// as `testedBy` (nodes/shared/credentialTest/credentialTest.ts, which says why), and n8n would
	// run a declared test instead of it.
}
