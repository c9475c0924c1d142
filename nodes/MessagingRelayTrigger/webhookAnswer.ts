import type { IWebhookDescription } from 'n8n-workflow';

/**
 * What each version's webhook description tells n8n about answering the service
 * (acknowledgement.ts), fixed per version so that n8n evaluates no expression for it on a delivery
 * (docs/performance.md, "What n8n evaluates per delivery").
 */
export type AnswerFields = Pick<IWebhookDescription, 'responseMode' | 'responseData'>;

/**
 * Versions 1 and 2: n8n answers once the execution has started (`onReceived`) with webhook()'s
 * `webhookResponse` ({"received":true}), as `responseData` is empty; left out, n8n 2.41 answers with
 * its default's name, "firstEntryJson". Plain strings: n8n evaluates nothing for them.
 */
const WHEN_STARTED: AnswerFields = { responseMode: 'onReceived', responseData: '' };

/**
 * n8n-workflow's key for a webhook description's native resolvers (its `WEBHOOK_RESOLVERS` in n8n 2.41.1, a
 * `Symbol.for`, so the same symbol here). Built here rather than with n8n-workflow's `webhookDescriptionFields` /
 * `fromFunction`, which older n8n-workflow releases (n8n 1.123.81) do not export: a missing export would stop
 * the package from loading there (docs/design/n8n-internals.md, "The answer fields' native resolvers (trigger version 3)").
 */
const WEBHOOK_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

type Resolve = (parameters: Record<string, unknown>) => string;

/**
 * A field computed from the node's parameters, as n8n's `fromFunction` builds it: the template inlines the
 * function's source (what the editor and n8n before 2.41 evaluate) and the resolver is the function itself, which
 * n8n 2.41.1 calls instead of the expression engine when the node's parameters hold no expression (n8n's
 * WebhookExecutionContext → n8n-workflow's resolveWebhookDescriptionField). The function must be self-contained:
 * the template cannot see this module.
 */
function fromFunction(resolve: Resolve): { template: string; resolve: Resolve } {
	return { template: `={{(${String(resolve)})($parameter)}}`, resolve };
}

const answerAt = {
	// "When the Workflow Finishes": answered when the execution has ended, with an empty 200
	// (`noData`, n8n's extractWebhookLastNodeResponse), never the last node's output (it
	// may hold a reply text or a contact's data). "When the Workflow Starts": as versions 1 and 2.
	// 'whenFinished' is ACKNOWLEDGE.whenFinished written out: the function travels as text and
	// cannot import it (noExpressionPerDelivery.test.ts evaluates both values).
	responseMode: fromFunction((parameters) =>
		parameters.acknowledge === 'whenFinished' ? 'lastNode' : 'onReceived',
	),
	responseData: fromFunction((parameters) =>
		parameters.acknowledge === 'whenFinished' ? 'noData' : '',
	),
};

/**
 * Version 3: "Acknowledge Events" picks the mode, so the description holds a template per field, each
 * with its native resolver. n8n 2.41.1 evaluates no expression for it; n8n 1.123.81 evaluates the
 * templates (its evaluateResponseOptions) in the isolate it takes for every webhook request anyway
 * (LiveWebhooks.executeWebhook).
 */
const BY_SETTING = {
	responseMode: answerAt.responseMode.template,
	responseData: answerAt.responseData.template,
	[WEBHOOK_RESOLVERS]: answerAt,
} as AnswerFields;

/** The answer fields of the webhook description that these versions share (all below 3, or all 3 and above). */
export function answerFields(versions: number[]): AnswerFields {
	const chosen = versions.every((v) => v >= 3);
	if (!chosen && versions.some((v) => v >= 3))
		throw new Error(
			'Versions below 3 and from 3 on answer differently: give them descriptions of their own',
		);
	return chosen ? BY_SETTING : WHEN_STARTED;
}
