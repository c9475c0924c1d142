/**
 * The shipped example workflows (examples/*.json), and the one place that fills in what only a
 * user can know when an example runs against the relay simulator.
 *
 * The examples leave the number an alert is sent from (*From Number*) and the operator's phone
 * (*To*) empty: they are required, so n8n's editor marks the node and publishing is refused until
 * the user picks them (docs/examples.md). `npm start`, the
 * end-to-end suites and the pictures fill them with the simulator's values here.
 */
import type { IDataObject } from 'n8n-workflow';

import { readJson } from './repo';
import { NODE_TYPES, type WorkflowData } from './workflows';

export const EXAMPLE_FILES = [
	'auto-reply.json',
	'appointment-confirmation.json',
	'disconnect-alert.json',
	'ai-assistant.json',
	'number-watch.json',
] as const;
export type ExampleFile = (typeof EXAMPLE_FILES)[number];

/**
 * What a user picks in the simulator: the alert goes out from `num_sales` (another number than
 * the one that disconnects in the sample events, num_main) to this operator's phone.
 */
export const SIMULATOR_CHOICES = {
	fromNumber: 'num_sales',
	operatorPhone: '+4917600000099',
};

/** An example as shipped (a fresh copy: callers may change it). */
export const readExample = (file: ExampleFile): WorkflowData =>
	readJson<WorkflowData>('examples', file);

const isEmpty = (value: unknown) =>
	value === undefined ||
	value === '' ||
	(typeof value === 'object' && value !== null && (value as IDataObject).value === '');

/** A parameter of a node that the example leaves for the user to fill in. */
export interface Choice {
	node: string;
	parameter: 'channelId' | 'to';
}

/** What the example leaves empty for the user: each Message → Send's *From Number* and *To*. */
export function choicesLeftToUser(example: WorkflowData): Choice[] {
	return example.nodes.flatMap((node) => {
		const parameters = node.parameters as IDataObject;
		if (node.type !== NODE_TYPES.action || parameters.operation !== 'send') return [];
		return (['channelId', 'to'] as const)
			.filter((name) => isEmpty(parameters[name]))
			.map((parameter) => ({ node: node.name as string, parameter }));
	});
}

const SIMULATOR_VALUES: Record<Choice['parameter'], unknown> = {
	channelId: { __rl: true, mode: 'id', value: SIMULATOR_CHOICES.fromNumber },
	to: SIMULATOR_CHOICES.operatorPhone,
};

/**
 * The example with what it leaves to the user (choicesLeftToUser) set to the simulator's choices;
 * every other value as shipped. An example with nothing to fill comes back unchanged.
 */
export function filledForSimulator(example: WorkflowData): WorkflowData {
	const choices = choicesLeftToUser(example);
	const nodes = example.nodes.map((node) => {
		const mine = choices.filter((choice) => choice.node === node.name);
		if (!mine.length) return node;
		const filled = Object.fromEntries(
			mine.map((choice) => [choice.parameter, SIMULATOR_VALUES[choice.parameter]]),
		);
		return { ...node, parameters: { ...(node.parameters as IDataObject), ...filled } };
	});
	return { ...example, nodes };
}

/** An example as a user has it against the simulator, once they filled in what it asks for. */
export const exampleForSimulator = (file: ExampleFile): WorkflowData =>
	filledForSimulator(readExample(file));
