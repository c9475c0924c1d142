/**
 * n8n reads the trigger's webhook description on every delivery (n8n 2.41.1
 * n8n/dist/webhooks/webhook-helpers.js:423, 839-845): an expression there is evaluated per delivery,
 * and with lazy acquire that is the expression isolate the delivery would otherwise not build
 * (issue 27: version 3's expressions, shared by every version, cost every trigger its speed). So no
 * version's description may hold an expression that its settings do not need, and the ones a
 * version needs must be resolved by n8n without the engine (n8n-workflow
 * webhook-description-fields.js:93-111, what webhook-execution-context.js:13-27 calls first).
 */
import type {
	INodeParameters,
	INodeProperties,
	INodeType,
	IWebhookDescription,
} from 'n8n-workflow';
import {
	NodeHelpers,
	resolveWebhookDescriptionField,
	webhookDescriptionIsNativelyResolvable,
	Workflow,
} from 'n8n-workflow';

import { MessagingRelayTrigger } from '../../../nodes/MessagingRelayTrigger/MessagingRelayTrigger.node';
import { PackageNodeTypes, TRIGGER_TYPE, packageNode } from '../../support/harness/n8nRuntime';

const triggerType = new MessagingRelayTrigger() as unknown as INodeType;
const versionsOf = (type: INodeType): number[] =>
	'nodeVersions' in type
		? Object.keys((type as unknown as { nodeVersions: object }).nodeVersions).map(Number)
		: ([] as number[]).concat(type.description.version);
const VERSIONS = versionsOf(triggerType);

const descriptionAt = (version: number) =>
	NodeHelpers.getVersionedNodeType(triggerType, version).description;
const webhookAt = (version: number) => descriptionAt(version).webhooks![0];

/** The trigger node in a workflow, its parameters completed with the defaults as n8n does. */
function nodeIn(version: number, parameters: INodeParameters) {
	const node = packageNode('trigger', 'Trigger', TRIGGER_TYPE, parameters, {
		typeVersion: version,
	});
	const workflow = new Workflow({
		id: 'wf',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes: new PackageNodeTypes(),
	});
	return { workflow, node: workflow.getNode('Trigger')! };
}

/** What n8n's expression engine makes of a description field for these parameters. */
function evaluated(
	version: number,
	field: keyof IWebhookDescription,
	parameters: INodeParameters,
): unknown {
	const { workflow, node } = nodeIn(version, parameters);
	return workflow.expression.getComplexParameterValue(
		node,
		webhookAt(version)[field] as string,
		'webhook',
		{},
	);
}

/** Every choice of every top-level option the version shows: the settings its description can depend on. */
function settingsOf(version: number): INodeParameters[] {
	const { node } = nodeIn(version, {});
	const shown = (descriptionAt(version).properties as INodeProperties[]).filter(
		(p) =>
			p.type === 'options' &&
			NodeHelpers.displayParameter(node.parameters, p, node, descriptionAt(version)),
	);
	return [
		{},
		...shown.flatMap((p) =>
			(p.options as Array<{ value: string }>).map((o) => ({ [p.name]: o.value })),
		),
	];
}

const expressionFields = (version: number) =>
	Object.entries(webhookAt(version))
		.filter(([, value]) => typeof value === 'string' && value.startsWith('='))
		.map(([field]) => field as keyof IWebhookDescription);

describe('no version of the trigger evaluates an expression per delivery that its settings do not need', () => {
	test('the trigger has versions 1, 2 and 3', () => {
		expect(VERSIONS).toEqual([1, 2, 3]);
	});

	test.each(VERSIONS)(
		'version %i: each expression in its webhook description depends on a setting the version has',
		(version) => {
			for (const field of expressionFields(version)) {
				const values = new Set(
					settingsOf(version).map((parameters) =>
						JSON.stringify(evaluated(version, field, parameters)),
					),
				);
				// One value whatever the settings: a plain string would do, without an expression per delivery.
				expect({
					version,
					field,
					values: [...values],
					dependsOnSettings: values.size > 1,
				}).toMatchObject({ version, field, dependsOnSettings: true });
			}
		},
	);

	test.each(VERSIONS)(
		'version %i: n8n 2.41 resolves its webhook description without the expression engine',
		(version) => {
			const description = webhookAt(version);
			expect(webhookDescriptionIsNativelyResolvable(description)).toBe(true);
			for (const settings of settingsOf(version)) {
				const { node } = nodeIn(version, settings);
				for (const field of expressionFields(version)) {
					const native = resolveWebhookDescriptionField(node, description, String(field));
					// The resolver gives what the template gives (the editor and n8n 1.123 evaluate the template).
					expect({ field, settings, native }).toEqual({
						field,
						settings,
						native: { resolved: true, value: evaluated(version, field, settings) },
					});
				}
			}
		},
	);

	test('the answers stay: versions 1 and 2 when the run starts, version 3 when it finishes unless set to when it starts', () => {
		const answer = (version: number, parameters: INodeParameters) => ({
			responseMode: evaluated(version, 'responseMode', parameters),
			responseData: evaluated(version, 'responseData', parameters),
		});
		const started = { responseMode: 'onReceived', responseData: '' };
		expect(answer(1, {})).toEqual(started);
		expect(answer(2, {})).toEqual(started);
		expect(answer(3, {})).toEqual({ responseMode: 'lastNode', responseData: 'noData' });
		expect(answer(3, { acknowledge: 'whenFinished' })).toEqual({
			responseMode: 'lastNode',
			responseData: 'noData',
		});
		expect(answer(3, { acknowledge: 'whenStarted' })).toEqual(started);
		// A version 1 or 2 node that somehow holds the version 3 parameter still answers when the run starts.
		expect(answer(2, { acknowledge: 'whenFinished' })).toEqual(started);
	});
});
