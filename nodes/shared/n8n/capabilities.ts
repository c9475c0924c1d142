import type {
	ExecutionError,
	IExecuteFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
	IWorkflowDataProxyAdditionalKeys,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * What this package needs from n8n that n8n 1.123.x (the maintained 1.x line) lacks, detected here and
 * nowhere else (docs/compatibility.md has the table). Each helper uses n8n's own method when the context
 * has it and otherwise builds the same result from 1.123's. `n8n-workflow` resolves to n8n's own copy at
 * run time, so the types are 2.x's while a context may be 1.x's: every check is on the object, not the type.
 */

/**
 * The URL of this node's webhook as the request being served was addressed to: the test URL while
 * "Listen for test event" runs (mode `manual`), the production URL otherwise. n8n 2.x has
 * `getWebhookResourceUrl`; n8n-core 1.123's WebhookContext has only `getNodeWebhookUrl` (production),
 * so the test URL is rebuilt from the request's path (docs/design/n8n-internals.md, "A webhook's own URL").
 */
export function webhookResourceUrl(
	context: IWebhookFunctions,
	name: 'default' = 'default',
): string | undefined {
	const own = context as Partial<Pick<IWebhookFunctions, 'getWebhookResourceUrl'>>;
	if (typeof own.getWebhookResourceUrl === 'function') return own.getWebhookResourceUrl(name);
	const production = context.getNodeWebhookUrl(name);
	if (production === undefined || context.getMode() !== 'manual') return production;
	const request = context.getRequestObject() as { originalUrl?: string; url?: string };
	return testUrlOf(
		production,
		new URL(request.originalUrl ?? request.url ?? '/', 'http://n8n').pathname,
	);
}

/** `production` with the endpoint segment swapped for the one the test request arrived on. */
export function testUrlOf(production: string, requestPath: string): string {
	const url = new URL(production);
	const asServed = requestPath.split('/').filter(Boolean);
	const published = url.pathname.split('/').filter(Boolean);
	const rest = asServed.slice(1);
	const endpointAt = published.length - rest.length - 1;
	const sameRest =
		endpointAt >= 0 && rest.every((segment, i) => published[endpointAt + 1 + i] === segment);
	// A request that does not end like the production URL (not n8n's routing): its own path.
	url.pathname = sameRest
		? `/${[...published.slice(0, endpointAt), asServed[0], ...rest].join('/')}`
		: requestPath;
	return url.toString();
}

/** Keys and values kept with one execution, saved by n8n with it (a waiting run keeps them until it resumes). */
export interface ExecutionCustomData {
	get(key: string): string | undefined;
	set(key: string, value: string): void;
}

/**
 * The execution's custom data (saved with the execution), in the run that puts itself to wait and in
 * the webhook that later resumes it. n8n 2.x: `customData` on every node context; n8n 1.123: the same
 * store as `$execution.customData` of the context's `additionalKeys`, read directly: through an
 * expression its functions arrive as `undefined` (docs/design/n8n-internals.md, "The execution's custom data").
 */
export function executionCustomData(
	context: IExecuteFunctions | IWebhookFunctions,
): ExecutionCustomData {
	// `in`, not a read: on 2.x the getter throws when the context has no run data, as before.
	if ('customData' in (context as object)) return context.customData as ExecutionCustomData;
	// A getter n8n-core declares protected (not in IExecuteFunctions): read on the object.
	const keys = (context as unknown as { additionalKeys?: IWorkflowDataProxyAdditionalKeys })
		.additionalKeys;
	const store = keys?.$execution?.customData as Partial<ExecutionCustomData> | undefined;
	if (typeof store?.get === 'function' && typeof store.set === 'function')
		return store as ExecutionCustomData;
	throw new NodeOperationError(
		context.getNode(),
		`This n8n keeps no custom data for the run: Send and Wait for Reply needs n8n ${OLDEST_SUPPORTED_N8N} or later`,
		{
			description: `Send and Wait for Reply keeps what it needs to recognise the reply in the execution's custom data, which this n8n does not give the node. Update n8n to ${OLDEST_SUPPORTED_N8N} or later (the Messaging Relay nodes are tested on n8n 1.123 and 2.41).`,
		},
	);
}

/**
 * Reports an error of a published trigger as a failed execution of its workflow (its executions list,
 * and the error workflow runs), the workflow staying published: n8n 2.x's `saveFailedExecution`. n8n
 * 1.123 has none (a trigger's `emitError` unpublishes), so there it goes to n8n's log at level error:
 * `'logged'`, the description on the same line after " | ", since 1.123's text log prints no metadata
 * and the description names the missed events (docs/design/n8n-internals.md, "A trigger's failed execution").
 */
export function saveFailedExecution(
	context: ITriggerFunctions,
	error: ExecutionError,
): 'saved' | 'logged' {
	const own = context as Partial<Pick<ITriggerFunctions, 'saveFailedExecution'>>;
	if (typeof own.saveFailedExecution === 'function') {
		own.saveFailedExecution(error);
		return 'saved';
	}
	const { name } = context.getNode();
	const workflow = context.getWorkflow();
	const description = error.description ? ` | ${error.description.replace(/\s*\n+\s*/g, ' ')}` : '';
	context.logger.error(
		`Messaging Relay Trigger "${name}" of workflow "${workflow.name ?? workflow.id ?? ''}": ${error.message}${description}`,
		{
			description: error.description ?? undefined,
			workflowId: workflow.id,
			nodeName: name,
		},
	);
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
export function requireN8nMethods(
	context: IExecuteFunctions,
	feature: string,
	methods: ReadonlyArray<keyof IExecuteFunctions>,
): void {
	const missing = methods.filter(
		(method) => typeof (context as unknown as Record<string, unknown>)[method] !== 'function',
	);
	if (missing.length === 0) return;
	throw new NodeOperationError(
		context.getNode(),
		`${feature} needs n8n ${OLDEST_SUPPORTED_N8N} or later`,
		{
			description: `This n8n lacks ${missing.join(', ')}, which ${feature} uses. Nothing was sent. Update n8n to ${OLDEST_SUPPORTED_N8N} or later (the Messaging Relay nodes are tested on n8n 1.123 and 2.41).`,
		},
	);
}
