import type { ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { responseOf, whenAnswered } from '../n8n/webhookResponse';
import { processKey } from '../processKey';
import { memorySlot } from '../processMemory';

/**
 * What the trigger does while n8n stops its workflow: refuse new deliveries (503, the service delivers them again
 * once n8n is back), and let the ones already inside webhook() finish, since n8n's shutdown waits for executions,
 * not for webhook requests, while it keeps serving them. The gate is per workflow, node and process (processKey.ts)
 * and expires; publishing again opens it. Why, with n8n's shutdown order (Start.stopProcess, then
 * ActiveExecutions.shutdown): docs/design/n8n-internals.md, "Closing the trigger at shutdown: refuse, then drain".
 */
const closedAt = memorySlot<true>('closed gates', {
	holds: 'listeners whose close function ran; a restart starts open',
	maxEntries: 10_000,
	maxAgeMs: 90_000,
});

/** The drain's bound. An object rather than a constant so the tests can shorten it. */
export const drainLimits = {
	/** Longest the close function waits for deliveries in flight (n8n's graceful time-out is 30 s). */
	waitMs: 20_000,
	pollMs: 25,
};

const inFlight = memorySlot<number>('deliveries in flight', {
	holds:
		'deliveries of each listener that webhook() let in, not answered yet; they die with the process',
	maxEntries: 10_000,
});

/** trigger() of a published workflow started: its deliveries run. */
export function openGate(context: ITriggerFunctions) {
	closedAt.delete(processKey(context));
}

/**
 * Its closeFunction ran: n8n is unpublishing the workflow or stopping. Refuses what arrives from
 * now on, then waits until the deliveries already let in are answered. Resolves to how many were
 * still unanswered when the wait gave up (0 normally).
 */
export async function closeGate(context: ITriggerFunctions): Promise<number> {
	const key = processKey(context);
	closedAt.set(key, true);
	const giveUpAt = Date.now() + drainLimits.waitMs;
	while ((inFlight.get(key) ?? 0) > 0 && Date.now() < giveUpAt) await sleep(drainLimits.pollMs);
	const left = inFlight.get(key) ?? 0;
	if (left > 0) {
		context.logger.warn(
			`Messaging Relay Trigger: ${left} delivery(ies) were still being handled when n8n stopped the workflow; the service delivers what was not answered again.`,
		);
	}
	return left;
}

/** Whether a production delivery should be refused because the trigger is being stopped. */
export function isClosing(context: IWebhookFunctions, now = Date.now()): boolean {
	return closedAt.has(processKey(context), now);
}

/**
 * Counts a delivery that webhook() let in until its answer has been sent (`finish`) or its
 * connection is gone (`close`). Called before webhook()'s first await, so a delivery is either
 * refused by the gate or counted by the drain, never neither.
 */
export function holdUntilAnswered(context: IWebhookFunctions) {
	const key = processKey(context);
	inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
	whenAnswered(responseOf(context), () => {
		const left = (inFlight.get(key) ?? 1) - 1;
		if (left > 0) inFlight.set(key, left);
		else inFlight.delete(key);
	});
}
