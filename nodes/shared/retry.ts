import type { INode } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

import { contextMemory } from './processMemory';

type RetryNumber = 'maxAttempts' | 'baseDelayMs' | 'maxRateLimitWaitMs' | 'timeoutMs';

/**
 * When the transport tries a request again, and how long it waits, as shipped: the README states
 * these numbers. The transport reads `retryPolicy`, a copy the unit tests shorten.
 */
export const SHIPPED_RETRY_POLICY: Readonly<Record<RetryNumber, number>> = Object.freeze({
	/** Tries per request, the first included. */
	maxAttempts: 4,
	/** Backoff before retry n is baseDelayMs * 2^(n-1), plus up to 20% jitter. */
	baseDelayMs: 300,
	/** A Retry-After longer than this is not waited out: the error says when to retry. */
	maxRateLimitWaitMs: 60_000,
	/** Per request. */
	timeoutMs: 30_000,
});

export const retryPolicy: Record<RetryNumber, number> = { ...SHIPPED_RETRY_POLICY };

/**
 * Shared by every request of one node run (keyed by its execution context), so that a 429
 * pauses all requests in flight together: one wait for all, not a stampede of retries.
 */
export interface RateLimitGate {
	pausedUntil: number;
}

const gates = contextMemory<RateLimitGate>('rate-limit gates', "each node run's pause after a 429");

export function gateFor(context: object): RateLimitGate {
	let gate = gates.get(context);
	if (!gate) {
		gate = { pausedUntil: 0 };
		gates.set(context, gate);
	}
	return gate;
}

export function backoffMs(retry: number): number {
	const base = retryPolicy.baseDelayMs * 2 ** (retry - 1);
	return Math.round(base * (1 + Math.random() * 0.2));
}

/**
 * n8n's `sleep`, in slices, giving up as soon as the execution is cancelled: a user who stops
 * a workflow does not wait out a minute of Retry-After.
 */
export async function cancellableSleep(node: INode, ms: number, signal: AbortSignal | undefined) {
	const until = Date.now() + ms;
	for (;;) {
		if (signal?.aborted) {
			throw new NodeOperationError(
				node,
				'The execution was cancelled while waiting to retry a request',
			);
		}
		const left = until - Date.now();
		if (left <= 0) return;
		await sleep(Math.min(left, 200));
	}
}

/** Waits while a 429 seen by any request of this run is in force. */
export async function waitForGate(
	node: INode,
	gate: RateLimitGate,
	signal: AbortSignal | undefined,
) {
	const left = gate.pausedUntil - Date.now();
	if (left > 0) await cancellableSleep(node, left, signal);
}

/** Retry-After as milliseconds: seconds or an HTTP date. */
export function parseRetryAfter(value: unknown): number | undefined {
	const raw = Array.isArray(value) ? value[0] : value;
	if (raw === undefined || raw === null || raw === '') return undefined;
	const seconds = Number(raw);
	if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
	const date = Date.parse(String(raw));
	return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
