import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { listNumbers } from '../../shared/numbersApi';
import { asItemJson, parseResource, unwrapObject } from '../../shared/responses';
import { numberSchema } from '../../shared/schemas/number';
import { relayApiRequest } from '../../shared/transport';
import { requireId } from '../validation';

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
