import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The one check of the service's `x-service-secret`, for every node that receives its deliveries.
 * A node keeps the secret in one of three ways: as typed into the credential (Webhook Managed
 * Elsewhere), as its SHA-256 (the trigger that holds the registration: static data is readable by
 * anyone who reads the workflow), or as an HMAC with the account key (a Send and Wait run that
 * holds it, in its custom data). Every comparison is in constant time.
 */
export type KeptSecret =
	| { secret: string }
	| { sha256: string }
	| { hmacKey: string; check: unknown };

/** SHA-256 (hex) of a webhook secret: what the holder keeps instead of the secret. */
export function secretDigest(secret: string): string {
	return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** What a waiting run keeps instead of the secret: an HMAC of it with the account key (hex). */
export function secretCheckOf(key: string, secret: string): string {
	return createHmac('sha256', Buffer.from(key, 'hex'))
		.update(`messaging-relay/waiting-run-secret\n${secret}`)
		.digest('hex');
}

const HEX_DIGEST = /^[0-9a-f]{64}$/;

export function serviceSecretMatches(received: unknown, kept: KeptSecret): boolean {
	if (typeof received !== 'string' || received === '') return false;
	if ('secret' in kept) {
		// timingSafeEqual needs equal lengths; the length is all a mismatch reveals.
		const given = Buffer.from(received, 'utf8');
		const wanted = Buffer.from(kept.secret, 'utf8');
		return wanted.length > 0 && given.length === wanted.length && timingSafeEqual(given, wanted);
	}
	const wanted = 'sha256' in kept ? kept.sha256 : kept.check;
	if (typeof wanted !== 'string' || !HEX_DIGEST.test(wanted)) return false;
	const given = 'sha256' in kept ? secretDigest(received) : secretCheckOf(kept.hmacKey, received);
	return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(wanted, 'hex'));
}

/**
 * What the trigger that holds the registration keeps of the secret, in its static data (part of
 * WebhookState): the SHA-256 and the length, never the secret, which versions before 0.1.0 kept.
 */
export interface HeldSecretFields {
	webhookSecretDigest?: string;
	webhookSecretLength?: number;
	webhookSecret?: string;
}

/** The holder keeps the digest of the secret the service issued, and its length. */
export function keepSecretDigest(state: HeldSecretFields, secret: string) {
	state.webhookSecretDigest = secretDigest(secret);
	state.webhookSecretLength = secret.length;
	delete state.webhookSecret;
}

/**
 * What the holder knows of the service's current secret, or undefined when it holds none. It only
 * reads: a secret an earlier version kept in clear counts by its digest until upgradeStoredSecret runs.
 */
export function heldSecret(
	state: HeldSecretFields,
): { digest: string; length: number } | undefined {
	const clear = state.webhookSecret;
	if (typeof clear === 'string' && clear !== '')
		return { digest: secretDigest(clear), length: clear.length };
	if (!state.webhookSecretDigest) return undefined;
	return { digest: state.webhookSecretDigest, length: state.webhookSecretLength ?? 0 };
}

/** A secret an earlier version kept in clear is replaced by its digest (n8n saves it with the request). */
export function upgradeStoredSecret(state: HeldSecretFields) {
	const clear = state.webhookSecret;
	if (typeof clear === 'string' && clear !== '') keepSecretDigest(state, clear);
}
