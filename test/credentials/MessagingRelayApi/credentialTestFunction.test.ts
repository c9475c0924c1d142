/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The credential's test is the package's own function (nodes/shared/credentialTest/credentialTest.ts),
 * found and run as n8n's CredentialsTester finds and runs it (test/support/harness/credentialTestRuntime.ts,
 * n8n-core's CredentialTestContext), over real HTTP against the relay simulator.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { ICredentialType, INodeType } from 'n8n-workflow';
import { VersionedNodeType } from 'n8n-workflow';

import {
	CREDENTIAL_TEST_NAME,
	testMessagingRelayApi,
} from '../../../nodes/shared/credentialTest/credentialTest';
import {
	otherAnswerMessages,
	REFUSAL_MESSAGES,
	TEST_PASSED,
	TEST_TIMEOUT_SECONDS,
} from '../../../nodes/shared/credentialTest/messages';
import { CREDENTIAL_NAME } from '../../../nodes/shared/scopes';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import {
	findCredentialTest,
	packageNodeTypes,
	runCredentialTest,
} from '../../support/harness/credentialTestRuntime';
import { credentialType, relayCredentials } from '../../support/harness/n8nRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.reset());

describe('how n8n finds the test', () => {
	test("the credential declares no test of its own: n8n would run it instead of the nodes' test", () => {
		expect((credentialType as ICredentialType).test).toBeUndefined();
		expect(findCredentialTest()).toBe(testMessagingRelayApi);
	});

	test('every node (every trigger version) that uses the credential names the test and carries it', () => {
		const checked: string[] = [];
		for (const node of packageNodeTypes()) {
			const versions =
				node instanceof VersionedNodeType
					? Object.entries(node.nodeVersions)
					: [['1', node] as const];
			for (const [version, type] of versions) {
				const { description, methods } = type as INodeType;
				expect(description.credentials).toEqual([
					{ name: CREDENTIAL_NAME, required: true, testedBy: CREDENTIAL_TEST_NAME },
				]);
				expect(methods?.credentialTest?.[CREDENTIAL_TEST_NAME]).toBe(testMessagingRelayApi);
				checked.push(`${description.name}@${version}`);
			}
		}
		expect(checked).toEqual([
			'messagingRelay@1',
			'messagingRelayTrigger@1',
			'messagingRelayTrigger@2',
			'messagingRelayTrigger@3',
			'messagingRelayWatch@1',
		]);
	});
});

describe("each refusal in the package's words", () => {
	test.each([
		[401, 'sim-key-revoked'],
		[402, 'sim-key-suspended'],
		[403, 'sim-key-send-only'],
	] as const)('%i gives its message, without the key', async (status, apiKey) => {
		const result = await runCredentialTest(relayCredentials(sim.baseUrl, apiKey));
		expect(result).toEqual({ status: 'Error', message: REFUSAL_MESSAGES[status] });
		expect(result.message).not.toContain(apiKey);
		expect(sim.requests).toHaveLength(1);
		expect(sim.requests[0]).toMatchObject({
			method: 'GET',
			path: '/v1/numbers',
			authVia: 'x-api-key',
		});
	});

	test('404 (the base URL ends in /v1) gives its message', async () => {
		expect(await runCredentialTest(relayCredentials(`${sim.baseUrl}/v1`))).toEqual({
			status: 'Error',
			message: REFUSAL_MESSAGES[404],
		});
	});

	test('a working key passes, also as Authorization: Bearer', async () => {
		expect(
			await runCredentialTest(relayCredentials(sim.baseUrl, 'sim-key-full', 'bearer')),
		).toEqual({ status: 'OK', message: TEST_PASSED });
		expect(sim.requests[0]).toMatchObject({ path: '/v1/numbers', authVia: 'bearer' });
	});
});

describe('anything else, in words', () => {
	test('429: rate limited, the key not checked', async () => {
		sim.inject({
			path: '/v1/numbers',
			status: 429,
			body: { error: { code: 'RATE_LIMITED', message: 'slow down' } },
		});
		expect(await runCredentialTest(relayCredentials(sim.baseUrl))).toEqual({
			status: 'Error',
			message: otherAnswerMessages.rateLimited(),
		});
	});

	test('5xx: the service failed, the key not checked', async () => {
		sim.inject({ path: '/v1/numbers', status: 503, rawBody: '' });
		expect(await runCredentialTest(relayCredentials(sim.baseUrl))).toEqual({
			status: 'Error',
			message: otherAnswerMessages.serviceFailed(503),
		});
	});

	test('another status: what the service said, and never the key even when the server echoes it', async () => {
		sim.inject({
			path: '/v1/numbers',
			status: 400,
			body: { error: { code: 'BAD', message: 'header X-API-KEY sim-key-full is malformed' } },
		});
		const result = await runCredentialTest(relayCredentials(sim.baseUrl));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(
			/^The Messaging Relay API refused the test \(400 on GET \/v1\/numbers\)\. The service said: "header X-API-KEY \*+ is malformed"/,
		);
		expect(result.message).not.toContain('sim-key-full');
	});

	test('a 200 that is not JSON (a web page at the base URL)', async () => {
		sim.inject({
			path: '/v1/numbers',
			status: 200,
			rawBody: '<html><body>Welcome</body></html>',
			headers: { 'content-type': 'text/html' },
		});
		expect(await runCredentialTest(relayCredentials(sim.baseUrl))).toEqual({
			status: 'Error',
			message: otherAnswerMessages.notJson('"<html><body>Welcome</body></html>"'),
		});
	});

	test('a 200 with JSON that is not a list of numbers', async () => {
		sim.inject({ path: '/v1/numbers', status: 200, body: { hello: 'world' } });
		expect(await runCredentialTest(relayCredentials(sim.baseUrl))).toEqual({
			status: 'Error',
			message: otherAnswerMessages.notNumbers(),
		});
	});

	test('the connection reset: unreachable, in words', async () => {
		sim.inject({ path: '/v1/numbers', destroy: true });
		expect(await runCredentialTest(relayCredentials(sim.baseUrl))).toEqual({
			status: 'Error',
			message: otherAnswerMessages.unreachable(sim.baseUrl, 'connection reset'),
		});
	});

	test('no answer within 10 s: timed out', async () => {
		sim.inject({
			path: '/v1/numbers',
			delayMs: (TEST_TIMEOUT_SECONDS + 2) * 1000,
			status: 200,
			body: { numbers: [] },
		});
		const started = Date.now();
		expect(await runCredentialTest(relayCredentials(sim.baseUrl))).toEqual({
			status: 'Error',
			message: otherAnswerMessages.timedOut(sim.baseUrl),
		});
		expect(Date.now() - started).toBeLessThan((TEST_TIMEOUT_SECONDS + 1) * 1000);
	}, 20_000);

	test('nothing listening: connection refused', async () => {
		const closed: Server = createServer();
		await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
		const { port } = closed.address() as AddressInfo;
		await new Promise((resolve) => closed.close(resolve));
		const baseUrl = `http://127.0.0.1:${port}`;
		expect(await runCredentialTest(relayCredentials(baseUrl))).toEqual({
			status: 'Error',
			message: otherAnswerMessages.unreachable(baseUrl, 'connection refused'),
		});
	});

	test('a base URL that is not a web address: said before anything is sent', async () => {
		expect(await runCredentialTest(relayCredentials('api.example.com'))).toEqual({
			status: 'Error',
			message: otherAnswerMessages.invalidBaseUrl('api.example.com'),
		});
		expect(sim.requests).toHaveLength(0);
	});
});
