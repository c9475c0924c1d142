import type { IDataObject, IExecuteFunctions, ILoadOptionsFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { z } from 'zod';

import { asItemJson, parseResource, unwrapList, unwrapObject } from '../../shared/responses';
import { numberSchema, type RelayNumber } from '../../shared/schemas/number';
import { relayApiRequest } from '../../shared/transport';
import { requireId } from '../../shared/validation';

const numberListSchema = z.array(numberSchema);

/** All numbers of the account. The spec shows no paging, so one request returns them all. */
export async function listNumbers(
	this: IExecuteFunctions | ILoadOptionsFunctions,
	itemIndex?: number,
): Promise<RelayNumber[]> {
	const { body } = await relayApiRequest.call(this, {
		method: 'GET',
		path: '/v1/numbers',
		scope: 'numbers:read',
		itemIndex,
	});
	const list = unwrapList(body, ['numbers', 'data', 'items', 'results']);
	return parseResource(this.getNode(), numberListSchema, list, 'the list of numbers', itemIndex);
}

export async function executeNumber(
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
): Promise<IDataObject | IDataObject[]> {
	if (operation === 'get') {
		const id = requireId(
			this.getNode(),
			this.getNodeParameter('numberId', itemIndex, '', { extractValue: true }),
			'Number',
			itemIndex,
		);
		const { body } = await relayApiRequest.call(this, {
			method: 'GET',
			path: `/v1/numbers/${encodeURIComponent(id)}`,
			scope: 'numbers:read',
			itemIndex,
		});
		const number = unwrapObject(body, ['number', 'data']);
		return asItemJson(parseResource(this.getNode(), numberSchema, number, 'a number', itemIndex));
	}

	if (operation === 'getAll') {
		const numbers = await listNumbers.call(this, itemIndex);
		const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
		if (returnAll) return numbers.map(asItemJson);
		const limit = this.getNodeParameter('limit', itemIndex) as number;
		return numbers.slice(0, limit).map(asItemJson);
	}

	throw new NodeOperationError(this.getNode(), `Unknown number operation "${operation}"`, {
		itemIndex,
	});
}
