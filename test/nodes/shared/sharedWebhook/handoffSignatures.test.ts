/**
 * Signing and verifying hand-offs between triggers (signedHandoff.ts), called directly: the wire
 * format of docs/shared-webhook.md ("Signed hand-offs between triggers") as another trigger of the
 * account, of this or an earlier version, computes it; every reason a hand-off is refused; the time
 * window to the millisecond; and the replay cache, across its sweep. protocol.test.ts shows the same
 * refusals over HTTP.
 */
import { createHash, createHmac } from 'node:crypto';

import {
	deriveShareKey,
	HANDOFF_HEADERS,
	HANDOFF_WINDOW_MS,
	hexEquals,
	proofFor,
	SHARE_VERSION,
	signHandoff,
	verifyHandoff,
	type ShareOp,
} from '../../../../nodes/shared/sharedWebhook/signedHandoff';

const KEY = deriveShareKey('sim-key-full');
const PATH = '/webhook/abc/webhook';
const BODY = '{"type":"message.received","id":"evt_1"}';
const T0 = 1_900_000_000_000;

/** The signature as docs/shared-webhook.md gives it: hex HMAC-SHA256(K, "v1\n<op>\n<timestamp>\n<nonce>\n<target path>\n<sha256 of body>"). */
function documentedSignature(
	op: string,
	timestamp: string,
	nonce: string,
	path: string,
	body: string,
) {
	const bodyHash = createHash('sha256').update(body).digest('hex');
	return createHmac('sha256', Buffer.from(KEY, 'hex'))
		.update(['v1', op, timestamp, nonce, path, bodyHash].join('\n'))
		.digest('hex');
}

/** A hand-off with a nonce of our choosing, signed as documented. */
function handoff(nonce: string, timestamp: number, op = 'event', path = PATH, body = BODY) {
	return {
		'x-relay-share': 'v1',
		'x-relay-op': op,
		'x-relay-timestamp': String(timestamp),
		'x-relay-nonce': nonce,
		'x-relay-signature': documentedSignature(op, String(timestamp), nonce, path, body),
	} as Record<string, unknown>;
}

let nonces = 0;
/** A fresh nonce: 16 bytes in hex, never used before in this file. */
const freshNonce = () => (++nonces).toString(16).padStart(32, '0');

describe('the account key and the proof', () => {
	test('K is an HMAC-SHA256 of a fixed label with the API key, in hex: every trigger with that key computes the same', () => {
		expect(KEY).toBe(
			createHmac('sha256', 'sim-key-full')
				.update('messaging-relay/shared-webhook/v1')
				.digest('hex'),
		);
		expect(deriveShareKey('sim-key-other')).not.toBe(KEY);
	});

	test('the proof is HMAC(K, "proof\\n<nonce>\\n<path>") with the bytes of K', () => {
		const nonce = freshNonce();
		expect(proofFor(KEY, nonce, PATH)).toBe(
			createHmac('sha256', Buffer.from(KEY, 'hex'))
				.update(`proof\n${nonce}\n${PATH}`)
				.digest('hex'),
		);
		expect(proofFor(KEY, nonce, '/webhook/other/webhook')).not.toBe(proofFor(KEY, nonce, PATH));
	});
});

describe('signing', () => {
	test('the headers of docs/shared-webhook.md: version, op, the time in ms, a fresh 16-byte nonce, the signature', () => {
		const signed = signHandoff(KEY, 'ping', PATH, BODY, T0);
		const h = signed.headers;
		expect(Object.keys(h).sort()).toEqual(
			[
				'x-relay-share',
				'x-relay-op',
				'x-relay-timestamp',
				'x-relay-nonce',
				'x-relay-signature',
			].sort(),
		);
		expect(HANDOFF_HEADERS).toEqual({
			version: 'x-relay-share',
			op: 'x-relay-op',
			timestamp: 'x-relay-timestamp',
			nonce: 'x-relay-nonce',
			signature: 'x-relay-signature',
		});
		expect(h['x-relay-share']).toBe('v1');
		expect(SHARE_VERSION).toBe('v1');
		expect(h['x-relay-op']).toBe('ping');
		expect(h['x-relay-timestamp']).toBe(String(T0));
		expect(h['x-relay-nonce']).toMatch(/^[0-9a-f]{32}$/);
		expect(signed.nonce).toBe(h['x-relay-nonce']);
		expect(h['x-relay-signature']).toBe(
			documentedSignature('ping', String(T0), signed.nonce, PATH, BODY),
		);
		expect(signHandoff(KEY, 'ping', PATH, BODY, T0).nonce).not.toBe(signed.nonce);
	});

	test('without a time given, it is signed at the current time', () => {
		const before = Date.now();
		const stamp = Number(signHandoff(KEY, 'ping', PATH, BODY).headers['x-relay-timestamp']);
		expect(stamp).toBeGreaterThanOrEqual(before);
		expect(stamp).toBeLessThanOrEqual(Date.now());
	});
});

