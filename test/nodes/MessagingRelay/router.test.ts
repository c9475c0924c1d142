/**
 * The action node's router (actions/router.ts): every operation the node's description offers has a
 * route and nothing else does, and an operation it does not know (a workflow saved by a later version,
 * say) fails with words that say what to do, before any request, through n8n-core's runtime.
 */
import type { INodeProperties } from 'n8n-workflow';

import { MessagingRelay } from '../../../nodes/MessagingRelay/MessagingRelay.node';
import { ROUTES } from '../../../nodes/MessagingRelay/actions/router';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { relayCredentials, relayNode, runActionNode } from '../../support/harness/n8nRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());

/** resource → its operations, as the node's description offers them to the user. */
function offered(): Record<string, string[]> {
	const { properties } = new MessagingRelay().description;
	const resources = (properties.find((p) => p.name === 'resource')!.options ?? []) as Array<{
		value: string;
	}>;
	const operationsOf = (resource: string) =>
		properties
			.filter(
				(p: INodeProperties) =>
					p.name === 'operation' && p.displayOptions?.show?.resource?.includes(resource),
			)
			.flatMap((p) => (p.options as Array<{ value: string }>).map((o) => o.value))
			.sort();
	return Object.fromEntries(resources.map((r) => [r.value, operationsOf(r.value)]));
}

test('every operation the node offers has a route, and every route is an operation it offers', () => {
	const routed = Object.fromEntries(
		Object.entries(ROUTES).map(([resource, operations]) => [
			resource,
			Object.keys(operations).sort(),
		]),
	);
	expect(routed).toEqual(offered());
	expect(offered()).toEqual({
		message: ['pauseReplies', 'reply', 'resumeReplies', 'send', 'sendAndWait'],
		number: ['get', 'getAll'],
		webhook: ['delete', 'get', 'set'],
	});
});

test('an operation the node does not know fails before any request, saying what to do', async () => {
	sim.reset();
	const { error } = await runActionNode(
		relayNode({ resource: 'number', operation: 'archive' }),
		relayCredentials(sim.baseUrl),
	);
	expect(error?.message).toBe('Unknown operation "archive" of resource "number"');
	expect((error as { description?: string }).description).toBe(
		'Pick the resource and the operation again in the node.',
	);
	expect(sim.requests).toHaveLength(0);
});
