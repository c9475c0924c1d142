/**
 * A webhook description's fields computed from the node's parameters, with n8n's native resolvers
 * (docs/design/n8n-internals.md, "The answer fields' native resolvers (trigger version 3)").
 */

/**
 * n8n-workflow's key for a webhook description's native resolvers (its `WEBHOOK_RESOLVERS` in n8n 2.41.1, a
 * `Symbol.for`, so the same symbol here). Built here rather than with n8n-workflow's `webhookDescriptionFields` /
 * `fromFunction`, which older n8n-workflow releases (n8n 1.123.81) do not export: a missing export would stop
 * the package from loading there.
 */
const WEBHOOK_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

/** Computes a field from the node's parameters. Self-contained: its source travels as text. */
export type Resolve = (parameters: Record<string, unknown>) => string;

/**
 * The fields as n8n's `fromFunction` builds them: each template inlines its function's source (what
 * the editor and n8n before 2.41 evaluate), and under the symbol each resolver is the function
 * itself, which n8n 2.41.1 calls instead of the expression engine when the node's parameters hold
 * no expression (n8n's WebhookExecutionContext → n8n-workflow's resolveWebhookDescriptionField).
 */
export function fieldsFromParameters<Field extends string>(
	resolvers: Record<Field, Resolve>,
): Record<Field, string> {
	const templates: Record<string, string> = {};
	const native: Record<string, { template: string; resolve: Resolve }> = {};
	for (const [field, resolve] of Object.entries<Resolve>(resolvers)) {
		templates[field] = `={{(${String(resolve)})($parameter)}}`;
		native[field] = { template: templates[field], resolve };
	}
	return Object.assign(templates as Record<Field, string>, { [WEBHOOK_RESOLVERS]: native });
}
