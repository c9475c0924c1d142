/**
 * Runs this package's nodes through n8n's real execution machinery from n8n-core: a Workflow
 * executed by WorkflowExecute, list searches through LoadOptionsContext (the credential test:
 * credentialTestRuntime.ts; the trigger's HookContext and WebhookContext: triggerRuntime.ts).
 * Only what needs n8n's server (database, encryption) is replaced by the small in-memory classes
 * below.
 */
import {
	ExecuteContext,
	ExecutionLifecycleHooks,
	LoadOptionsContext,
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
import { createRunExecutionData, ICredentialsHelper, NodeHelpers, Workflow } from 'n8n-workflow';

import { MessagingRelayApi } from '../../../credentials/MessagingRelayApi.credentials';
import { MessagingRelay } from '../../../nodes/MessagingRelay/MessagingRelay.node';
import { MessagingRelayTrigger } from '../../../nodes/MessagingRelayTrigger/MessagingRelayTrigger.node';
import type { MessagingRelayTriggerVersion } from '../../../nodes/MessagingRelayTrigger/triggerVersion';
import { NODE_TYPES } from '../workflows';

export const ACTION_TYPE = NODE_TYPES.action;
export const TRIGGER_TYPE = NODE_TYPES.trigger;

export const credentialType = new MessagingRelayApi();

const triggerTypes = new MessagingRelayTrigger();

/** The trigger's node type at a version, the one n8n runs for a node of that typeVersion. */
export const triggerAt = (version: number) =>
	triggerTypes.getNodeType(version) as MessagingRelayTriggerVersion;

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
		return await (
			credentialType.authenticate as NonNullable<ICredentialType['authenticate']> &
				((
					c: ICredentialDataDecryptedObject,
					r: IHttpRequestOptions,
				) => Promise<IHttpRequestOptions>)
		)(credentials, requestOptions);
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
	private readonly types: Record<string, INodeType | IVersionedNodeType>;

	constructor(extra: Record<string, INodeType> = {}) {
		this.types = {
			[ACTION_TYPE]: new MessagingRelay(),
			[TRIGGER_TYPE]: triggerTypes,
			...extra,
		};
	}

	getByName(name: string): INodeType | IVersionedNodeType {
		return this.getByNameAndVersion(name);
	}

	getByNameAndVersion(name: string, version?: number): INodeType {
		const type = this.types[name];
		if (!type) throw new Error(`Unknown node type ${name}`);
		return NodeHelpers.getVersionedNodeType(type, version);
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

/** A node of this package in a test workflow, on the one Messaging Relay credential ('cred-1'). */
export function packageNode(
	id: string,
	name: string,
	type: string,
	parameters: INodeParameters,
	extra: Partial<INode> = {},
): INode {
	return {
		id,
		name,
		type,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { messagingRelayApi: { id: 'cred-1', name: 'Messaging Relay account' } },
		...extra,
	};
}

export function relayNode(
	parameters: INodeParameters,
	options: { continueOnFail?: boolean } = {},
): INode {
	return packageNode(
		'relay-node',
		'Messaging Relay',
		ACTION_TYPE,
		parameters,
		options.continueOnFail ? { onError: 'continueRegularOutput' } : {},
	);
}

export interface NodeRun {
	/** The node's output items, or undefined when it failed. */
	items: INodeExecutionData[] | undefined;
	/** The error the execution ended with, as n8n stores it. */
	error: IRun['data']['resultData']['error'];
	run: IRun;
}

/**
 * Runs a Workflow with n8n-core's WorkflowExecute as n8n runs an execution: `startNode` is put on
 * the execution stack with `startItems` (a trigger's items as its output), then every connected
 * node runs in turn. Returns what n8n recorded once the execution finished.
 */
export async function executeFrom(
	workflow: Workflow,
	startNode: INode,
	startItems: INodeExecutionData[][],
	credentials: ICredentialDataDecryptedObject,
	mode: WorkflowExecuteMode,
	/** n8n's address as the nodes see it (a trigger's webhook URL is built on it). */
	n8nBaseUrl?: string,
	executionId = 'exec-1',
): Promise<IRun> {
	const hooks = new ExecutionLifecycleHooks(mode, executionId, {
		id: workflow.id,
		name: workflow.name ?? 'test',
		nodes: Object.values(workflow.nodes),
		connections: workflow.connectionsBySourceNode,
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
			nodeExecutionStack: [{ node: startNode, data: { main: startItems }, source: null }],
		},
	});
	await new WorkflowExecute(
		{ ...additionalDataFor(credentials, hooks, n8nBaseUrl), executionId },
		mode,
		runExecutionData,
	).processRunExecutionData(workflow);
	return await done;
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
	const workflow = new Workflow({
		id: 'wf-test',
		name: 'test',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new PackageNodeTypes(),
	});
	const run = await executeFrom(
		workflow,
		node,
		[input.map((json) => ({ json }))],
		credentials,
		mode,
	);
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
	const context = new LoadOptionsContext(
		workflow,
		node,
		additionalDataFor(credentials),
		'parameters.channelId',
	);
	const type = nodeTypes.getByNameAndVersion(node.type);
	const search = type.methods?.listSearch?.[method];
	if (!search) throw new Error(`No list search ${method}`);
	return await search.call(context, filter);
}

/** n8n-core's logger, as every node context reaches it: spy on it to read what a node logs. */
export function coreLogger(): Pick<Console, 'error' | 'warn'> {
	const node = relayNode({});
	const input = { main: [[{ json: {} }]] };
	const workflow = new Workflow({
		id: 'wf-log',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new PackageNodeTypes(),
	});
	const context = new ExecuteContext(
		workflow,
		node,
		additionalDataFor(relayCredentials('http://127.0.0.1:1')),
		'manual',
		createRunExecutionData({ executionData: null }),
		0,
		[],
		input,
		{ node, data: input, source: null },
		[],
	);
	return context.logger as unknown as Pick<Console, 'error' | 'warn'>;
}
