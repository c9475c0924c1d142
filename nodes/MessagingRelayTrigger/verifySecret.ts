import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares the `x-service-secret` header with the stored secret in constant time. The length
 * check comes first because timingSafeEqual needs equal lengths; it reveals only the length,
 * which is fixed for the service's secrets.
 */
export function secretMatches(received: unknown, expected: string): boolean {
	if (typeof received !== 'string' || received === '' || expected === '') return false;
	const given = Buffer.from(received, 'utf8');
	const wanted = Buffer.from(expected, 'utf8');
	if (given.length !== wanted.length) return false;
	return timingSafeEqual(given, wanted);
}

/**
 * Compares the `x-service-secret` header with the SHA-256 (hex) the holder keeps of the service's
 * secret (webhookState.ts), in constant time: both sides are 32-byte digests.
 */
export function secretMatchesDigest(received: unknown, expectedDigestHex: string): boolean {
	if (typeof received !== 'string' || received === '' || !/^[0-9a-f]{64}$/.test(expectedDigestHex)) return false;
	const given = createHash('sha256').update(received, 'utf8').digest();
	return timingSafeEqual(given, Buffer.from(expectedDigestHex, 'hex'));
}
