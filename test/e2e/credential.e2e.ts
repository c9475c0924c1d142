import { REFUSAL_MESSAGES } from '../../nodes/shared/credentialTest/messages';
import { info, relayCredential, rest } from '../support/e2e';

let credentialId: string;
beforeAll(async () => {
	// Through the support, which fills in what n8n 1.x's public API requires of a credential (workflows.ts).
	({ id: credentialId } = await relayCredential(
		'Messaging Relay e2e credential test',
		'sim-key-full',
	));
});

/**
 * What the editor's "Test" button does: POST /rest/credentials/test with the credential's id
 * and the data as typed in the form.
 */
async function testCredential(apiKey: string, baseUrl = info.simUrl) {
	const { status, body } = await rest('POST', '/credentials/test', {
		credentials: {
			id: credentialId,
			name: 'Messaging Relay e2e',
			type: 'messagingRelayApi',
			data: { baseUrl, apiKey, authHeader: 'xApiKey' },
		},
	});
	expect(status).toBe(200);
	return body.data as { status: string; message: string };
}

describe('the credential test in the real n8n', () => {
	test('a good key passes', async () => {
		expect(await testCredential('sim-key-full')).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});

	// The package's own words for each refusal, in n8n 2.x and 1.x alike: the credential's test is
	// the nodes' test function (nodes/shared/credentialTest/credentialTest.ts says why; with the
	// credential's declared test, n8n 1.123.81 showed its generic sentence for each status).
	test('a bad key fails clearly, without echoing the key', async () => {
		const result = await testCredential('not-a-real-key-123');
		expect(result).toEqual({ status: 'Error', message: REFUSAL_MESSAGES[401] });
		expect(result.message).toMatch(/not accepted \(401\).*Create a new key/);
		expect(result.message).not.toContain('not-a-real-key-123');
	});

	test('a key without numbers:read names the scope', async () => {
		const result = await testCredential('sim-key-send-only');
		expect(result).toEqual({ status: 'Error', message: REFUSAL_MESSAGES[403] });
		expect(result.message).toMatch(/lacks the numbers:read scope \(403\)/);
	});

	test('a suspended account says rotating the key will not help', async () => {
		const result = await testCredential('sim-key-suspended');
		expect(result).toEqual({ status: 'Error', message: REFUSAL_MESSAGES[402] });
		expect(result.message).toMatch(/on hold \(402 ACCOUNT_SUSPENDED\).*rotating it will not help/);
	});

	test('a base URL ending in /v1 says what the base URL should be', async () => {
		const result = await testCredential('sim-key-full', `${info.simUrl}/v1`);
		expect(result).toEqual({ status: 'Error', message: REFUSAL_MESSAGES[404] });
		expect(result.message).toMatch(/without \/v1/);
	});
});
