import type { ExecutionError, IExecuteFunctions, ITriggerFunctions, IWebhookFunctions, IWorkflowDataProxyAdditionalKeys } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * What this package needs from n8n that n8n 1.123.x (the maintained 1.x line) lacks, detected
 * here and nowhere else (docs/compatibility.md has the whole table). Each helper uses n8n's own
 * method when the context has it, so on n8n 2.x nothing changes, and otherwise builds the same
 * result from what 1.123 offers. The package's `n8n-workflow` import resolves to n8n's own copy
 * at run time (a peer dependency), so the types below are 2.x's while the contexts may be 1.x's:
 * every check is on the object, never on the type.
 */

/**
 * The URL of this node's webhook as the request being served was addressed to: the test URL
 * while "Listen for test event" runs (mode `manual`), the production URL otherwise.
 *
 * - n8n 2.41.1: `getWebhookResourceUrl` (n8n-core webhook-context.js:82-84), which is
 *   getNodeWebhookUrl with the webhook's own `isTest`.
 * - n8n 1.123.81: absent; its WebhookContext has only `getNodeWebhookUrl`, always the production
 *   URL (n8n-core webhook-context.js:65-67, webhook-helper-functions.js:17-21 without `isTest`).
 *   n8n builds both URLs on the same base, `<base>/<endpoint>/<rest>`, with `webhook` or
 *   `webhook-test` as the endpoint (n8n workflow-execute-additional-data.js:265-267), and serves
 *   the test one at `/<test endpoint>/<rest>` (abstract-server.js:93): the test URL is the
 *   production URL with the request's first path segment in place of the endpoint.
 */
export function webhookResourceUrl(context: IWebhookFunctions, name: 'default' = 'default'): string | undefined {
	const own = context as Partial<Pick<IWebhookFunctions, 'getWebhookResourceUrl'>>;
	if (typeof own.getWebhookResourceUrl === 'function') return own.getWebhookResourceUrl(name);
	const production = context.getNodeWebhookUrl(name);
	if (production === undefined || context.getMode() !== 'manual') return production;
	const request = context.getRequestObject() as { originalUrl?: string; url?: string };
	return testUrlOf(production, new URL(request.originalUrl ?? request.url ?? '/', 'http://n8n').pathname);
}

/** `production` with the endpoint segment swapped for the one the test request arrived on. */
export function testUrlOf(production: string, requestPath: string): string {
	const url = new URL(production);
	const asServed = requestPath.split('/').filter(Boolean);
	const published = url.pathname.split('/').filter(Boolean);
	const rest = asServed.slice(1);
	const endpointAt = published.length - rest.length - 1;
	const sameRest = endpointAt >= 0 && rest.every((segment, i) => published[endpointAt + 1 + i] === segment);
	// A request that does not end like the production URL (not n8n's routing): its own path.
	url.pathname = sameRest ? `/${[...published.slice(0, endpointAt), asServed[0], ...rest].join('/')}` : requestPath;
	return url.toString();
}

/** Keys and values kept with one execution, saved by n8n with it (a waiting run keeps them until it resumes). */
export interface ExecutionCustomData {
	get(key: string): string | undefined;
	set(key: string, value: string): void;
}

/**
 * The execution's custom data (what n8n shows as "custom data" and saves with the execution), in
 * the run that puts itself to wait and in the webhook that later resumes it.
 *
 * - n8n 2.41.1: `customData` on every node context (n8n-core node-execution-context.js:45-52).
 * - n8n 1.123.81: not on the contexts (node-execution-context.js has no `customData`); the same
 *   store is `$execution.customData` of the context's `additionalKeys` getter
 *   (node-execution-context.js:233-235, utils/get-additional-keys.js:18-47, writing
 *   `resultData.metadata` as 2.x does), on the execute and the webhook context alike. A waiting
 *   run's webhook gets the run's data (n8n 1.123.81 webhooks/webhook.service.js:232), so the
 *   store it reads is the one the run wrote before it was saved.
 *
 * Not through an expression (`evaluateExpression('{{ $execution.customData.get(…) }}')`): 1.123.81
 * evaluates expressions in an isolate by default (@n8n/config expression-engine.config.js:21,
 * `engine = 'vm'`), whose bridge hands any function on the data as `undefined`
 * (@n8n/expression-runtime bridge/isolated-vm-bridge.js:324-331), so `customData.get` cannot be
 * called there and every read came back empty: each delivery to a waiting run that holds the
 * webhook was refused with 401 'Invalid secret'.
 */
