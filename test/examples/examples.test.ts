/**
 * The shipped example workflows (examples/*.json) are what a user should import: each node of this
 * package at the version n8n gives a new node (a trigger at its `defaultVersion`, which answers
 * the service when the workflow finishes), nothing that exists only in the relay simulator (its
 * keys, accounts, number ids, phones), no phone number at all (whose phone to alert is the user's
 * to know), and the values only the user can know left empty where n8n marks them: the required
 * *From Number* and *To* of the alerts, so that the editor marks the node and publishing is refused
 * until they are picked (docs/examples.md). The stack fills them for the simulator
 * (test/support/examples.ts); filled, no node has an issue left.
 */
/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
import { readdirSync } from 'node:fs';

import { NodeHelpers, type INodeType, type INode, type IVersionedNodeType } from 'n8n-workflow';

import { MessagingRelay } from '../../nodes/MessagingRelay/MessagingRelay.node';
import { MessagingRelayTrigger } from '../../nodes/MessagingRelayTrigger/MessagingRelayTrigger.node';
import { MessagingRelayWatch } from '../../nodes/MessagingRelayWatch/MessagingRelayWatch.node';
import { defaultKeys, defaultNumbers } from '../simulator/accounts';
import { choicesLeftToUser, EXAMPLE_FILES, filledForSimulator, readExample, SIMULATOR_CHOICES } from '../support/examples';
import { readJson, repoPath } from '../support/repo';
import { NODE_TYPES, type WorkflowData } from '../support/workflows';

const NODES: Record<string, INodeType | IVersionedNodeType> = {
	[NODE_TYPES.trigger]: new MessagingRelayTrigger(),
	[NODE_TYPES.action]: new MessagingRelay(),
	[NODE_TYPES.watch]: new MessagingRelayWatch(),
};

/** A node type as n8n uses it for a node at `version` (a versioned type holds one per version set). */
function atVersion(type: INodeType | IVersionedNodeType, version?: number): INodeType {
	return 'nodeVersions' in type ? type.getNodeType(version) : type;
}