describe('verifying', () => {
	test('a hand-off signed for this path and body passes, whatever its op, with the body as text or as bytes', () => {
		for (const op of [
			'event',
			'ping',
			'takeover',
			'missed',
			'pause',
			'wait',
			'resume',
			'repair',
		] as ShareOp[]) {
			const signed = signHandoff(KEY, op, PATH, BODY, T0);
			expect(verifyHandoff(KEY, signed.headers, PATH, BODY, T0)).toEqual({
				ok: true,
				op,
				nonce: signed.nonce,
			});
		}
		const bytes = signHandoff(KEY, 'event', PATH, BODY, T0);
		expect(verifyHandoff(KEY, bytes.headers, PATH, Buffer.from(BODY, 'utf8'), T0).ok).toBe(true);
	});

	test('without a time given, it is checked against the current time', () => {
		expect(verifyHandoff(KEY, signHandoff(KEY, 'ping', PATH, BODY).headers, PATH, BODY).ok).toBe(
			true,
		);
		const old = signHandoff(KEY, 'ping', PATH, BODY, Date.now() - 2 * HANDOFF_WINDOW_MS);
		expect(verifyHandoff(KEY, old.headers, PATH, BODY)).toEqual({
			ok: false,
			refusal: 'window',
			reason: 'hand-off is outside its time window',
		});
	});

	const refused = (
		headers: Record<string, unknown>,
		key: string | undefined = KEY,
		path = PATH,
		body = BODY,
		now = T0,
	) => verifyHandoff(key, headers, path, body, now);

	test('another version, or none, is refused first', () => {
		const h = signHandoff(KEY, 'event', PATH, BODY, T0).headers;
		for (const version of ['v2', 'V1', undefined, ''])
			expect(refused({ ...h, 'x-relay-share': version })).toEqual({
				ok: false,
				refusal: 'version',
				reason: 'unknown hand-off version',
			});
	});

	test('an operation outside the protocol is refused', () => {
		const nonce = freshNonce();
		for (const op of ['delete', '', undefined, 7, 'EVENT'])
			expect(refused({ ...handoff(nonce, T0), 'x-relay-op': op })).toEqual({
				ok: false,
				refusal: 'operation',
				reason: 'unknown hand-off operation',
			});
	});

	test('a missing time, or a nonce that is not 16 bytes of lowercase hex, is refused before the signature is computed', () => {
		const nonce = freshNonce();
		const h = handoff(nonce, T0);
		const incomplete = { ok: false, refusal: 'headers', reason: 'incomplete hand-off headers' };
		expect(refused({ ...h, 'x-relay-timestamp': undefined })).toEqual(incomplete);
		expect(refused({ ...h, 'x-relay-timestamp': T0 })).toEqual(incomplete);
		for (const bad of [
			undefined,
			12,
			nonce.slice(1),
			`${nonce}0`,
			`0${nonce}`,
			nonce.toUpperCase().replace(/0/g, 'A'),
			`${nonce.slice(0, 31)}g`,
			`${nonce}\n`,
		])
			expect(refused({ ...handoff(String(bad), T0), 'x-relay-nonce': bad })).toEqual(incomplete);
	});

	test('a trigger without K yet refuses every hand-off', () => {
		for (const key of [undefined, ''])
			expect(verifyHandoff(key, handoff(freshNonce(), T0), PATH, BODY, T0)).toEqual({
				ok: false,
				refusal: 'noKey',
				reason: 'this trigger has no account key yet',
			});
	});

	test('another key, op, time, nonce, path or body, or no signature, does not match', () => {
		const mismatch = {
			ok: false,
			refusal: 'signature',
			reason: 'hand-off signature does not match',
		};
		const nonce = freshNonce();
		const h = handoff(nonce, T0);
		expect(refused(h, deriveShareKey('sim-key-other'))).toEqual(mismatch);
		expect(refused({ ...h, 'x-relay-op': 'ping' })).toEqual(mismatch);
		expect(refused({ ...h, 'x-relay-timestamp': String(T0 + 1) })).toEqual(mismatch);
		expect(refused({ ...h, 'x-relay-nonce': freshNonce() })).toEqual(mismatch);
		expect(refused(h, KEY, '/webhook/other/webhook')).toEqual(mismatch);
		expect(refused(h, KEY, PATH, `${BODY} `)).toEqual(mismatch);
		expect(refused({ ...h, 'x-relay-signature': undefined })).toEqual(mismatch);
		// Nothing above was accepted, so the genuine one still passes once.
		expect(refused(h).ok).toBe(true);
	});

	test('the time window is 60 s either way, to the millisecond', () => {
		expect(HANDOFF_WINDOW_MS).toBe(60_000);
		const outside = { ok: false, refusal: 'window', reason: 'hand-off is outside its time window' };
		expect(refused(handoff(freshNonce(), T0 - 60_000)).ok).toBe(true);
		expect(refused(handoff(freshNonce(), T0 + 60_000)).ok).toBe(true);
		expect(refused(handoff(freshNonce(), T0 - 60_001))).toEqual(outside);
		expect(refused(handoff(freshNonce(), T0 + 60_001))).toEqual(outside);
		// A time that is not a number is outside any window.
		const nonce = freshNonce();
		expect(
			refused({
				...handoff(nonce, T0),
				'x-relay-timestamp': 'soon',
				'x-relay-signature': documentedSignature('event', 'soon', nonce, PATH, BODY),
			}),
		).toEqual(outside);
	});
});

