import { generateUrlSignature, prepareUrlForSigning, validateUrlSignature } from 'n8n-core';

import { secretCheckOf, serviceSecretMatches } from '../../../nodes/shared/serviceSecret';
import { signedWaitParams, waitFromUrl } from '../../../nodes/shared/protocol/waitingRunUrl';
import { deriveShareKey } from '../../../nodes/shared/sharedWebhook/signedHandoff';

/**
 * A Send and Wait run that holds the account's webhook itself (docs/design/durability-and-conversations.md
 * §5b): the URL it registers is n8n's signed resume URL with the wait record signed into it, and
 * it proves the service's deliveries with a keyed hash of the secret, never the secret.
 */
const N8N_INSTANCE_SIGNING = 'n8n-instance-hmac-secret';
const WAIT = {
	chat: '4917610000009',
	channelId: 'num_main',
	since: 1_800_000_000_000,
	until: 1_800_003_600_000,
	passOn: true,
};

/** What n8n-core's getSignedResumeUrl builds (node-execution-context.js:174-187), with its own helpers. */
function signedResumeUrl(
	executionId: string,
	nodeId: string,
	params: Record<string, string>,
): string {
	const url = new URL(
		`https://n8n.example.com/webhook-waiting/${executionId}/${encodeURIComponent(nodeId)}`,
	);
	for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
	url.searchParams.set(
		'signature',
		generateUrlSignature(prepareUrlForSigning(url), N8N_INSTANCE_SIGNING),
	);
	return url.toString();
}

describe('the registered URL of a waiting run', () => {
	test('carries the whole wait, and n8n still accepts its signature', () => {
		const url = signedResumeUrl('981', 'a1b2-node', signedWaitParams(WAIT));
		const parsed = new URL(url);
		expect(
			validateUrlSignature(parsed.searchParams.get('signature')!, parsed, N8N_INSTANCE_SIGNING),
		).toBe(true);
		expect(waitFromUrl(url)).toEqual({
			executionId: '981',
			resumePath: `${parsed.pathname}${parsed.search}`,
			chat: WAIT.chat,
			channelId: 'num_main',
			since: WAIT.since,
			until: WAIT.until,
			questionId: null,
			passOn: true,
		});
	});

	test("a changed parameter breaks n8n's signature: the record cannot be edited on the way", () => {
		const url = new URL(signedResumeUrl('981', 'node', signedWaitParams(WAIT)));
		url.searchParams.set('chat', '4917699999999');
		expect(
			validateUrlSignature(url.searchParams.get('signature')!, url, N8N_INSTANCE_SIGNING),
		).toBe(false);
	});

	test("a trigger's URL, a foreign URL or a record with a missing field is not a waiting run", () => {
		expect(
			waitFromUrl('https://n8n.example.com/webhook/abc/webhook?relay-share=v1&reg=65f0a1b2c3d4'),
		).toBeUndefined();
		expect(waitFromUrl('https://crm.example.com/hooks/relay')).toBeUndefined();
		expect(waitFromUrl('not a url')).toBeUndefined();
		const rest = { ...signedWaitParams(WAIT) };
		delete rest.channel;
		expect(waitFromUrl(signedResumeUrl('981', 'node', rest))).toBeUndefined();
		expect(
			waitFromUrl(signedResumeUrl('981', 'node', { ...signedWaitParams(WAIT), since: 'soon' })),
		).toBeUndefined();
	});
});

describe("the service's secret, as a waiting run checks it", () => {
	const key = deriveShareKey('sim-key-wait-alone');
	const check = secretCheckOf(key, 'whsec_given_to_the_run');

	test('only the secret the run registered with passes', () => {
		expect(serviceSecretMatches('whsec_given_to_the_run', { hmacKey: key, check })).toBe(true);
		expect(serviceSecretMatches('whsec_given_to_the_run ', { hmacKey: key, check })).toBe(false);
		expect(serviceSecretMatches('whsec_rotated_since', { hmacKey: key, check })).toBe(false);
		expect(serviceSecretMatches('', { hmacKey: key, check })).toBe(false);
		expect(serviceSecretMatches(undefined, { hmacKey: key, check })).toBe(false);
	});

	test("what is kept is not the secret, and another API key's hash does not pass", () => {
		expect(check).toMatch(/^[0-9a-f]{64}$/);
		expect(check).not.toContain('whsec');
		expect(
			serviceSecretMatches('whsec_given_to_the_run', {
				hmacKey: deriveShareKey('sim-key-other'),
				check,
			}),
		).toBe(false);
		expect(serviceSecretMatches('whsec_given_to_the_run', { hmacKey: key, check: undefined })).toBe(
			false,
		);
		expect(serviceSecretMatches('whsec_given_to_the_run', { hmacKey: key, check: 'short' })).toBe(
			false,
		);
	});
});
