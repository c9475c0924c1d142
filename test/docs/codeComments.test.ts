/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Comments that do not go stale (issue 34), in every .ts file under nodes/ and credentials/:
 * - no comment cites a file by line (`webhook-helpers.js:727-801`): it names n8n's function or
 *   module, and the exact citations, with their n8n version, live in docs/design/;
 * - no comment block (a run of `//` lines, or one `/* *\/` block) is 8 lines or longer;
 * - no line that holds a comment is over 140 characters (a code line's length is the formatter's
 *   business: long user-facing strings are left whole).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

import { readText, repoPath } from '../support/repo';

const FOLDERS = ['nodes', 'credentials'];
const MAX_BLOCK_LINES = 7;
const MAX_LINE_LENGTH = 140;

/** A file cited by line: `name.js:12`, `x.d.ts:573-578`, `path/file.ts:9`. */
const LINE_CITATION = /[\w.-]*[\w-]\.(?:js|ts|mjs|cjs):\d+/;

function tsFilesUnder(folder: string): string[] {
	return readdirSync(repoPath(folder)).flatMap((name) => {
		const path = join(folder, name);
		if (statSync(repoPath(path)).isDirectory()) return tsFilesUnder(path);
		return path.endsWith('.ts') ? [path] : [];
	});
}

interface Comment {
	/** 1-based, first and last line the comment spans. */
	first: number;
	last: number;
	kind: 'line' | 'block';
	/** A `//` comment with only blanks before it on its line (one that can join a run of `//` lines). */
	wholeLine: boolean;
	text: string;
}

/** Every comment of a TypeScript source, found by its parser (not fooled by `//` inside strings or regular expressions). */
function commentsOf(source: string): Comment[] {
	const file = ts.createSourceFile('file.ts', source, ts.ScriptTarget.Latest, true);
	const byPos = new Map<number, ts.CommentRange>();
	const collect = (ranges: ts.CommentRange[] | undefined) => ranges?.forEach((range) => byPos.set(range.pos, range));
	const visit = (node: ts.Node) => {
		collect(ts.getLeadingCommentRanges(source, node.getFullStart()));
		collect(ts.getTrailingCommentRanges(source, node.getEnd()));
		node.getChildren(file).forEach(visit);
	};
	visit(file);
	return [...byPos.values()]
		.sort((a, b) => a.pos - b.pos)
		.map((range) => {
			const first = file.getLineAndCharacterOfPosition(range.pos);
			const lineStart = file.getPositionOfLineAndCharacter(first.line, 0);
			return {
				first: first.line + 1,
				last: file.getLineAndCharacterOfPosition(range.end).line + 1,
				kind: range.kind === ts.SyntaxKind.SingleLineCommentTrivia ? 'line' : 'block',
				wholeLine: source.slice(lineStart, range.pos).trim() === '',
				text: source.slice(range.pos, range.end),
			};
		});
}

/** Comment blocks: each `/* *\/` comment, and each run of whole-line `//` comments on consecutive lines. */
function commentBlocks(comments: Comment[]): Array<{ first: number; last: number }> {
	const blocks: Array<{ first: number; last: number; joinable: boolean }> = [];
	for (const comment of comments) {
		const joinable = comment.kind === 'line' && comment.wholeLine;
		const previous = blocks[blocks.length - 1];
		if (joinable && previous?.joinable && previous.last + 1 === comment.first) previous.last = comment.last;
		else blocks.push({ first: comment.first, last: comment.last, joinable });
	}
	return blocks.map(({ first, last }) => ({ first, last }));
}

