import type { ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import { processKey } from '../shared/processKey';

/**
 * Deliveries that arrive while n8n is stopping are refused with 503, so the service delivers them
 * again once n8n is back instead of n8n starting executions it then cuts off.
 *
 * Why: on SIGTERM n8n 2.41.1 first closes every trigger (commands/start.js:82 →
 * n8n-core active-workflow-triggers.js:245-260, which calls our `closeFunction`), then waits for
 * active executions (active-executions.js:264-290) while its HTTP server keeps accepting webhook
 * requests. Under steady traffic new executions keep arriving, the wait runs into the graceful
 * shutdown time-out (30 s), n8n exits, and the executions still running are marked crashed with
 * their items gone: events the service was told were received (200) that ran nowhere.
 *
 * The gate is per workflow, node and process (processKey.ts: trigger() runs in mode `trigger`,
 * webhook() in mode `webhook`, both count as the published listener), and it expires: a
 * multi-main leader that steps down also closes its triggers but keeps serving webhooks, and must
 * not refuse them for longer than a redelivery takes. Publishing again (trigger() runs) opens it at once. In queue mode trigger()
 * runs in the main process only, so webhook processes are never gated: they only enqueue.
 */
const CLOSED_FOR_MS = 90_000;
const closedAt = new Map<string, number>();

/** trigger() of a published workflow started: its deliveries run. */
export function openGate(context: ITriggerFunctions) {
	closedAt.delete(processKey(context));
}

/** Its closeFunction ran: n8n is unpublishing the workflow or stopping. */
export function closeGate(context: ITriggerFunctions) {
	closedAt.set(processKey(context), Date.now());
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
