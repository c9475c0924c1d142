import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listNumbers } from '../shared/numbersApi';
import { describeConnection } from '../shared/schemas/number';

/**
 * "From List" for number pickers: each number shows its name, the phone it is paired with and
 * whether it can send right now, so a user does not pick a line that lost its link.
 */
export async function searchNumbers(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const numbers = await listNumbers.call(this);
	const needle = filter?.trim().toLowerCase() ?? '';
	const results = numbers
		.map((number) => {
			const phone = number.pairedNumber ?? number.declaredNumber ?? '';
			const label = number.displayName || number.id;
			return {
				name: `${label}${phone ? ` (${phone})` : ''} · ${describeConnection(number)}`,
				value: number.id,
			};
		})
		.filter(
			(entry) =>
				needle === '' ||
				entry.name.toLowerCase().includes(needle) ||
				entry.value.toLowerCase().includes(needle),
		);
	return { results };
}
