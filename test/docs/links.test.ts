/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * What the README, CONTRIBUTING.md and the pages under docs/ name exists: every relative link (and
 * the heading its `#anchor` points at), every repository path written as code, every `npm run`
 * script. A page that names a file that moved, or a script that was renamed, fails here.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

import { readJson, readText, repoPath, repoRoot } from '../support/repo';
import { codeSpans, headingAnchors, isExternal, linkTargets, npmScripts, repoPathIn } from './documentedPaths';

const markdownIn = (folder: string) =>
	readdirSync(repoPath(folder))
		.filter((name) => name.endsWith('.md'))
		.map((name) => join(folder, name));

const PAGES = ['README.md', 'CONTRIBUTING.md', ...markdownIn('docs'), ...markdownIn('docs/design')];

const scripts = Object.keys(readJson<{ scripts: Record<string, string> }>('package.json').scripts);

/** The repository file or folder `target` names from `page`, or undefined when there is none. */
function resolveFrom(page: string, target: string): string | undefined {
	const candidates = [join(dirname(page), target), target].map((path) => normalize(path));
	for (const path of candidates) {
		if (relative(repoRoot, repoPath(path)).startsWith('..')) continue;
		// A module named without its extension, as the layout table does (`nodes/shared/readDelivery`).
		for (const file of [path, `${path}.ts`]) if (existsSync(repoPath(file))) return file;
	}
	return undefined;
}

function missingAnchor(page: string, file: string, anchor: string): string | undefined {
	if (!anchor || !file.endsWith('.md') || statSync(repoPath(file)).isDirectory()) return undefined;
	return headingAnchors(readText(file)).has(decodeURIComponent(anchor)) ? undefined : `${page}: #${anchor} is no heading of ${file}`;
}

describe.each(PAGES)('%s', (page) => {
	const text = readText(page);

	test('every relative link leads to a file of the repository, and its #anchor to a heading there', () => {
		const broken: string[] = [];
		for (const target of linkTargets(text).filter((t) => !isExternal(t))) {
			const [path, anchor = ''] = target.split('#');
			const file = path ? resolveFrom(page, path) : page;
			if (!file) broken.push(`${page}: ${target} does not exist`);
			else {
				const problem = missingAnchor(page, file, anchor);
				if (problem) broken.push(problem);
			}
		}
		expect(broken).toEqual([]);
	});

	test('every repository path written as code exists', () => {
		const paths = codeSpans(text)
			.map(repoPathIn)
			.filter((path): path is string => path !== undefined);
		expect(paths.filter((path) => resolveFrom(page, path) === undefined)).toEqual([]);
	});

	test('every npm script it names is in package.json', () => {
		expect(npmScripts(text).filter((name) => !scripts.includes(name))).toEqual([]);
	});
});

describe('what counts as a link, a path and a script', () => {
	test('a broken link, a moved file, an anchor without a heading and an unknown script are found', () => {
		const page = [
			'# Title',
			'See [the guide](docs/no-such-page.md), [here](#title) and [there](#no-such-heading).',
			'`test/package.test.ts` checks it; `webhook-helpers.js:840-846` is n8n\'s; `test/e2e/*.e2e.ts` a pattern.',
			'Run `npm run no-such-script` or npm start.',
			'```bash',
			'npm run bench   # in a code block too',
			'```',
		].join('\n');
		expect(linkTargets(page)).toEqual(['docs/no-such-page.md', '#title', '#no-such-heading']);
		expect(resolveFrom('README.md', 'docs/no-such-page.md')).toBeUndefined();
		expect(headingAnchors(page)).toEqual(new Set(['title']));
		expect(codeSpans(page).map(repoPathIn).filter(Boolean)).toEqual(['test/package.test.ts']);
		expect(resolveFrom('CONTRIBUTING.md', 'test/package.test.ts')).toBeUndefined();
		expect(npmScripts(page)).toEqual(['no-such-script', 'bench', 'start']);
	});

	test('paths are read from the page\'s folder or the repository\'s root, modules without .ts', () => {
		expect(resolveFrom('docs/delivery-answers.md', 'scaling.md')).toBe('docs/scaling.md');
		expect(resolveFrom('README.md', 'CONTRIBUTING.md')).toBe('CONTRIBUTING.md');
		expect(resolveFrom('CONTRIBUTING.md', 'nodes/shared/readDelivery')).toBe('nodes/shared/readDelivery.ts');
		expect(resolveFrom('docs/scaling.md', '../../outside.md')).toBeUndefined();
		expect(repoPathIn('nodes/MessagingRelayTrigger/acknowledgement.ts:12-30')).toBe('nodes/MessagingRelayTrigger/acknowledgement.ts');
		expect(repoPathIn('npm run build')).toBeUndefined();
		expect(repoPathIn('nodes/agents/Agent/Agent.node.js:31')).toBeUndefined();
	});

	test('anchors as GitHub makes them', () => {
		expect(headingAnchors('## When a person takes over a chat\n### Ask and wait for the answer\n## 5. Queue mode: where (from the suite)')).toEqual(
			new Set(['when-a-person-takes-over-a-chat', 'ask-and-wait-for-the-answer', '5-queue-mode-where-from-the-suite']),
		);
	});
});
