import { randomBytes } from 'node:crypto';

/**
 * The registered URL carries the member list (docs/shared-webhook.md, "Words"):
 * `<holder URL>?relay-share=v1[&holder-test=1]&member=<path>&test-member=<path>&reg=<stamp>`.
 * The service's own record of the webhook is therefore the list, readable by every trigger with
 * `GET /v1/webhook`. The stamp makes every registration's URL its own (unsavedRegistration.ts);
 * a URL without one (made by hand, or before stamps existed) still parses.
 */

const MARKER = 'relay-share';
const MEMBER = 'member';
const TEST_MEMBER = 'test-member';
const HOLDER_IS_TEST = 'holder-test';
const STAMP = 'reg';

/** A registered URL that lists members (production or test): the holder has triggers to serve. */
export const LISTS_MEMBERS = /[?&](test-)?member=/;

export interface Membership {
	/** Production members: published workflows. Candidates to take over from a leaving holder. */
	members: string[];
	/** Test listeners: they receive events but never take over (n8n keeps their state in memory). */
	testMembers: string[];
}

export interface Registration extends Membership {
	/** The holder's URL without the query: where n8n serves the holder. */
	holderUrl: string;
	origin: string;
	holderPath: string;
	/** True when a trigger of this package registered it (the URL carries the marker). */
	shared: boolean;
	/** The holder is a test listener: when another trigger joins, it becomes a test member. */
	holderTest: boolean;
	/** When the holder made this registration (ms since epoch, to the second), from its stamp. */
	registeredAt?: number;
}

/**
 * A fresh stamp for a registration made now: the time in seconds (8 hex digits) and 16 random
 * bits (4 hex digits), so that two registrations within one second still differ.
 */
export function registrationStamp(now = Date.now()): string {
	return (
		Math.floor(now / 1000)
			.toString(16)
			.padStart(8, '0') + randomBytes(2).toString('hex')
	);
}

export function parseRegistration(url: string): Registration | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return undefined;
	}
	const params = parsed.searchParams;
	const unique = (values: string[]) => [...new Set(values.filter((v) => v.startsWith('/')))];
	const stamp = params.get(STAMP) ?? '';
	return {
		holderUrl: `${parsed.origin}${parsed.pathname}`,
		origin: parsed.origin,
		holderPath: parsed.pathname,
		shared: params.has(MARKER),
		holderTest: params.has(HOLDER_IS_TEST),
		members: unique(params.getAll(MEMBER)),
		testMembers: unique(params.getAll(TEST_MEMBER)),
		...(/^[0-9a-f]{12}$/.test(stamp)
			? { registeredAt: parseInt(stamp.slice(0, 8), 16) * 1000 }
			: {}),
	};
}

/** Everyone a holder forwards to. */
export function allMembers(membership: Membership): string[] {
	return [...membership.members, ...membership.testMembers];
}

export function lists(registration: Registration, path: string): boolean {
	return registration.holderPath === path || allMembers(registration).includes(path);
}

export function withoutPaths(membership: Membership, paths: string[]): Membership {
	const drop = new Set(paths);
	return {
		members: membership.members.filter((p) => !drop.has(p)),
		testMembers: membership.testMembers.filter((p) => !drop.has(p)),
	};
}

export function mergeMemberships(...parts: Membership[]): Membership {
	const members = new Set(parts.flatMap((p) => p.members));
	const testMembers = new Set(parts.flatMap((p) => p.testMembers).filter((p) => !members.has(p)));
	return { members: [...members], testMembers: [...testMembers] };
}

/** `stamp`: registrationStamp() for a URL to PUT; left out, the URL has none. */
export function formatRegistration(
	holderUrl: string,
	membership: Membership,
	holderTest = false,
	stamp?: string,
): string {
	const url = new URL(holderUrl);
	url.search = '';
	url.searchParams.append(MARKER, 'v1');
	if (holderTest) url.searchParams.append(HOLDER_IS_TEST, '1');
	for (const path of membership.members) url.searchParams.append(MEMBER, path);
	for (const path of membership.testMembers) url.searchParams.append(TEST_MEMBER, path);
	if (stamp !== undefined) url.searchParams.append(STAMP, stamp);
	return url.toString();
}
