import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
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
			description:
				'Address of the Messaging Relay API, without /v1. A trailing slash is fine.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Created in the dashboard under API keys. It is shown only once, at creation.',
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
			description: 'The service accepts both. Keep the default unless a proxy strips custom headers.',
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

	// The test reads the numbers, so it needs numbers:read. Each refusal gets its own words,
	// because the cure differs: a new key (401), a key with the scope (403), or billing (402).
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ String($credentials.baseUrl).replace(/\\/+$/, "") }}',
			url: '/v1/numbers',
			method: 'GET',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'The API key was not accepted (401): it is missing, mistyped or revoked. Create a new key in the Messaging Relay dashboard under API keys and paste it here.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'The API key lacks the numbers:read scope (403), which this test and the Number operations need. A key issued before a scope existed never gains it, and scopes cannot be added to a key: create a new key with numbers:read (and messages:send, webhooks:manage for the other operations).',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 402,
					message:
						'The Messaging Relay account is on hold (402 ACCOUNT_SUSPENDED). The key itself is fine, so rotating it will not help: contact the service to restore access.',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'Nothing answers at this Base URL (404 on /v1/numbers). Use the address of the API without /v1.',
				},
			},
		],
	};
}
