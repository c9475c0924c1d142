import type { Logger } from 'n8n-workflow';

import { setAsideLimits } from './memberHealth';

/**
 * The log line of a set-aside, for a member and for the holder's own runs, whether it was decided
 * at a failure's verdict or at a delivery's arrival (memberHealth.ts): one text for each, one place.
 */
export function warnSetAside(logger: Logger, path: string, ownRuns: boolean) {
	const span = Math.round(setAsideLimits.spanMs / 1000);
	logger.warn(
		ownRuns
			? `Messaging Relay Trigger: this workflow's executions failed for ${span} s (${setAsideLimits.failures} or more failed runs) while it holds the account's shared webhook; it is set aside: the service is answered without waiting for its runs, each event is still offered to it once, and what it misses is reported in its workflow.`
			: `Messaging Relay Trigger: the trigger at ${path} could not take events for ${span} s (${setAsideLimits.failures} failed hand-offs); it is set aside: the service is answered without it, and what it misses is reported in its workflow.`,
	);
}
