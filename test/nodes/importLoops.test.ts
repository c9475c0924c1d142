/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * No loop in what the node code imports (issue 43): neither between two files nor between two
 * folders (a folder's own files are one room, each subfolder another). `shared/sharedWebhook/` and
 * `shared/sendAndWait/` imported each other until 2026-11-29, and so did the trigger's folder and
 * its `sharing/`; `accountKey.ts` and `webhookState.ts` did at file level. Type-only imports count:
 * a loop of types is still a reader's loop.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import ts from 'typescript';

import { repoRoot } from '../support/repo';

const NODES = join(repoRoot, 'nodes');

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sources(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

/** Every relative import of every file of nodes/, as paths under nodes/ without `.ts`. */
function importsOfNodes(): Array<[string, string]> {
	const key = (path: string) => relative(NODES, path).replace(/\.ts$/, '');
	return sources(NODES).flatMap((file) => {
		const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
		return source.statements
			.filter(
				(s): s is ts.ImportDeclaration | ts.ExportDeclaration =>
					(ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) &&
					s.moduleSpecifier !== undefined &&
					ts.isStringLiteral(s.moduleSpecifier) &&
					s.moduleSpecifier.text.startsWith('.'),
			)
			.map((s): [string, string] => [
				key(file),
				key(resolve(dirname(file), (s.moduleSpecifier as ts.StringLiteral).text)),
			]);
	});
}

/** The loops of a graph (each once, as the strongly connected parts with more than one node). */
export function loopsOf(edges: Array<[string, string]>): string[][] {
	const next = new Map<string, string[]>();
	for (const [from, to] of edges) {
		if (from === to) continue;
		next.set(from, [...(next.get(from) ?? []), to]);
		if (!next.has(to)) next.set(to, []);
	}
	// Tarjan's strongly connected components.
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const loops: string[][] = [];
	const visit = (node: string) => {
		index.set(node, index.size);
		low.set(node, index.get(node)!);
		stack.push(node);
		onStack.add(node);
		for (const to of next.get(node) ?? []) {
			if (!index.has(to)) {
				visit(to);
				low.set(node, Math.min(low.get(node)!, low.get(to)!));
			} else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
		}
		if (low.get(node) !== index.get(node)) return;
		const part: string[] = [];
		let member: string;
		do {
			member = stack.pop()!;
			onStack.delete(member);
			part.push(member);
		} while (member !== node);
		if (part.length > 1) loops.push(part.sort());
	};
	for (const node of next.keys()) if (!index.has(node)) visit(node);
	return loops;
}

test('finds a loop of two, a loop of three, and nothing in a chain', () => {
	expect(
		loopsOf([
			['a', 'b'],
			['b', 'a'],
			['c', 'd'],
		]),
	).toEqual([['a', 'b']]);
	expect(
		loopsOf([
			['a', 'b'],
			['b', 'c'],
			['c', 'a'],
			['c', 'd'],
		]),
	).toEqual([['a', 'b', 'c']]);
	expect(
		loopsOf([
			['a', 'b'],
			['b', 'c'],
		]),
	).toEqual([]);
});

test('no two files of nodes/ import each other, however far round', () => {
	expect(loopsOf(importsOfNodes())).toEqual([]);
});

/**
 * At every folder of nodes/, its children (each file, each subfolder with all it holds) are rooms,
 * as `farm-studio look` draws them: no two rooms of one folder import each other.
 */
test('no two rooms of any folder of nodes/ import each other (a subfolder is one room)', () => {
	const edges = importsOfNodes();
	const folders = new Set(edges.flatMap(([from]) => ancestors(from)));
	const loops = [...folders].flatMap((folder) =>
		loopsOf(
			edges
				.map(([from, to]): [string, string] | undefined => {
					const [a, b] = [roomIn(folder, from), roomIn(folder, to)];
					return a !== undefined && b !== undefined && a !== b ? [a, b] : undefined;
				})
				.filter((edge): edge is [string, string] => edge !== undefined),
		).map((loop) => `${folder || 'nodes'}: ${loop.join(' <-> ')}`),
	);
	expect(folders.size).toBeGreaterThan(10);
	expect(loops).toEqual([]);
});

/** The folders that hold a file, from nodes/ itself ('') down. */
function ancestors(file: string): string[] {
	const parts = file.split('/').slice(0, -1);
	return parts.map((_, i) => parts.slice(0, i).join('/')).concat(parts.join('/'));
}

/** The child of `folder` that holds `file`, or undefined when the file is not under it. */
function roomIn(folder: string, file: string): string | undefined {
	const prefix = folder === '' ? '' : `${folder}/`;
	if (!file.startsWith(prefix)) return undefined;
	return file.slice(prefix.length).split('/')[0];
}
