import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { runCredentialTest } from '../../support/harness/credentialTestRuntime';
import { relayCredentials } from '../../support/harness/n8nRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.reset());

describe('credential test (GET /v1/numbers through RoutingNode, as n8n tests a credential)', () => {
	test('a working key passes, sent as X-API-KEY by default', async () => {
		const result = await runCredentialTest(relayCredentials(sim.baseUrl));
		expect(result).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(sim.requests).toHaveLength(1);
		expect(sim.requests[0]).toMatchObject({
			method: 'GET',
			path: '/v1/numbers',
			authVia: 'x-api-key',
		});
	});

	test('a working key passes as Authorization: Bearer, and a trailing slash on the base URL is fine', async () => {
		const result = await runCredentialTest(
			relayCredentials(`${sim.baseUrl}//`, 'sim-key-full', 'bearer'),
		);
		expect(result.status).toBe('OK');
		expect(sim.requests[0]).toMatchObject({ path: '/v1/numbers', authVia: 'bearer' });
	});

	test('a revoked key (401) says to create a new key', async () => {
		const result = await runCredentialTest(relayCredentials(sim.baseUrl, 'sim-key-revoked'));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/not accepted \(401\)/);
		expect(result.message).toMatch(/Create a new key/);
	});

	test('an unknown key (401) fails the same way and the key is not echoed', async () => {
		const result = await runCredentialTest(relayCredentials(sim.baseUrl, 'typo-key-12345'));
		expect(result.message).toMatch(/401/);
		expect(result.message).not.toContain('typo-key-12345');
	});

	test('a key without numbers:read (403) names the scope and says an old key never gains it', async () => {
		const result = await runCredentialTest(relayCredentials(sim.baseUrl, 'sim-key-send-only'));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/numbers:read/);
		expect(result.message).toMatch(/issued before a scope existed never gains it/);
		expect(result.message).toMatch(/create a new key/);
	});

	test('a suspended account (402) says rotating the key will not help', async () => {
		const result = await runCredentialTest(relayCredentials(sim.baseUrl, 'sim-key-suspended'));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/ACCOUNT_SUSPENDED/);
		expect(result.message).toMatch(/rotating it will not help/);
	});

	test('a read-only key (*:read) passes: numbers:read is a read scope', async () => {
		const result = await runCredentialTest(relayCredentials(sim.baseUrl, 'sim-key-readonly'));
		expect(result.status).toBe('OK');
	});

	test('a base URL that is not the API (404) says what the base URL should be', async () => {
		const result = await runCredentialTest(relayCredentials(`${sim.baseUrl}/v1`));
		expect(result.message).toMatch(/without \/v1/);
	});
});
