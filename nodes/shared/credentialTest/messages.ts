/**
 * What the credential test says for each answer of `GET /v1/numbers` (credentialTest.ts). The
 * four refusals name their cure, because it differs: a new key (401), a key with the scope
 * (403), the service's billing (402), the Base URL (404). The words are the ones the
 * credential's declared test gave in n8n 2.x; they live here only.
 */
export const REFUSAL_MESSAGES: Readonly<Record<401 | 402 | 403 | 404, string>> = {
	401: 'The API key was not accepted (401): it is missing, mistyped or revoked. Create a new key in the Messaging Relay dashboard under API keys and paste it here.',
	402: 'The Messaging Relay account is on hold (402 ACCOUNT_SUSPENDED). The key itself is fine, so rotating it will not help: contact the service to restore access.',
	403: 'The API key lacks the numbers:read scope (403), which this test and the Number operations need. A key issued before a scope existed never gains it, and scopes cannot be added to a key: create a new key with numbers:read (and messages:send, webhooks:manage for the other operations).',
	404: 'Nothing answers at this Base URL (404 on /v1/numbers). Use the address of the API without /v1.',
};

/** n8n's own words for a passed test, kept so that the editor shows what it shows for every credential. */
export const TEST_PASSED = 'Connection successful!';

export const TEST_TIMEOUT_SECONDS = 10;

export const otherAnswerMessages = {
	invalidBaseUrl: (baseUrl: string) =>
		`The Base URL "${baseUrl}" is not a web address. Enter the address of the API with http:// or https://, without /v1 (for example https://api.example.com).`,
	rateLimited: () =>
		'The Messaging Relay API is rate limiting requests (429), so the key was not checked. Test again in a minute.',
	serviceFailed: (statusCode: number) =>
		`The Messaging Relay service failed (${statusCode}), so the key was not checked. This is a problem on the service's side: test again later, and contact the service if it persists.`,
	unexpectedStatus: (statusCode: number, serverSays: string) =>
		`The Messaging Relay API refused the test (${statusCode} on GET /v1/numbers). ${serverSays} Check the Base URL and the key.`,
	notJson: (excerpt: string) =>
		`Something answers at this Base URL, but not the Messaging Relay API: GET /v1/numbers gave ${excerpt}, not JSON. Check that the Base URL is the API's address (without /v1), not a web page or proxy.`,
	notNumbers: () =>
		"Something answers at this Base URL with JSON, but not with the list of numbers the Messaging Relay API gives on GET /v1/numbers. Check that the Base URL is the API's address, without /v1.",
	unreachable: (baseUrl: string, words: string) =>
		`Could not reach the Messaging Relay API at ${baseUrl}: ${words}. Check the Base URL and that n8n can reach it.`,
	timedOut: (baseUrl: string) =>
		`No answer from ${baseUrl} within ${TEST_TIMEOUT_SECONDS} s. Check the Base URL and that n8n can reach it.`,
};
