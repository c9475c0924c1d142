/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/** The one polling loop of the tests, the stack and the scripts. */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface WaitOptions {
	/** How long to keep asking (60 s). */
	timeoutMs?: number;
	/** Pause between two questions (250 ms). */
	intervalMs?: number;
	/**
	 * Whether an error thrown by the check only means "not yet" (a process still starting refuses
	 * connections); by default it ends the wait, so a broken check fails at once.
	 */
	ignoreErrors?: boolean;
}

/**
 * Asks `check` until it returns a truthy value and returns that value; throws after `timeoutMs`
 * with `what` (and the last error, when errors are ignored) in the message.
 */
export async function waitUntil<T>(
	what: string,
	check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
	{ timeoutMs = 60_000, intervalMs = 250, ignoreErrors = false }: WaitOptions = {},
): Promise<T> {
	const started = Date.now();
	let lastError: unknown;
	for (;;) {
		try {
			const value = await check();
			if (value) return value;
		} catch (error) {
			if (!ignoreErrors) throw error;
			lastError = error;
		}
		if (Date.now() - started >= timeoutMs) {
			const cause =
				lastError === undefined ? '' : `: ${(lastError as Error)?.message ?? String(lastError)}`;
			throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
		}
		await sleep(intervalMs);
	}
}
