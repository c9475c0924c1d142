/**
 * n8n 1.123.x as the package meets it, made from n8n-core 2.41.1's contexts by hiding exactly
 * what n8n 1.123.81 lacks (read in its installed code; docs/compatibility.md has the table):
 *
 * - WebhookContext: no `getWebhookResourceUrl` (n8n-core 1.123.81
 *   execution-engine/node-execution-context/webhook-context.js:11-80 has getNodeWebhookUrl only),
 *   no `customData` (node-execution-context.js:30-287 has none), no `getWorkflowDataProxy`.
 * - ExecuteContext: no `customData` (same; base-execute-context.js has getWorkflowDataProxy:109).
 * - TriggerContext: no `saveFailedExecution` (trigger-context.js:18-31).
 * - NodeApiError drops its `cause` (n8n-workflow 1.123.81 errors/abstract/execution-base.error.js:16,
 *   a class field declared after `Error` set it).
 *
 * A Proxy hides them from `in` and from reads, so whatever way the package looks, it sees 1.123.
 */
export type ContextKind = 'webhook' | 'execute' | 'trigger' | 'hook';

const MISSING_IN_1_123: Record<ContextKind, readonly string[]> = {
	webhook: ['getWebhookResourceUrl', 'customData', 'getWorkflowDataProxy'],
	execute: ['customData'],
	trigger: ['saveFailedExecution'],
	hook: [],
};

export function asN8n1<T extends object>(context: T, kind: ContextKind): T {
	return without(context, MISSING_IN_1_123[kind]);
}

/** The context with these members hidden, as an n8n that lacks them hands it over. */
export function without<T extends object>(context: T, members: readonly string[]): T {
	const hidden = new Set<string | symbol>(members);
	if (hidden.size === 0) return context;
	return new Proxy(context, {
		has: (target, property) => !hidden.has(property) && Reflect.has(target, property),
		get: (target, property, receiver) =>
			hidden.has(property) ? undefined : Reflect.get(target, property, receiver),
	});
}

/** An error as n8n 1.123's NodeApiError leaves it: no `cause` (execution-base.error.js:16). */
export function withoutCause<E>(error: E): E {
	if (error instanceof Error) delete (error as { cause?: unknown }).cause;
	return error;
}
