/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The package's own unions say what happened in identifiers, not in sentences (issue 43, "the
 * triggers' own protocol is stringly typed": kinds such as `'answered a waiting run'` read like a
 * reason, and a reason is what a reader compares as text). Checked on the source: every string
 * literal type of a union, and every `kind`, in nodes/ is a single word. Values a user sees in an output item keep
 * their words, and are named here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

import ts from 'typescript';

import { repoRoot } from '../support/repo';

/** Unions whose values reach the user as they are (an output field of the Watch node and the actions). */
const SHOWN_TO_USERS = new Set(['NumberConnection']);

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sources(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

/** Each string literal of a union type in `text` that is not one word, with the type it belongs to. */
export function sentencesInUnions(file: string, text: string): string[] {
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node, alias: string | undefined) => {
		const name = ts.isTypeAliasDeclaration(node) ? node.name.text : alias;
		const parent = node.parent as ts.Node | undefined;
		const inUnion =
			parent !== undefined &&
			(ts.isUnionTypeNode(parent) ||
				(ts.isPropertySignature(parent) && parent.name.getText(source) === 'kind'));
		if (
			inUnion &&
			ts.isLiteralTypeNode(node) &&
			ts.isStringLiteral(node.literal) &&
			/\s/.test(node.literal.text) &&
			!SHOWN_TO_USERS.has(name ?? '')
		)
			found.push(`${name ?? '(inline)'}: '${node.literal.text}'`);
		ts.forEachChild(node, (child) => visit(child, name));
	};
	visit(source, undefined);
	return found;
}

test('no union of nodes/ has a value of more than one word', () => {
	const nodes = join(repoRoot, 'nodes');
	const found = sources(nodes).flatMap((file) =>
		sentencesInUnions(file, readFileSync(file, 'utf8')).map((s) => `${relative(nodes, file)} ${s}`),
	);
	expect(found).toEqual([]);
});

test('the scan sees a sentence in a named union, in an inline one, and in a kind', () => {
	const text = [
		"type Outcome = { kind: 'go on' } | { kind: 'retryLater' };",
		"function f(x: 'ok' | 'not ok') { return x; }",
		"type Shown = 'phone offline' | 'connected';",
	].join('\n');
	expect(sentencesInUnions('x.ts', text)).toEqual([
		"Outcome: 'go on'",
		"(inline): 'not ok'",
		"Shown: 'phone offline'",
	]);
});
