/**
 * Runs this package's nodes through n8n's real execution machinery from n8n-core: a Workflow
 * executed by WorkflowExecute, list searches through LoadOptionsContext, the credential test
 * through RoutingNode as n8n's CredentialsTester does it, and (for the trigger) HookContext and
 * WebhookContext. Only what needs n8n's server (database, encryption) is replaced by the small
 * in-memory classes below.
 */
import {
	ExecuteContext,
	ExecutionLifecycleHooks,
	LoadOptionsContext,
	RoutingNode,
	WorkflowExecute,
} from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { createRunExecutionData, ICredentialsHelper, Workflow } from 'n8n-workflow';

import { MessagingRelayApi } from '../../../credentials/MessagingRelayApi.credentials';
import { MessagingRelay } from '../../../nodes/MessagingRelay/MessagingRelay.node';
import { MessagingRelayTrigger } from '../../../nodes/MessagingRelayTrigger/MessagingRelayTrigger.node';

export const PACKAGE = 'n8n-nodes-messaging-relay';
export const ACTION_TYPE = `${PACKAGE}.messagingRelay`;
export const TRIGGER_TYPE = `${PACKAGE}.messagingRelayTrigger`;

const credentialType = new MessagingRelayApi();

/** Credentials held in memory; `authenticate` is the credential type's own function. */
export class InMemoryCredentialsHelper extends ICredentialsHelper {
	constructor(private data: ICredentialDataDecryptedObject) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		if (typeName !== credentialType.name) throw new Error(`Unknown credential type ${typeName}`);
		return await (credentialType.authenticate as NonNullable<ICredentialType['authenticate']> &
			((c: ICredentialDataDecryptedObject, r: IHttpRequestOptions) => Promise<IHttpRequestOptions>))(
			credentials,
			requestOptions,
		);
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by these nodes');
	}

	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		return { ...this.data };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties() {
		return credentialType.properties;
	}
}

export class PackageNodeTypes implements INodeTypes {
	private readonly types: Record<string, INodeType>;

	constructor(extra: Record<string, INodeType> = {}) {
		this.types = {
			[ACTION_TYPE]: new MessagingRelay(),
			[TRIGGER_TYPE]: new MessagingRelayTrigger(),
			...extra,
		};
	}

	getByName(name: string): INodeType | IVersionedNodeType {
		return this.getByNameAndVersion(name);
	}

	getByNameAndVersion(name: string): INodeType {
		const type = this.types[name];
		if (!type) throw new Error(`Unknown node type ${name}`);
		return type;
	}

	getKnownTypes() {
		return {};
	}
}

export function relayCredentials(
	baseUrl: string,
	apiKey = 'sim-key-full',
	authHeader: 'xApiKey' | 'bearer' = 'xApiKey',
): ICredentialDataDecryptedObject {
	return { baseUrl, apiKey, authHeader };
}

export function additionalDataFor(
	credentials: ICredentialDataDecryptedObject,
	hooks?: ExecutionLifecycleHooks,
	n8nBaseUrl = 'http://127.0.0.1:5678',
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: new InMemoryCredentialsHelper(credentials),
		hooks,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		executionId: 'exec-1',
		formBaseUrl: 'http://127.0.0.1:5678/form',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		formTestBaseUrl: 'http://127.0.0.1:5678/form-test',
		webhookBaseUrl: `${n8nBaseUrl}/webhook`,
		webhookWaitingBaseUrl: `${n8nBaseUrl}/webhook-waiting`,
		webhookTestBaseUrl: `${n8nBaseUrl}/webhook-test`,
		mcpBaseUrl: 'http://127.0.0.1:5678/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1:5678/mcp-test',
		variables: {},
		logAiEvent: async () => {},
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not used');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
	} as unknown as IWorkflowExecuteAdditionalData;
}

export function relayNode(parameters: INodeParameters, options: { continueOnFail?: boolean } = {}): INode {
	return {
		id: 'relay-node',
		name: 'Messaging Relay',
		type: ACTION_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { messagingRelayApi: { id: 'cred-1', name: 'Messaging Relay account' } },
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	};
}

export interface NodeRun {
	/** The node's output items, or undefined when it failed. */
	items: INodeExecutionData[] | undefined;
	/** The error the execution ended with, as n8n stores it. */
	error: IRun['data']['resultData']['error'];
	run: IRun;
}

/**
 * Executes one Messaging Relay node on `input` items with WorkflowExecute, as n8n does when a
 * workflow runs, and returns what n8n recorded for it.
 */
export async function runActionNode(
	node: INode,
	credentials: ICredentialDataDecryptedObject,
	input: IDataObject[] = [{}],
	mode: WorkflowExecuteMode = 'manual',
): Promise<NodeRun> {
	const nodeTypes = new PackageNodeTypes();
	const workflow = new Workflow({
		id: 'wf-test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
	});
	const hooks = new ExecutionLifecycleHooks(mode, 'exec-1', {
		id: 'wf-test',
		name: 'test',
		nodes: [node],
		connections: {},
		active: false,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	});
	let finished!: (run: IRun) => void;
	const done = new Promise<IRun>((resolve) => (finished = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => finished(run));

	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node, data: { main: [input.map((json) => ({ json }))] }, source: null }],
		},
	});

	const execute = new WorkflowExecute(additionalDataFor(credentials, hooks), mode, runExecutionData);
	await execute.processRunExecutionData(workflow);
	const run = await done;
	const taskData = run.data.resultData.runData[node.name]?.[0];
	return {
		items: taskData?.data?.main?.[0] ?? undefined,
		error: run.data.resultData.error,
		run,
	};
}

/** Calls a list-search method the way the editor does, through LoadOptionsContext. */
export async function runListSearch(
	node: INode,
	credentials: ICredentialDataDecryptedObject,
	method: string,
	filter?: string,
) {
	const nodeTypes = new PackageNodeTypes();
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const context = new LoadOptionsContext(workflow, node, additionalDataFor(credentials), 'parameters.channelId');
	const type = nodeTypes.getByNameAndVersion(node.type);
	const search = type.methods?.listSearch?.[method];
	if (!search) throw new Error(`No list search ${method}`);
	return await search.call(context, filter);
}

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
