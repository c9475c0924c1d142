import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import { memorySlot } from '../processMemory';

/**
 * Signing and verifying the hand-offs between triggers of one account (docs/shared-webhook.md,
 * "Signed hand-offs between triggers"). The key K is derived from the API key, so every trigger
 * using that key can compute it and nobody else can; the key itself never travels.
 */

export const SHARE_VERSION = 'v1';
export type ShareOp =
	| 'event'
	| 'ping'
	| 'takeover'
	| 'missed'
	| 'pause'
	| 'wait'
	| 'resume'
	| 'repair';
const OPS: ReadonlySet<string> = new Set<ShareOp>([
	'event',
	'ping',
	'takeover',
	'missed',
	'pause',
	'wait',
	'resume',
	'repair',
]);

export const HANDOFF_HEADERS = {
	version: 'x-relay-share',
	op: 'x-relay-op',
	timestamp: 'x-relay-timestamp',
	nonce: 'x-relay-nonce',
	signature: 'x-relay-signature',
} as const;

/** How far a hand-off's timestamp may be from this machine's clock. */
export const HANDOFF_WINDOW_MS = 60_000;

export function deriveShareKey(apiKey: string): string {
	return createHmac('sha256', apiKey).update('messaging-relay/shared-webhook/v1').digest('hex');
}

function hmac(key: string, text: string): string {
	return createHmac('sha256', Buffer.from(key, 'hex')).update(text).digest('hex');
}

function sha256(body: string | Uint8Array): string {
	return createHash('sha256').update(body).digest('hex');
}

function signatureBase(
	op: string,
	timestamp: string,
	nonce: string,
	targetPath: string,
	body: string | Uint8Array,
) {
	return [SHARE_VERSION, op, timestamp, nonce, targetPath, sha256(body)].join('\n');
}

/** Constant time for equal lengths; hex strings of one algorithm always have equal length. */
export function hexEquals(given: unknown, wanted: string): boolean {
	if (typeof given !== 'string' || given.length !== wanted.length || !/^[0-9a-f]+$/.test(given))
		return false;
	return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(wanted, 'hex'));
}

/** The headers of a hand-off to `targetPath` carrying exactly `body`. */
export function signHandoff(
	key: string,
	op: ShareOp,
	targetPath: string,
	body: string,
	now = Date.now(),
) {
	const timestamp = String(now);
	const nonce = randomBytes(16).toString('hex');
	return {
		nonce,
		headers: {
			[HANDOFF_HEADERS.version]: SHARE_VERSION,
			[HANDOFF_HEADERS.op]: op,
			[HANDOFF_HEADERS.timestamp]: timestamp,
			[HANDOFF_HEADERS.nonce]: nonce,
			[HANDOFF_HEADERS.signature]: hmac(key, signatureBase(op, timestamp, nonce, targetPath, body)),
		} as Record<string, string>,
	};
}

/** What a receiver proves it holds K with: an HMAC of the sender's fresh nonce and its own path. */
export function proofFor(key: string, nonce: string, path: string): string {
	return hmac(key, ['proof', nonce, path].join('\n'));
}

/**
 * Nonces this process has accepted, until their window has passed. A defence against a replayed
 * hand-off, not state the protocol needs: a restart forgets them and the window still holds. No
 * count bound: a nonce is forgotten only once its window has passed (a live one dropped would let a
 * replay through).
 */
const seenNonces = memorySlot<true>('hand-off nonces', {
	holds: 'nonces of accepted hand-offs, for their window; a restart forgets them, the window holds',
	maxEntries: Number.POSITIVE_INFINITY,
	maxAgeMs: 2 * HANDOFF_WINDOW_MS,
});

function rememberNonce(nonce: string, now: number): boolean {
	if (seenNonces.has(nonce, now)) return false;
	seenNonces.set(nonce, true, now);
	return true;
}

/** Why a hand-off is refused: `signature` is also what another key gives (a credential changed since it was read). */
export type HandoffRefusal =
	| 'version'
	| 'operation'
	| 'headers'
	| 'noKey'
	| 'signature'
	| 'window'
	| 'replay';

export type HandoffCheck =
	| { ok: true; op: ShareOp; nonce: string }
	| { ok: false; refusal: HandoffRefusal; reason: string };

/**
 * Checks a hand-off addressed to `ownPath`. The reasons are for n8n's log and the 401 body; they
 * never contain the signature or the key.
 */
export function verifyHandoff(
	key: string | undefined,
	headers: Record<string, unknown>,
	ownPath: string,
	body: string | Uint8Array,
	now = Date.now(),
): HandoffCheck {
	const op = headers[HANDOFF_HEADERS.op];
	const timestamp = headers[HANDOFF_HEADERS.timestamp];
	const nonce = headers[HANDOFF_HEADERS.nonce];
	const signature = headers[HANDOFF_HEADERS.signature];
	if (headers[HANDOFF_HEADERS.version] !== SHARE_VERSION)
		return { ok: false, refusal: 'version', reason: 'unknown hand-off version' };
	if (typeof op !== 'string' || !OPS.has(op))
		return { ok: false, refusal: 'operation', reason: 'unknown hand-off operation' };
	if (typeof timestamp !== 'string' || typeof nonce !== 'string' || !/^[0-9a-f]{32}$/.test(nonce)) {
		return { ok: false, refusal: 'headers', reason: 'incomplete hand-off headers' };
	}
	if (!key) return { ok: false, refusal: 'noKey', reason: 'this trigger has no account key yet' };
	const expected = hmac(key, signatureBase(op, timestamp, nonce, ownPath, body));
	if (!hexEquals(signature, expected))
		return { ok: false, refusal: 'signature', reason: 'hand-off signature does not match' };
	if (!(Math.abs(now - Number(timestamp)) <= HANDOFF_WINDOW_MS)) {
		return { ok: false, refusal: 'window', reason: 'hand-off is outside its time window' };
	}
	if (!rememberNonce(nonce, now))
		return { ok: false, refusal: 'replay', reason: 'hand-off was already received (replay)' };
	return { ok: true, op: op as ShareOp, nonce };
}