describe('replays', () => {
	const replay = { ok: false, refusal: 'replay', reason: 'hand-off was already received (replay)' };

	test('a hand-off is accepted once; the same one again is a replay, with any op or path it was signed for', () => {
		const signed = signHandoff(KEY, 'event', PATH, BODY, T0);
		expect(verifyHandoff(KEY, signed.headers, PATH, BODY, T0).ok).toBe(true);
		expect(verifyHandoff(KEY, signed.headers, PATH, BODY, T0)).toEqual(replay);
		expect(verifyHandoff(KEY, signed.headers, PATH, BODY, T0 + 59_000)).toEqual(replay);
	});

	test('a nonce is remembered for twice the window from when it was accepted, through the last millisecond', () => {
		// Signed a minute ahead of this clock: still valid when the nonce's memory ends.
		const nonce = freshNonce();
		const h = handoff(nonce, T0 + 60_000);
		expect(verifyHandoff(KEY, h, PATH, BODY, T0).ok).toBe(true);
		expect(verifyHandoff(KEY, h, PATH, BODY, T0 + 120_000)).toEqual(replay);
		// Past it, the same nonce is new again: only the time window stands (here it still holds).
		const later = handoff(nonce, T0 + 120_001);
		expect(verifyHandoff(KEY, later, PATH, BODY, T0 + 120_001).ok).toBe(true);
	});

	test('the sweep of expired nonces keeps every one still remembered, to its last millisecond', async () => {
		// A process that has seen nothing yet (a fresh copy of the module, its cache empty).
		let fresh!: { verifyHandoff: typeof verifyHandoff };
		await jest.isolateModulesAsync(async () => {
			fresh = await import('../../../../nodes/shared/sharedWebhook/signedHandoff');
		});
		// Fills the cache to its first sweep (1,024 nonces), all remembered until T1 + 120 s.
		const T1 = T0 + 10 * 60_000;
		const kept: string[] = [];
		for (let i = 0; i < 1_024; i++) {
			const nonce = freshNonce();
			expect(fresh.verifyHandoff(KEY, handoff(nonce, T1 + 60_000), PATH, BODY, T1).ok).toBe(true);
			kept.push(nonce);
		}
		// The next hand-off, at the last millisecond they are remembered, sweeps the cache.
		const sweeping = handoff(freshNonce(), T1 + 120_000);
		expect(fresh.verifyHandoff(KEY, sweeping, PATH, BODY, T1 + 120_000).ok).toBe(true);
		for (const nonce of [kept[0], kept[511], kept[1_023]])
			expect(
				fresh.verifyHandoff(KEY, handoff(nonce, T1 + 60_000), PATH, BODY, T1 + 120_000),
			).toEqual(replay);
	});
});

describe('comparing hex digests (hexEquals)', () => {
	const digest = createHash('sha256').update('x').digest('hex');

	test('equal digests are equal; any other text, length, case or type is not', () => {
		expect(hexEquals(digest, digest)).toBe(true);
		expect(hexEquals(`${digest.slice(0, 63)}${digest[63] === '0' ? '1' : '0'}`, digest)).toBe(
			false,
		);
		expect(hexEquals(digest.slice(2), digest)).toBe(false);
		expect(hexEquals(`${digest}00`, digest)).toBe(false);
		expect(hexEquals(digest.toUpperCase(), digest.toUpperCase())).toBe(false);
		expect(hexEquals(undefined, digest)).toBe(false);
		expect(hexEquals(Buffer.from(digest), digest)).toBe(false);
	});

	test('a text of the right length with a character that is not hex anywhere in it is refused, not compared', () => {
		// Buffer.from(…, 'hex') would stop at the first such character and compare a shorter buffer.
		for (const at of [0, 31, 63])
			expect(hexEquals(`${digest.slice(0, at)}z${digest.slice(at + 1)}`, digest)).toBe(false);
		expect(hexEquals(`${digest.slice(0, 62)}\n0`, digest)).toBe(false);
	});
});
