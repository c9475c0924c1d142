import { info, relayCredential, rest } from '../support/e2e';

let credentialId: string;
beforeAll(async () => {
	// Through the support, which fills in what n8n 1.x's public API requires of a credential (workflows.ts).
	({ id: credentialId } = await relayCredential('Messaging Relay e2e credential test', 'sim-key-full'));
});

/**
 * What the editor's "Test" button does: POST /rest/credentials/test with the credential's id
 * and the data as typed in the form.
 */
async function testCredential(apiKey: string) {
	const { status, body } = await rest('POST', '/credentials/test', {
		credentials: {
			id: credentialId,
			name: 'Messaging Relay e2e',
			type: 'messagingRelayApi',
			data: { baseUrl: info.simUrl, apiKey, authHeader: 'xApiKey' },
		},
	});
	expect(status).toBe(200);
	return body.data as { status: string; message: string };
}

/**
 * n8n 1.x's credential test drops the package's message for a failing status and shows its own
 * generic sentence for it (n8n-workflow 1.123: dist/cjs/errors/node-api.error.js:67-80; why:
 * docs/compatibility.md). The package cannot change what n8n runs for a declared test; the nodes'
 * own requests still give the package's message. So on 1.x these tests expect n8n's sentence.
 */
const n8n1 = Number(info.n8nVersion.split('.')[0]) < 2;
const said = (packageMessage: RegExp, n8n1Message: string) => (n8n1 ? new RegExp(`^${n8n1Message.replace(/[?.()-]/g, '\\$&')}$`) : packageMessage);

describe('the credential test in the real n8n', () => {
	test('a good key passes', async () => {
		expect(await testCredential('sim-key-full')).toEqual({ status: 'OK', message: 'Connection successful!' });
	});

	test('a bad key fails clearly, without echoing the key', async () => {
		const result = await testCredential('not-a-real-key-123');
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(said(/not accepted \(401\).*Create a new key/, 'Authorization failed - please check your credentials'));
		expect(result.message).not.toContain('not-a-real-key-123');
	});

	test('a key without numbers:read names the scope', async () => {
		expect((await testCredential('sim-key-send-only')).message).toMatch(said(/lacks the numbers:read scope \(403\)/, 'Forbidden - perhaps check your credentials?'));
	});

	test('a suspended account says rotating the key will not help', async () => {
		expect((await testCredential('sim-key-suspended')).message).toMatch(
			said(/on hold \(402 ACCOUNT_SUSPENDED\).*rotating it will not help/, 'Payment required - perhaps check your payment details?'),
		);
	});
});