/** What is wrong with a file's comments and lines, one `file:line: problem` each. */
function problemsOf(path: string, source: string): string[] {
	const problems: string[] = [];
	const comments = commentsOf(source);
	for (const comment of comments) {
		comment.text.split('\n').forEach((line, index) => {
			const citation = LINE_CITATION.exec(line);
			if (citation) problems.push(`${path}:${comment.first + index}: cites a file by line number (${citation[0]}…)`);
		});
	}
	for (const block of commentBlocks(comments)) {
		const lines = block.last - block.first + 1;
		if (lines > MAX_BLOCK_LINES) problems.push(`${path}:${block.first}: comment block of ${lines} lines (at most ${MAX_BLOCK_LINES})`);
	}
	const commentLines = new Set(
		comments.flatMap((comment) => Array.from({ length: comment.last - comment.first + 1 }, (_, i) => comment.first + i)),
	);
	source.split('\n').forEach((line, index) => {
		if (commentLines.has(index + 1) && line.length > MAX_LINE_LENGTH) {
			problems.push(`${path}:${index + 1}: comment line of ${line.length} characters (at most ${MAX_LINE_LENGTH})`);
		}
	});
	return problems;
}

const FILES = FOLDERS.flatMap(tsFilesUnder).sort();

test('every .ts file under nodes/ and credentials/ is found', () => {
	expect(FILES).toContain(join('credentials', 'MessagingRelayApi.credentials.ts'));
	expect(FILES).toContain(join('nodes', 'shared', 'transport.ts'));
});

test.each(FILES)('%s: comments cite no line numbers, blocks are under 8 lines, comment lines at most 140 characters', (path) => {
	expect(problemsOf(path, readText(path))).toEqual([]);
});

describe('what the check finds', () => {
	test('a line citation in a comment, not in code or a string', () => {
		const source = [
			"const url = 'https://example.com/a.js:12'; // n8n's WebhookService.getWebhookMethods",
			'// read in webhook-helpers.js:727-801',
			'/**',
			' * and in interfaces.d.ts:573',
			' */',
			'const text = "// webhook.service.js:353";',
		].join('\n');
		expect(problemsOf('x.ts', source)).toEqual([
			'x.ts:2: cites a file by line number (webhook-helpers.js:727…)',
			'x.ts:4: cites a file by line number (interfaces.d.ts:573…)',
		]);
	});

	test('a run of 8 `//` lines or a block of 8 lines; a trailing comment or another kind ends a run', () => {
		const slashes = (n: number) => Array.from({ length: n }, (_, i) => `// line ${i}`);
		expect(problemsOf('x.ts', slashes(7).join('\n'))).toEqual([]);
		expect(problemsOf('x.ts', slashes(8).join('\n'))).toEqual(['x.ts:1: comment block of 8 lines (at most 7)']);
		expect(problemsOf('x.ts', ['/**', ...slashes(6).map((l) => ` * ${l}`), ' */'].join('\n'))).toEqual([
			'x.ts:1: comment block of 8 lines (at most 7)',
		]);
		expect(problemsOf('x.ts', [...slashes(4), 'const a = 1; // code', ...slashes(4)].join('\n'))).toEqual([]);
		expect(problemsOf('x.ts', [...slashes(4), '/** doc */', ...slashes(4)].join('\n'))).toEqual([]);
		expect(problemsOf('x.ts', [...slashes(4), '', ...slashes(4)].join('\n'))).toEqual([]);
	});

	test('a line over 140 characters that holds a comment, whole or after code; not a code line alone', () => {
		expect(problemsOf('x.ts', `// ${'a'.repeat(137)}`)).toEqual([]);
		expect(problemsOf('x.ts', `// ${'a'.repeat(138)}`)).toEqual(['x.ts:1: comment line of 141 characters (at most 140)']);
		expect(problemsOf('x.ts', `const a = 1; // ${'a'.repeat(125)}`)).toEqual(['x.ts:1: comment line of 141 characters (at most 140)']);
		expect(problemsOf('x.ts', ['/**', ` * ${'a'.repeat(138)}`, ' */'].join('\n'))).toEqual(['x.ts:2: comment line of 141 characters (at most 140)']);
		expect(problemsOf('x.ts', `const a = '${'a'.repeat(129)}';`)).toEqual([]);
	});
});
