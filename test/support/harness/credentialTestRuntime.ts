import { CredentialTestContext, ExecuteContext, RoutingNode } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunction,
	ICredentialTestRequest,
	ICredentialType,
	INode,
	INodeCredentialTestResult,
	INodeType,
} from 'n8n-workflow';
import { createRunExecutionData, VersionedNodeType, Workflow } from 'n8n-workflow';

import { MessagingRelay } from '../../../nodes/MessagingRelay/MessagingRelay.node';
import { MessagingRelayTrigger } from '../../../nodes/MessagingRelayTrigger/MessagingRelayTrigger.node';
import { MessagingRelayWatch } from '../../../nodes/MessagingRelayWatch/MessagingRelayWatch.node';
import { additionalDataFor, credentialType, PackageNodeTypes } from './n8nRuntime';

/** The nodes of the package that declare the credential, as n8n lists its supported nodes. */
export const packageNodeTypes = (): Array<INodeType | VersionedNodeType> => [
	new MessagingRelay(),
	new MessagingRelayTrigger(),
	new MessagingRelayWatch(),
];

const credentialRef = { id: 'cred-1', name: 'Messaging Relay account' };

/**
 * The credential's test as n8n's CredentialsTester.getCredentialTestFunction finds it (n8n 2.41.1
 * n8n/dist/services/credentials-tester.service.js:79-142, 1.123.81 :100-157): the credential's
 * declared `test` first; else the first node whose credential entry has a `testedBy`, in a
 * versioned node the newest version that has the method.
 */
export function findCredentialTest(): ICredentialTestRequest | ICredentialTestFunction | undefined {
	const declared = (credentialType as ICredentialType).test;
	if (declared) return declared;
	for (const node of packageNodeTypes()) {
		const versions = node instanceof VersionedNodeType ? Object.values(node.nodeVersions) : [node];
		for (const version of versions) {
			const entry = version.description.credentials?.find(
				(c) => c.name === credentialType.name && c.testedBy,
			);
			if (!entry) continue;
			if (typeof entry.testedBy !== 'string') return entry.testedBy;
			if (node instanceof VersionedNodeType) {
				const keys = Object.keys(node.nodeVersions).sort().reverse();
				for (const key of keys) {
					const tests = (node.nodeVersions[Number(key)] as INodeType).methods?.credentialTest;
					if (tests && entry.testedBy in tests) return tests[entry.testedBy];
				}
			}
			return (node as INodeType).methods?.credentialTest?.[entry.testedBy];
		}
	}
	return undefined;
}

/**
 * Runs the credential's test the way n8n's CredentialsTester does and returns what the editor
 * shows after "Test" / "Save". A test function runs with n8n-core's own CredentialTestContext
 * (2.41.1 credentials-tester.service.js:210-221); a declared test request becomes the routing of a
 * temporary node that RoutingNode sends, a refusal matched against its `rules` by the status n8n
 * reads from `error.cause.response` (:256-393).
 */
export async function runCredentialTest(
	credentials: ICredentialDataDecryptedObject,
): Promise<INodeCredentialTestResult> {
	const test = findCredentialTest();
	if (test === undefined)
		return { status: 'Error', message: 'No testing function found for this credential.' };
	if (typeof test === 'function') {
		const context = new CredentialTestContext(additionalDataFor(credentials));
		return await test.call(context, {
			...credentialRef,
			type: credentialType.name,
			data: { ...credentials },
		});
	}
	return await runDeclaredTest(test, credentials);
}

async function runDeclaredTest(
	test: ICredentialTestRequest,
	credentials: ICredentialDataDecryptedObject,
): Promise<INodeCredentialTestResult> {
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
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: test.request },
					default: '',
				},
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
		credentials: { [credentialType.name]: credentialRef },
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
		...credentialRef,
		type: credentialType.name,
		data: credentials,
	});
	let failure:
		| { cause?: { response?: { status: number; statusText?: string } }; message: string }
		| undefined;
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
		return {
			status: 'Error',
			message: response.statusText || `Received HTTP status code: ${response.status}`,
		};
	}
	return { status: 'Error', message: failure.message };
}
