/**
 * The registered URL carries the member list (docs/shared-webhook.md, "Words"):
 * `<holder URL>?relay-share=v1[&holder-test=1]&member=<path>&test-member=<path>`. The service's own record of the
 * webhook is therefore the list, readable by every trigger with `GET /v1/webhook`.
 */

const MARKER = 'relay-share';
const MEMBER = 'member';
const TEST_MEMBER = 'test-member';
const HOLDER_IS_TEST = 'holder-test';

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
	return {
		holderUrl: `${parsed.origin}${parsed.pathname}`,
		origin: parsed.origin,
		holderPath: parsed.pathname,
		shared: params.has(MARKER),
		holderTest: params.has(HOLDER_IS_TEST),
		members: unique(params.getAll(MEMBER)),
		testMembers: unique(params.getAll(TEST_MEMBER)),
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

export function formatRegistration(holderUrl: string, membership: Membership, holderTest = false): string {
	const url = new URL(holderUrl);
	url.search = '';
	url.searchParams.append(MARKER, 'v1');
	if (holderTest) url.searchParams.append(HOLDER_IS_TEST, '1');
	for (const path of membership.members) url.searchParams.append(MEMBER, path);
	for (const path of membership.testMembers) url.searchParams.append(TEST_MEMBER, path);
	return url.toString();
}
