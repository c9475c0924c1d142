import { ExecuteContext, RoutingNode } from 'n8n-core';
import type { ICredentialDataDecryptedObject, INode, INodeType } from 'n8n-workflow';
import { createRunExecutionData, Workflow } from 'n8n-workflow';

import { additionalDataFor, credentialType, PackageNodeTypes } from './n8nRuntime';

/**
 * Runs the credential's declared test the way n8n's CredentialsTester does: the test request
 * becomes the routing of a temporary node, RoutingNode sends it (authenticated by the
 * credential), and a refused request is matched against the credential's `rules` by status.
 * Returns what the editor shows after "Test" / "Save".
 */
export async function runCredentialTest(
	credentials: ICredentialDataDecryptedObject,
): Promise<{ status: 'OK' | 'Error'; message: string }> {
	const test = credentialType.test!;
	const tempType: INodeType = {
		description: {
			displayName: 'Temp',
			name: 'temp',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: [],
			outputs: [],
			credentials: [{ name: credentialType.name, required: true }],
			properties: [
				{ displayName: 'Temp', name: 'temp', type: 'string', routing: { request: test.request }, default: '' },
			],
		},
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'temp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credentialType.name]: { id: 'cred-1', name: 'Messaging Relay account' } },
	};
	const nodeTypes = new PackageNodeTypes({ temp: tempType });
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const context = new ExecuteContext(
		workflow,
		node,
		additionalDataFor(credentials),
		'internal',
		createRunExecutionData({ executionData: null }),
		0,
		[],
		{ main: [[{ json: {} }]] },
		{ node, data: {}, source: null },
		[],
	);
	const routingNode = new RoutingNode(context, tempType, {
		id: 'cred-1',
		name: 'Messaging Relay account',
		type: credentialType.name,
		data: credentials,
	});
	let failure: { cause?: { response?: { status: number; statusText?: string } }; message: string } | undefined;
	await routingNode.runNode().then(
		() => undefined,
		(error) => (failure = error),
	);
	if (!failure) return { status: 'OK', message: 'Connection successful!' };
	const response = failure.cause?.response;
	if (response) {
		const rule = test.rules?.find(
			(r) => r.type === 'responseCode' && r.properties.value === response.status,
		);
		if (rule) return { status: 'Error', message: rule.properties.message };
		return { status: 'Error', message: response.statusText || `Received HTTP status code: ${response.status}` };
	}
	return { status: 'Error', message: failure.message };
}
