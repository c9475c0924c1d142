/**
 * The one check of the service's `x-service-secret` (serviceSecret.ts), called directly: the three
 * ways a node keeps the secret (as typed, its SHA-256, an HMAC with the account key), what counts as
 * a kept value at all, and what the holder writes to static data. The harness suites go through it
 * over HTTP; these name each condition of the check.
 */
import { createHash, createHmac } from 'node:crypto';

import {
	heldSecret,
	upgradeStoredSecret,
	keepSecretDigest,
	secretCheckOf,
	secretDigest,
	serviceSecretMatches,
	type HeldSecretFields,
} from '../../../nodes/shared/serviceSecret';
import { deriveShareKey } from '../../../nodes/shared/sharedWebhook/signedHandoff';

const ISSUED = 'whsec_the_service_issued_0001';

describe('what is kept instead of the secret', () => {
	test("the digest is the secret's SHA-256 over its UTF-8 bytes, in lowercase hex", () => {
		// FIPS 180-2's test vector, so that a digest kept by an earlier version still matches.
		expect(secretDigest('abc')).toBe(
			'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
		);
		const accented = 'whsec_\u00e9t\u00e9';
		expect(secretDigest(accented)).toBe(
			createHash('sha256').update(Buffer.from(accented, 'utf8')).digest('hex'),
		);
	});

	test("a waiting run's check is an HMAC-SHA256 of a labelled secret, keyed with the account key's bytes", () => {
		const key = deriveShareKey('sim-key-full');
		const check = secretCheckOf(key, ISSUED);
		expect(check).toBe(
			createHmac('sha256', Buffer.from(key, 'hex'))
				.update(`messaging-relay/waiting-run-secret\n${ISSUED}`)
				.digest('hex'),
		);
		// Not the HMAC of the bare secret, nor one keyed with the hex text: the label and the key's bytes are part of it.
		expect(check).not.toBe(
			createHmac('sha256', Buffer.from(key, 'hex')).update(ISSUED).digest('hex'),
		);
		expect(check).not.toBe(
			createHmac('sha256', key)
				.update(`messaging-relay/waiting-run-secret\n${ISSUED}`)
				.digest('hex'),
		);
		expect(secretCheckOf(key, `${ISSUED}x`)).not.toBe(check);
	});
});

describe('a secret kept as typed (Webhook Managed Elsewhere)', () => {
	test('only the very secret passes: not a prefix, not a longer one, not another of its length', () => {
		expect(serviceSecretMatches(ISSUED, { secret: ISSUED })).toBe(true);
		expect(serviceSecretMatches(ISSUED.slice(0, -1), { secret: ISSUED })).toBe(false);
		expect(serviceSecretMatches(`${ISSUED}1`, { secret: ISSUED })).toBe(false);
		expect(serviceSecretMatches(ISSUED.replace(/1$/, '2'), { secret: ISSUED })).toBe(false);
	});

	test('lengths are compared in bytes: a secret with the same number of characters but other bytes fails', () => {
		// 'é' is two UTF-8 bytes: as many characters as 'ee', one byte more than 'e'.
		expect(serviceSecretMatches('whsec_ee', { secret: 'whsec_\u00e9' })).toBe(false);
		expect(serviceSecretMatches('whsec_e', { secret: 'whsec_\u00e9' })).toBe(false);
		expect(serviceSecretMatches('whsec_\u00e9', { secret: 'whsec_\u00e9' })).toBe(true);
	});

	test('no secret configured passes nothing, not even an empty header', () => {
		expect(serviceSecretMatches('', { secret: '' })).toBe(false);
		expect(serviceSecretMatches('x', { secret: '' })).toBe(false);
	});

	test('a header that is missing, empty or not one string is refused', () => {
		for (const received of [undefined, null, '', 42, [ISSUED], { secret: ISSUED }])
			expect(serviceSecretMatches(received, { secret: ISSUED })).toBe(false);
	});
});

