/**
 * Runs a small workflow through n8n-core's WorkflowExecute the way n8n runs a webhook-started
 * execution: the trigger node is put on the execution stack with the items its webhook()
 * returned (n8n passes a webhook node's items through, workflow-execute.js), then every
 * connected node runs in turn and records its items with their pairing in the run data.
 */
import type {
	IConnections,
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	IRun,
} from 'n8n-workflow';
import { NodeConnectionTypes, Workflow } from 'n8n-workflow';

import { executeFrom, PackageNodeTypes, packageNode, TRIGGER_TYPE } from './n8nRuntime';

/** A stand-in for an intermediate node: maps each input item to output items, paired as n8n pairs them. */
export function mapNodeType(
	name: string,
	map: (items: INodeExecutionData[]) => INodeExecutionData[],
): INodeType {
	return {
		description: {
			displayName: name,
			name,
			group: ['transform'],
			version: 1,
			description: '',
			defaults: { name },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		async execute(this: IExecuteFunctions) {
			return [map(this.getInputData())];
		},
	};
}

/** What n8n's AI Agent does to each item: `{ output }`, paired with the prompt item (finalizeResult.js:18-21). */
export const agentStandIn = mapNodeType('agentStandIn', (items) =>
	items.map((item, index) => ({
		json: { output: `**Answer** to: ${String(item.json.chatInput ?? item.json.text ?? '')}` },
		pairedItem: { item: index },
	})),
);

/** Edit Fields-like: keeps only a note, so nothing of the message is left in the item. */
export const dropFields = mapNodeType('dropFields', (items) =>
	items.map((item, index) => ({
		json: { note: `step for ${String(item.json.output ?? index)}`, output: item.json.output },
		pairedItem: { item: index },
	})),
);

/** Reverses the items, with correct pairing: proves Reply follows pairing, not positions. */
export const reverseItems = mapNodeType('reverseItems', (items) =>
	items
		.map((_, index) => items.length - 1 - index)
		.map((from) => ({ json: { ...items[from].json }, pairedItem: { item: from } })),
);

export function triggerNodeFor(name = 'Messaging Relay Trigger'): INode {
	return packageNode(
		'trigger',
		name,
		TRIGGER_TYPE,
		{ events: ['message.received'] },
		{ webhookId: 'wf-runtime-webhook' },
	);
}

export function plainNode(name: string, type: string, position = 200): INode {
	return { id: name, name, type, typeVersion: 1, position: [position, 0], parameters: {} };
}

/** Connects the nodes in a line, first to last (output 0 → input 0). */
export function chain(...names: string[]): IConnections {
	const connections: IConnections = {};
	for (let i = 0; i < names.length - 1; i++) {
		connections[names[i]] = {
			main: [[{ node: names[i + 1], type: NodeConnectionTypes.Main, index: 0 }]],
		};
	}
	return connections;
}

export interface WorkflowRun {
	run: IRun;
	/** Items a node output (its first output), by node name. */
	output(nodeName: string): IDataObject[] | undefined;
	error: IRun['data']['resultData']['error'];
}

/** Runs `nodes` from `start`, which gets `startItems` as its webhook output. */
export async function runWorkflow(
	nodes: INode[],
	connections: IConnections,
	start: string,
	startItems: INodeExecutionData[][],
	credentials: ICredentialDataDecryptedObject,
	extraTypes: Record<string, INodeType> = {},
): Promise<WorkflowRun> {
	const workflow = new Workflow({
		id: 'wf-run',
		name: 'run',
		nodes,
		connections,
		active: false,
		nodeTypes: new PackageNodeTypes(extraTypes),
		settings: { executionOrder: 'v1' },
	});
	const run = await executeFrom(
		workflow,
		workflow.getNode(start) as INode,
		startItems,
		credentials,
		'webhook',
	);
	return {
		run,
		error: run.data.resultData.error,
		output: (name) =>
			run.data.resultData.runData[name]?.[0]?.data?.main?.[0]?.map((item) => item.json),
	};
}
