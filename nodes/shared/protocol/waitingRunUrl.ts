import type { Wait } from './wait';

/**
 * The registered URL of a Send and Wait for Reply run that holds the account's webhook itself
 * (waitingHolder.ts, docs/design/durability-and-conversations.md §5b): n8n's signed resume URL of
 * the waiting node, with the wait record of §5 among the parameters n8n signs. Read by the node and
 * by a trigger that joins while such a run holds the webhook (registration.ts).
 */

const MARKER = 'relay-wait';
/** The query parameters n8n signs into this run's resume URL: the wait record of §5. */
export function signedWaitParams(
	wait: Omit<Wait, 'executionId' | 'resumePath' | 'questionId'>,
): Record<string, string> {
	return {
		chat: wait.chat,
		[MARKER]: 'v1',
		channel: wait.channelId,
		since: String(wait.since),
		until: String(wait.until),
		...(wait.passOn ? { 'pass-on': '1' } : {}),
	};
}

/** The wait a registered URL stands for, when a waiting run registered it; otherwise undefined. */
export function waitFromUrl(url: string): Wait | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return undefined;
	}
	const q = parsed.searchParams;
	if (q.get(MARKER) !== 'v1') return undefined;
	const segments = parsed.pathname.split('/').filter(Boolean);
	const [chat, channelId, since, until] = [
		q.get('chat'),
		q.get('channel'),
		Number(q.get('since')),
		Number(q.get('until')),
	];
	if (
		segments.length < 2 ||
		!chat ||
		!channelId ||
		!Number.isFinite(since) ||
		!Number.isFinite(until)
	)
		return undefined;
	return {
		executionId: decodeURIComponent(segments[segments.length - 2]),
		resumePath: `${parsed.pathname}${parsed.search}`,
		chat,
		channelId,
		since,
		until,
		questionId: null,
		passOn: q.get('pass-on') === '1',
	};
}
