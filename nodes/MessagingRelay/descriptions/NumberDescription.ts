import type { INodeProperties } from 'n8n-workflow';

import { numberLocator } from './numberLocator';

export const numberOperations: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['number'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				action: 'Get a number',
				description: 'Get a number with its status and the health of its phone link',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				action: 'Get many numbers',
				description: 'List the numbers of the account',
			},
		],
		default: 'get',
	},
];

export const numberFields: INodeProperties[] = [
	numberLocator({
		displayName: 'Number',
		name: 'numberId',
		description: 'The number to read',
		displayOptions: { show: { resource: ['number'], operation: ['get'] } },
	}),
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
		displayOptions: { show: { resource: ['number'], operation: ['getAll'] } },
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		default: 50,
		typeOptions: { minValue: 1 },
		description: 'Max number of results to return',
		displayOptions: { show: { resource: ['number'], operation: ['getAll'], returnAll: [false] } },
	},
];