/** The version n8n gives a node added in the editor: `defaultVersion`, else the newest. */
function newNodeVersion(type: INodeType | IVersionedNodeType): number {
	if (type.description.defaultVersion !== undefined) return type.description.defaultVersion;
	const { version } = atVersion(type).description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

/** Every string value in a node's parameters, with where it is. */
function strings(value: unknown, path: string): Array<{ path: string; value: string }> {
	if (typeof value === 'string') return [{ path, value }];
	if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${path}[${i}]`));
	if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, `${path}.${k}`));
	return [];
}

const digits = (phone: string) => phone.replace(/\D/g, '');

/** What the simulator serves and a real account does not have: its keys, accounts, number ids, phones. */
function simulatorOnly(): { ids: Set<string>; phones: Set<string> } {
	const keys = defaultKeys();
	const numbers = defaultNumbers();
	const samplePhones = strings(readJson('test', 'fixtures', 'sample-events.json'), '')
		.map((s) => s.value)
		.filter((v) => /^\+?\d{7,15}(@c\.us)?$/.test(v));
	return {
		ids: new Set([...Object.keys(keys), ...Object.values(keys).map((k) => k.account), ...numbers.map((n) => n.id)]),
		phones: new Set([...numbers.flatMap((n) => [String(n.declaredNumber ?? ""), String(n.pairedNumber ?? "")]), ...samplePhones].map(digits)),
	};
}

/** A phone number in a text: `+` and 7 to 15 digits (`+49 176 …`), or 7 to 15 digits in a row (`4917…@c.us`). */
const PHONE = /\+\d[\d ().-]{5,18}\d|\b\d{7,15}\b/g;
const phonesIn = (text: string) => [...text.matchAll(PHONE)].map((m) => m[0]).filter((p) => digits(p).length >= 7 && digits(p).length <= 15);

/** The nodes of this package whose parameters n8n (editor and publishing) reports as having issues, and which. */
function parameterIssues(example: WorkflowData): Record<string, string[]> {
	const found: Record<string, string[]> = {};
	for (const node of example.nodes) {
		const versioned = NODES[node.type as string];
		if (!versioned) continue;
		const type = atVersion(versioned, node.typeVersion as number);
		const issues = NodeHelpers.getNodeParametersIssues(type.description.properties, node as unknown as INode, type.description);
		if (issues?.parameters) found[node.name as string] = Object.keys(issues.parameters);
	}
	return found;
}

test('the examples folder holds exactly the examples the support knows', () => {
	expect(readdirSync(repoPath('examples')).sort()).toEqual([...EXAMPLE_FILES].sort());
});

describe.each(EXAMPLE_FILES)('%s', (file) => {
	const example = readExample(file);
	const ours = example.nodes.filter((node) => NODES[node.type as string]);

	test('each node of this package is at the version a new node gets (a trigger at its defaultVersion)', () => {
		expect(ours.length).toBeGreaterThan(0);
		const versions = ours.map((node) => ({ node: node.name, typeVersion: node.typeVersion }));
		expect(versions).toEqual(ours.map((node) => ({ node: node.name, typeVersion: newNodeVersion(NODES[node.type as string]) })));
	});

	test('nothing that exists only in the simulator: no key, account, number id or phone of its', () => {
		const { ids, phones } = simulatorOnly();
		const values = example.nodes.flatMap((node) => strings(node.parameters, `${node.name as string}.parameters`));
		expect(values.filter(({ value }) => ids.has(value) || [...ids].some((id) => value.includes(id)))).toEqual([]);
		expect(values.filter(({ value }) => phonesIn(value).some((p) => phones.has(digits(p))))).toEqual([]);
	});

	test('no phone number: whom to alert is the user\'s to know', () => {
		const values = example.nodes.flatMap((node) => strings(node.parameters, `${node.name as string}.parameters`));
		expect(values.filter(({ value }) => phonesIn(value).length > 0)).toEqual([]);
	});

	test('what only the user can know is left empty where n8n marks it: the alert\'s From Number and To', () => {
		const choices = choicesLeftToUser(example);
		const expected: Record<string, string[]> = {};
		for (const { node, parameter } of choices) (expected[node] ??= []).push(parameter);
		expect(parameterIssues(example)).toEqual(expected);
		if (file === 'disconnect-alert.json' || file === 'number-watch.json') {
			expect(expected).toEqual({ 'Alert the operator': ['channelId', 'to'] });
		} else {
			// The assistant, the auto-reply and the appointment answer on the trigger's chat: nothing to pick.
			expect(expected).toEqual({});
		}
	});

	test('filled in with the simulator\'s choices, no node has an issue and nothing else changed', () => {
		const filled = filledForSimulator(example);
		expect(parameterIssues(filled)).toEqual({});
		expect(choicesLeftToUser(filled)).toEqual([]);
		const changed = filled.nodes.filter((node, i) => JSON.stringify(node) !== JSON.stringify(example.nodes[i])).map((n) => n.name);
		expect(changed).toEqual([...new Set(choicesLeftToUser(example).map((c) => c.node))]);
		for (const node of filled.nodes.filter((n) => changed.includes(n.name))) {
			expect(node.parameters).toMatchObject({ channelId: { mode: 'id', value: SIMULATOR_CHOICES.fromNumber }, to: SIMULATOR_CHOICES.operatorPhone });
		}
	});
});

test('the phone and id checks find what they look for', () => {
	expect(phonesIn('to +4917600000099, or +49 176 1234 5678, or 4917612345678@c.us')).toEqual(['+4917600000099', '+49 176 1234 5678', '4917612345678']);
	expect(phonesIn('open 8:00–18:00, 2026-11-20, uuid 7c1e4b10-5a2d-4f3e-9b61-2d4c6e8fa001, 2 hours')).toEqual([]);
	const { ids, phones } = simulatorOnly();
	expect([...ids]).toEqual(expect.arrayContaining(['num_sales', 'num_main', 'acct_main', 'sim-key-full']));
	expect(phones.has('4915112345678')).toBe(true);
});
