import type { IExecuteFunctions, ILoadOptionsFunctions, IPollFunctions } from 'n8n-workflow';
import { z } from 'zod';

import { parseResource, unwrapList } from './responses';
import { numberSchema, type RelayNumber } from './schemas/number';
import { relayApiRequest } from './transport';

const numberListSchema = z.array(numberSchema);

/**
 * All numbers of the account (`GET /v1/numbers`), in any of the response shapes the spec leaves
 * open. The spec shows no paging, so one request returns them all. Used by Number → Get Many,
 * the number picker and the Watch node.
 */
export async function listNumbers(
	this: IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions,
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
