import type { ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { processKey } from '../shared/processKey';

/**
 * What the trigger does while n8n stops its workflow: refuse new deliveries (503, the service
 * delivers them again once n8n is back), and let the ones already inside webhook() finish.
 *
 * Why refuse: on SIGTERM n8n 2.41.1 first closes every trigger (commands/start.js:82 →
 * n8n-core active-workflow-triggers.js:245-260, which calls our `closeFunction`), then waits for
 * active executions (active-executions.js:264-290) while its HTTP server keeps accepting webhook
 * requests. Under steady traffic new executions keep arriving, the wait runs into the graceful
 * shutdown time-out (30 s), n8n exits, and the executions still running are marked crashed with
 * their items gone: events the service was told were received (200) that ran nowhere.
 *
 * Why drain: a delivery's run starts before its static data is saved and before it is answered
 * (webhook-helpers.js:679-696, live-webhooks.js:143-148), and n8n's shutdown waits for runs, not
 * for webhook requests. With short runs n8n exited between "run started" and "answered": the
 * service never got its 200 and delivered again, and a member whose record of the forward had
 * not been saved ran it a second time (the mixed soak, docs/design/durability-and-conversations.md
 * section 6). So the close function, which n8n awaits before it waits for executions, returns only
 * once every delivery this process let in for the workflow has been answered, or after
 * `drainLimits.waitMs` (inside n8n's 30 s) if one hangs.
 *
 * The gate is per workflow, node and process (processKey.ts: trigger() runs in mode `trigger`,
 * webhook() in mode `webhook`, both count as the published listener), and it expires: a
 * multi-main leader that steps down also closes its triggers but keeps serving webhooks, and must
 * not refuse them for longer than a redelivery takes. Publishing again (trigger() runs) opens it at once. In queue mode trigger()
 * runs in the main process only, so webhook processes are never gated: they only enqueue.
 */
const CLOSED_FOR_MS = 90_000;
const closedAt = new Map<string, number>();

/** The drain's bound. An object rather than a constant so the tests can shorten it. */
export const drainLimits = {
	/** Longest the close function waits for deliveries in flight (n8n's graceful time-out is 30 s). */
	waitMs: 20_000,
	pollMs: 25,
};

/** Deliveries of each listener that webhook() let in and that are not answered yet. */
const inFlight = new Map<string, number>();

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
	closedAt.set(key, Date.now());
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
	const key = processKey(context);
	const at = closedAt.get(key);
	if (at === undefined) return false;
	if (now - at < CLOSED_FOR_MS) return true;
	closedAt.delete(key);
	return false;
}

/**
 * Counts a delivery that webhook() let in until its answer has been sent (`finish`) or its
 * connection is gone (`close`). Called before webhook()'s first await, so a delivery is either
 * refused by the gate or counted by the drain, never neither.
 */
export function holdUntilAnswered(context: IWebhookFunctions) {
	const key = processKey(context);
	inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
	let settled = false;
	const settle = () => {
		if (settled) return;
		settled = true;
		const left = (inFlight.get(key) ?? 1) - 1;
		if (left > 0) inFlight.set(key, left);
		else inFlight.delete(key);
	};
	const response = context.getResponseObject();
	response.once('finish', settle);
	response.once('close', settle);
}
