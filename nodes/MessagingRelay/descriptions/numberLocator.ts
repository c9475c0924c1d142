import type { INodeProperties } from 'n8n-workflow';

/**
 * A number picked From List (searched over `GET /v1/numbers`) or By ID. Shared by Message →
 * Send and Number → Get so both pick numbers the same way.
 */
export function numberLocator(
	overrides: Pick<INodeProperties, 'displayName' | 'name' | 'description' | 'displayOptions'>,
): INodeProperties {
	return {
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a number...',
				typeOptions: { searchListMethod: 'searchNumbers', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. num_main',
				// No `validation` regex here on purpose: n8n checks every node's parameters before each
				// run (workflow-execute.js checkReadyForExecution) and runs such a regex in a vm with a
				// 250 ms time-out (n8n-workflow safe-regex.js); on a CPU-starved worker that time-out
				// failed whole executions. requireId (validation.ts) checks the ID in the node.
			},
		],
		...overrides,
	};
}
