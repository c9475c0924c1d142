import type { IDataObject, INode } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';
import type { z } from 'zod';

/**
 * The spec leaves most response bodies "not shown". A real server could answer bare
 * (`{ id, ... }`), wrapped under the resource name (`{ number: {...} }`) or under `data`.
 * These helpers accept all three, then validate with the resource's zod schema.
 */

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The resource object inside `body`, looked for under `keys` in order, else the body itself. */
export function unwrapObject(body: unknown, keys: string[]): unknown {
	if (!isRecord(body)) return body;
	for (const key of keys) {
		if (key in body) return body[key];
	}
	return body;
}

/** The list inside `body`: a bare array, or an array under one of `keys`. */
export function unwrapList(body: unknown, keys: string[]): unknown {
	if (Array.isArray(body)) return body;
	if (!isRecord(body)) return body;
	for (const key of keys) {
		const value = body[key];
		if (Array.isArray(value)) return value;
		// `{ data: { numbers: [...] } }`
		if (isRecord(value)) {
			const inner = unwrapList(value, keys);
			if (Array.isArray(inner)) return inner;
		}
	}
	return body;
}

/** A webhook body may carry its secret; an error message must not. */
function hideSecrets(key: string, value: unknown): unknown {
	return key === 'secret' ? '[hidden]' : value;
}

/** Validates a resource read from the service; a mismatch is the service's fault, said plainly. */
export function parseResource<S extends z.ZodTypeAny>(
	node: INode,
	schema: S,
	value: unknown,
	what: string,
	itemIndex?: number,
): z.infer<S> {
	const result = schema.safeParse(value);
	if (result.success) return result.data;
	const issue = result.error.issues[0];
	const where = issue?.path.length ? ` at "${issue.path.join('.')}"` : '';
	throw new NodeApiError(
		node,
		{ message: `unexpected ${what}` },
		{
			message: `The Messaging Relay API returned ${what} in a shape this node does not understand`,
			description: `${issue?.message ?? 'Invalid value'}${where}. Received: ${JSON.stringify(value, hideSecrets)?.slice(0, 200) ?? 'nothing'}. If the service changed its API, update the n8n-nodes-messaging-relay package.`,
			itemIndex,
		},
	);
}

/**
 * A parsed resource as item JSON. zod types passed-through fields as `unknown`, but they came
 * out of `JSON.parse`, so they are JSON values, which is what an item holds.
 */
export function asItemJson<T extends object>(value: T): IDataObject {
	return value as unknown as IDataObject;
}