export function executionCustomData(context: IExecuteFunctions | IWebhookFunctions): ExecutionCustomData {
	// `in`, not a read: on 2.x the getter throws when the context has no run data, as before.
	if ('customData' in (context as object)) return context.customData as ExecutionCustomData;
	// A getter n8n-core declares protected (not in IExecuteFunctions): read on the object.
	const keys = (context as unknown as { additionalKeys?: IWorkflowDataProxyAdditionalKeys }).additionalKeys;
	const store = keys?.$execution?.customData as Partial<ExecutionCustomData> | undefined;
	if (typeof store?.get === 'function' && typeof store.set === 'function') return store as ExecutionCustomData;
	throw new NodeOperationError(context.getNode(), `This n8n keeps no custom data for the run: Send and Wait for Reply needs n8n ${OLDEST_SUPPORTED_N8N} or later`, {
		description: `Send and Wait for Reply keeps what it needs to recognise the reply in the execution's custom data, which this n8n does not give the node. Update n8n to ${OLDEST_SUPPORTED_N8N} or later (the Messaging Relay nodes are tested on n8n 1.123 and 2.41).`,
	});
}

/**
 * Reports an error of a published trigger as a failed execution of its workflow (its executions
 * list, and the error workflow runs), the workflow staying published.
 *
 * - n8n 2.41.1: `saveFailedExecution` (n8n-core trigger-context.js:22-27; n8n
 *   workflows/triggers/trigger-execution-context.factory.js:180-187).
 * - n8n 1.123.81: absent (n8n-core trigger-context.js:18-31; n8n active-workflow-manager.js:270-282
 *   gives a trigger only `emit` and `emitError`, and `emitError` unpublishes the workflow). The
 *   report goes to n8n's log at level error instead, with the same words: `'logged'`.
 */
export function saveFailedExecution(context: ITriggerFunctions, error: ExecutionError): 'saved' | 'logged' {
	const own = context as Partial<Pick<ITriggerFunctions, 'saveFailedExecution'>>;
	if (typeof own.saveFailedExecution === 'function') {
		own.saveFailedExecution(error);
		return 'saved';
	}
	const { name } = context.getNode();
	const workflow = context.getWorkflow();
	context.logger.error(`Messaging Relay Trigger "${name}" of workflow "${workflow.name ?? workflow.id ?? ''}": ${error.message}`, {
		description: error.description ?? undefined,
		workflowId: workflow.id,
		nodeName: name,
	});
	return 'logged';
}

/** The oldest n8n the package supports (docs/compatibility.md, "Versions"). */
export const OLDEST_SUPPORTED_N8N = '1.123.0';

/**
 * Refuses a feature at its first run, before it does anything, when this n8n lacks a method it
 * needs: an n8n older than the package supports. n8n 1.123.81 and 2.41.1 have every method the
 * package names here (docs/compatibility.md); an older n8n would otherwise fail half-way with
 * "… is not a function".
 */
export function requireN8nMethods(context: IExecuteFunctions, feature: string, methods: ReadonlyArray<keyof IExecuteFunctions>): void {
	const missing = methods.filter((method) => typeof (context as unknown as Record<string, unknown>)[method] !== 'function');
	if (missing.length === 0) return;
	throw new NodeOperationError(context.getNode(), `${feature} needs n8n ${OLDEST_SUPPORTED_N8N} or later`, {
		description: `This n8n lacks ${missing.join(', ')}, which ${feature} uses. Nothing was sent. Update n8n to ${OLDEST_SUPPORTED_N8N} or later (the Messaging Relay nodes are tested on n8n 1.123 and 2.41).`,
	});
}
