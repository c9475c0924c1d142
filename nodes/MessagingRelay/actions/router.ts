import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, SEND_AND_WAIT_OPERATION } from 'n8n-workflow';

import { executeAutomaticReplies } from './automaticReplies';
import { executeMessages } from './message';
import { executeNumber } from './number';
import { executeSendAndWait } from './sendAndWait/sendAndWait';
import { executeWebhook } from './webhook';

/**
 * The action node's one door (as n8n's versioned nodes route, `actions/router.ts`): resource and operation
 * are read once (neither takes an expression) and looked up in ROUTES. An operation takes the whole input
 * (a batch: Send and Reply check every item first, then send several at once) or runs item by item.
 */
type ItemOperation = (
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
) => Promise<IDataObject | IDataObject[]>;

type Route =
	| { runs: 'batch'; execute: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]> }
	| { runs: 'perItem'; execute: ItemOperation };

const perItem = (execute: ItemOperation): Route => ({ runs: 'perItem', execute });
const messages = (operation: 'send' | 'reply'): Route => ({
	runs: 'batch',
	execute: async function (this: IExecuteFunctions) {
		return [await executeMessages.call(this, operation)];
	},
});

/** Every operation the node's description offers, and how it runs (router.test.ts keeps the two equal). */
export const ROUTES: Record<string, Record<string, Route>> = {
	message: {
		send: messages('send'),
		reply: messages('reply'),
		[SEND_AND_WAIT_OPERATION]: { runs: 'batch', execute: executeSendAndWait },
		pauseReplies: perItem(executeAutomaticReplies),
		resumeReplies: perItem(executeAutomaticReplies),
	},
	number: { get: perItem(executeNumber), getAll: perItem(executeNumber) },
	webhook: {
		get: perItem(executeWebhook),
		set: perItem(executeWebhook),
		delete: perItem(executeWebhook),
	},
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const route = ROUTES[resource]?.[operation];
	if (!route) {
		throw new NodeOperationError(
			this.getNode(),
			`Unknown operation "${operation}" of resource "${resource}"`,
			{ description: 'Pick the resource and the operation again in the node.' },
		);
	}
	if (route.runs === 'batch') return await route.execute.call(this);
	return [await eachItem.call(this, route.execute, operation)];
}

/** An item-by-item operation: one output item (or several) per input item, paired with it. */
async function eachItem(
	this: IExecuteFunctions,
	execute: ItemOperation,
	operation: string,
): Promise<INodeExecutionData[]> {
	const items = this.getInputData();
	const returnData: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const result = await execute.call(this, operation, itemIndex);
			returnData.push(
				...this.helpers.constructExecutionMetaData(this.helpers.returnJsonArray(result), {
					itemData: { item: itemIndex },
				}),
			);
		} catch (error) {
			if (this.continueOnFail()) {
				const { message, description } = error as { message: string; description?: string };
				returnData.push({
					json: { error: message, ...(description ? { description } : {}) },
					pairedItem: { item: itemIndex },
				});
				continue;
			}
			// Our own errors already say what to do; anything else is wrapped so n8n shows it
			// with the node and item it came from.
			throw error instanceof NodeApiError || error instanceof NodeOperationError
				? error
				: new NodeOperationError(this.getNode(), error as Error, { itemIndex });
		}
	}
	return returnData;
}