describe("a secret kept as its SHA-256 (the holder's static data)", () => {
	const digest = secretDigest(ISSUED);

	test('the secret passes; another, or its digest sent as the secret, does not', () => {
		expect(serviceSecretMatches(ISSUED, { sha256: digest })).toBe(true);
		expect(serviceSecretMatches('whsec_another', { sha256: digest })).toBe(false);
		expect(serviceSecretMatches(digest, { sha256: digest })).toBe(false);
		expect(serviceSecretMatches('', { sha256: secretDigest('') })).toBe(false);
	});

	test('a kept value that is not exactly 64 lowercase hex digits passes nothing (and throws nothing)', () => {
		for (const kept of [
			digest.toUpperCase(),
			`${digest}0`,
			`0${digest}`,
			digest.slice(1),
			`${digest.slice(0, 63)}g`,
			`${digest}\n`,
			'',
		])
			expect(serviceSecretMatches(ISSUED, { sha256: kept })).toBe(false);
	});
});

describe("a secret kept as an HMAC with the account key (a waiting run's custom data)", () => {
	const key = deriveShareKey('sim-key-full');
	const check = secretCheckOf(key, ISSUED);

	test('the secret passes with its check; the check of another secret or key does not', () => {
		expect(serviceSecretMatches(ISSUED, { hmacKey: key, check })).toBe(true);
		expect(serviceSecretMatches(ISSUED, { hmacKey: key, check: secretCheckOf(key, 'x') })).toBe(
			false,
		);
		// The HMAC, not the plain digest, is what a waiting run keeps.
		expect(serviceSecretMatches(ISSUED, { hmacKey: key, check: secretDigest(ISSUED) })).toBe(false);
	});

	test('a check that is not a hex digest (missing, a number, upper case, padded) passes nothing', () => {
		for (const kept of [undefined, null, 7, check.toUpperCase(), ` ${check}`, `${check}00`])
			expect(serviceSecretMatches(ISSUED, { hmacKey: key, check: kept })).toBe(false);
	});
});

describe('what the holder writes to static data (keepSecretDigest, heldSecret)', () => {
	test('the digest and the length, never the secret', () => {
		const state: HeldSecretFields = { webhookSecret: 'whsec_old_kept_in_clear' };
		keepSecretDigest(state, ISSUED);
		expect(state).toEqual({
			webhookSecretDigest: secretDigest(ISSUED),
			webhookSecretLength: ISSUED.length,
		});
		expect('webhookSecret' in state).toBe(false);
	});

	test('a secret an earlier version kept in clear counts by its digest when read, and is replaced by it at the upgrade', () => {
		const state: HeldSecretFields = { webhookSecret: ISSUED };
		expect(heldSecret(state)).toEqual({ digest: secretDigest(ISSUED), length: ISSUED.length });
		expect(state).toEqual({ webhookSecret: ISSUED });
		upgradeStoredSecret(state);
		expect(heldSecret(state)).toEqual({ digest: secretDigest(ISSUED), length: ISSUED.length });
		expect(state).toEqual({
			webhookSecretDigest: secretDigest(ISSUED),
			webhookSecretLength: ISSUED.length,
		});
	});

	test('an empty clear secret is not kept; the digest already held stays', () => {
		const state: HeldSecretFields = {
			webhookSecret: '',
			webhookSecretDigest: secretDigest(ISSUED),
			webhookSecretLength: ISSUED.length,
		};
		expect(heldSecret(state)).toEqual({ digest: secretDigest(ISSUED), length: ISSUED.length });
		upgradeStoredSecret(state);
		expect(state).toEqual({
			webhookSecret: '',
			webhookSecretDigest: secretDigest(ISSUED),
			webhookSecretLength: ISSUED.length,
		});
	});

	test('nothing held is undefined; a digest without a length has length 0', () => {
		expect(heldSecret({})).toBeUndefined();
		expect(heldSecret({ webhookSecretDigest: '' })).toBeUndefined();
		expect(heldSecret({ webhookSecretDigest: 'abc' })).toEqual({ digest: 'abc', length: 0 });
	});
});
