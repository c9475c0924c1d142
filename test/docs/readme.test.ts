/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The README is the page an n8n user reads (on npm, and from the node panel's documentation links):
 * short, and true. This file fails when it passes 300 lines, or names something that does not
 * exist. What it checks, and how it finds it (outside fenced code blocks unless said):
 *
 * - **Lines**: at most 300 (issue 34's budget; repeats of docs/ are a line and a link).
 * - **Files**: a repository path written as code (`docs/scaling.md`, `examples/auto-reply.json`,
 *   also inside code blocks), by documentedPaths.ts's rule (`repoPathIn`), exists; so does every
 *   relative link's file (links.test.ts checks the same for every page, with anchors).
 * - **Scripts**: every `npm run <name>`, `npm start` and `npm test` is a script of package.json.
 * - **Figures**: a number followed by `×` or `x`, `/s` (also "deliveries/s", "replies/s"), `ms` or
 *   `µs` (`1.34×`, `72.9 deliveries/s`, `18.1 ms`; a range `1.03-1.11×` or a pair `18.1 vs 20.1 ms`
 *   gives both numbers) names its source row in FIGURE_SOURCES: a line of scripts/bench-results.md
 *   (the bench's table) or docs/performance.md (the page that reads it), picked out by a text only
 *   that line holds, which writes the number (issue 44: a figure of another run no longer passes).
 *   A figure without a source fails, and so does a source the README no longer uses.
 * - **Bounds**: each limit or default the README states (`up to 10,000 runs`, `default 100`,
 *   `7–15 digit`) is built in BOUNDS from the constant or the node parameter's default that enforces
 *   it, and must be written so: changing one without the other fails.
 * - **Parameters**: the first column of the trigger's parameter table (`| Parameter |`, without
 *   " (option)") and of the credential's (`| Field |`) are display names in nodes/ and credentials/;
 *   every *italic* name is a string of nodes/ or credentials/ (a display name, an option, a mode),
 *   a node name of examples/*.json, or one of n8n's own words listed in N8N_WORDS; a path of names
 *   (`*Options → Expected Webhook URL*`) is checked name by name; every **Resource → Operation**
 *   in bold names an option of the nodes on both sides (`Pause / Resume Automatic Replies` is
 *   `Pause Automatic Replies` and `Resume Automatic Replies`). Bold text that is no such path is
 *   emphasis, and is not checked.
 * - **Pictures**: every file under docs/images (shipped in the package) is shown by the README, or
 *   named by another shipped file (CHANGELOG.md, examples/*.json).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { exists, readJson, readText, repoPath } from '../support/repo';
import { codeSpans, linkTargets, isExternal, npmScripts, repoPathIn, withoutCodeBlocks } from './documentedPaths';
import { MessagingRelay } from '../../nodes/MessagingRelay/MessagingRelay.node';
import { DEFAULT_MESSAGES_IN_FLIGHT } from '../../nodes/MessagingRelay/actions/message';
import { PHONE_DIGITS } from '../../nodes/MessagingRelay/validation';
import { MessagingRelayTrigger } from '../../nodes/MessagingRelayTrigger/MessagingRelayTrigger.node';
import { DEFAULT_REPAIR_INTERVAL, MAX_QUIET_SECONDS } from '../../nodes/MessagingRelayTrigger/constants';
import { setAsideLimits } from '../../nodes/shared/sharing/memberHealth';
import { MessagingRelayWatch } from '../../nodes/MessagingRelayWatch/MessagingRelayWatch.node';
import { TEST_TIMEOUT_SECONDS } from '../../nodes/shared/credentialTest/messages';
import { SHIPPED_RETRY_POLICY as retryPolicy } from '../../nodes/shared/retry';
import { WAIT_CAPACITY } from '../../nodes/shared/sendAndWait/waitingRuns';

const README_MAX_LINES = 300;

/** n8n's own words the README puts in italics: its menus, settings of its nodes, its states. */
const N8N_WORDS = [
	'Settings → Community Nodes', // n8n's settings page
	'On Error', // every node's setting
	'Continue', // …and its value
	'Human in the Loop', // n8n 2.x's generated AI Agent tools
	'Messaging Relay Tool', // the name n8n gives a node usable as a tool
	'System Message', // the AI Agent's option
	'Connected Chat Trigger Node', // the AI Agent's and Simple Memory's default source
	'Waiting', // an execution's status
];

/** Text without code blocks and code spans, one space for each line break inside a paragraph. */
function prose(markdown: string): string {
	return withoutCodeBlocks(markdown)
		.replace(/(`+)[^\n]*?\1/g, '')
		.replace(/([^\n])\n[ \t]*(?=[^\n])/g, '$1 ');
}

/** The numbers the README gives as measured figures: before ×, x, /s, ms or µs (a range gives both ends). */
function figures(markdown: string): string[] {
	const found: string[] = [];
	const unit = String.raw`\s?(?:×|x\b|(?:[a-z]+)?/s\b|ms\b|µs\b)`;
	const pattern = new RegExp(
		String.raw`(?<![\w.])(\d+(?:\.\d+)?)(?:\s?[-–]\s?(\d+(?:\.\d+)?)|\s+vs\s+(\d+(?:\.\d+)?))?(?=\s?(?:deliveries|replies|executions)?${unit})`,
		'g',
	);
	for (const match of prose(markdown).matchAll(pattern)) {
		found.push(match[1]);
		if (match[2]) found.push(match[2]);
		if (match[3]) found.push(match[3]);
	}
	return [...new Set(found)];
}

/** Whether `text` writes the number `figure` as a number (not as part of a longer one: 18.1 is not in 18.13). */
const writesNumber = (text: string, figure: string) =>
	new RegExp(String.raw`(?<![\d.])${figure.replace('.', String.raw`\.`)}(?!\.?\d)`).test(text);

/** The first column of the Markdown table whose header row starts with `| <header> |`. */
function firstColumn(markdown: string, header: string): string[] {
	const lines = markdown.split('\n');
	const start = lines.findIndex((line) => line.startsWith(`| ${header} |`));
	if (start < 0) return [];
	const rows: string[] = [];
	for (const line of lines.slice(start + 2)) {
		if (!line.startsWith('|')) break;
		rows.push(line.split('|')[1].trim());
	}
	return rows;
}

/** *Italic* phrases (not **bold**), in prose. */
const italics = (markdown: string): string[] =>
	[...new Set([...prose(markdown).matchAll(/(?<![*\w])\*(?![*\s])([^*]+?)(?<!\s)\*(?![*\w])/g)].map((match) => match[1]))];

/** **Bold** phrases of the form `Resource → Operation`, in prose. */
const boldOperations = (markdown: string): string[] =>
	[...prose(markdown).matchAll(/\*\*([^*]+?)\*\*/g)].map((match) => match[1]).filter((text) => text.includes(' → '));

/** `Pause / Resume Automatic Replies` → the two names it stands for; any other name as it is. */
const expandSlash = (name: string): string[] => {
	const match = /^(\S+) \/ (\S+) (.+)$/.exec(name);
	return match ? [`${match[1]} ${match[3]}`, `${match[2]} ${match[3]}`] : [name];
};

function filesUnder(folder: string, suffix: string): string[] {
	return readdirSync(repoPath(folder), { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) return filesUnder(path, suffix);
		return entry.name.endsWith(suffix) ? [path] : [];
	});
}

const readme = readText('README.md');
/** Source without its comments: a name only a comment quotes is not the code's. */
const withoutComments = (source: string) => source.replace(/^\s*\/\*[\s\S]*?\*\//gm, '').replace(/(^|\s)\/\/.*$/gm, '$1');
const nodeSource = [...filesUnder('nodes', '.ts'), ...filesUnder('credentials', '.ts')].map((file) => withoutComments(readText(file))).join('\n');
const exampleNodeNames = new Set(
	filesUnder('examples', '.json').flatMap((file) => readJson<{ nodes: Array<{ name: string }> }>(file).nodes.map((node) => node.name)),
);
/** A string literal of nodes/ or credentials/: a display name, an option's name, a mode. */
const inNodeSource = (name: string) => [`'${name}'`, `"${name}"`, `\`${name}\``].some((literal) => nodeSource.includes(literal));
const isKnownName = (name: string) => N8N_WORDS.includes(name) || exampleNodeNames.has(name) || inNodeSource(name);
/** A name, or a path of names (`Options → Expected Webhook URL`): every part a known name. */
const namesKnown = (name: string) => isKnownName(name) || name.split(' → ').every(isKnownName);

/**
 * Where each figure the README gives was measured: the page, and a text that only the source line
 * holds (a row of the bench's table, a sentence of docs/performance.md). When a figure changes, its
 * source changes with it.
 */
const FIGURE_SOURCES: Record<string, { page: string; line: string }> = {
	// Speed, version 3 and 2 against the Webhook node, four runs with lazy acquire.
	'0.87': { page: 'docs/performance.md', line: 'medians 0.98× (0.87-1.34×)' },
	'1.34': { page: 'docs/performance.md', line: 'medians 0.98× (0.87-1.34×)' },
	'0.98': { page: 'docs/performance.md', line: 'medians 0.98× (0.87-1.34×)' },
	'0.82': { page: 'docs/performance.md', line: 'and 1.00× (0.82-1.07×)' },
	'1.07': { page: 'docs/performance.md', line: 'and 1.00× (0.82-1.07×)' },
	'1.00': { page: 'docs/performance.md', line: 'and 1.00× (0.82-1.07×)' },
	// n8n's CPU per delivery, trigger against the Webhook node, in the two runs that measured it.
	'18.1': { page: 'docs/performance.md', line: '**18.1 ms of CPU per delivery** on it against 20.1 ms' },
	'20.1': { page: 'docs/performance.md', line: '**18.1 ms of CPU per delivery** on it against 20.1 ms' },
	'19.0': { page: 'docs/performance.md', line: 'with CPU per delivery 19.0 vs 20.5 ms' },
	'20.5': { page: 'docs/performance.md', line: 'with CPU per delivery 19.0 vs 20.5 ms' },
	// As n8n ships: the lowest and highest ratio of section 1's deliveries/s rows, and their rate.
	'1.03': {
		page: 'scripts/bench-results.md',
		line: '| 1 | deliveries/s, trigger v3 (the default; answers when the run finishes) vs Webhook + Header Auth answering when the last node finishes (every event) |',
	},
	'1.11': {
		page: 'scripts/bench-results.md',
		line: '| 1 | deliveries/s, trigger v3 set to "When the Workflow Starts" vs Webhook + Header Auth answering when it receives → IF on the event type |',
	},
	'10': {
		page: 'scripts/bench-results.md',
		line: '| 1 | deliveries/s, trigger v2 (saved workflows) vs Webhook + Header Auth answering when it receives (every event) |',
	},
	// Send and Wait: the campaign of record against n8n's Wait node.
	'1.40': { page: 'scripts/bench-results.md', line: 'Send and Wait over the Wait node, total time: 1.40' },
	'1.86': { page: 'scripts/bench-results.md', line: '1.86 (the same on Postgres: starts 1.28' },
};

/** The lines of `page` that hold `text`. */
const linesHolding = (page: string, text: string) =>
	readText(page)
		.split('\n')
		.filter((line) => line.includes(text));

/** A property of a node's description, found by display name at any depth (options, fixed collections). */
function parameter(properties: unknown, displayName: string): { default?: unknown } | undefined {
	if (!Array.isArray(properties)) return undefined;
	for (const property of properties as Array<Record<string, unknown>>) {
		if (property.displayName === displayName) return property;
		const inner = parameter(property.options, displayName) ?? parameter(property.values, displayName);
		if (inner) return inner;
	}
	return undefined;
}
const defaultOf = (node: { description: { properties: unknown } }, displayName: string) =>
	parameter(node.description.properties, displayName)?.default;

const thousands = (n: number) => n.toLocaleString('en-US');
const action = new MessagingRelay();
const trigger = new MessagingRelayTrigger().getNodeType();
const watch = new MessagingRelayWatch();

// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain CommonJS, run before `npm ci`
const { CACHE_PARTS } = require('../../scripts/preflight.cjs') as { CACHE_PARTS: Array<{ folder: string; bytes: number }> };
const cacheGb = (folders: string[]) =>
	`${(CACHE_PARTS.filter((p) => folders.includes(p.folder)).reduce((n, p) => n + p.bytes, 0) / 1e9).toFixed(1)} GB`;

/** Each bound the README states, written from what enforces it. */
const BOUNDS: Array<[what: string, text: string]> = [
	['phone numbers (validation.ts)', `${PHONE_DIGITS.min}–${PHONE_DIGITS.max} digit`],
	['Pause For (Minutes) of the action', `*Pause For (Minutes)*: ${String(defaultOf(action, 'Pause For (Minutes)'))} by default`],
	['Get Many limit', `a *Limit*, default ${String(defaultOf(action, 'Limit'))}`],
	['Messages in Flight', `**Messages in Flight** (default ${DEFAULT_MESSAGES_IN_FLIGHT};`],
	['429 waits (retry.ts)', `up to ${retryPolicy.maxRateLimitWaitMs / 1000} s, ${retryPolicy.maxAttempts} tries`],
	['request time-out (retry.ts)', `a ${retryPolicy.timeoutMs / 1000} s time-out`],
	['Combine Messages Within', `0 (off) to ${MAX_QUIET_SECONDS}`],
	['Check Registration Every', `Default ${DEFAULT_REPAIR_INTERVAL.replace(/m$/, '')} minutes`],
	['Phone Offline Alert After', `(default ${String(defaultOf(watch, 'Phone Offline Alert After (Minutes)'))}; 0 off)`],
	['credential test time-out', `no answer within ${TEST_TIMEOUT_SECONDS} seconds`],
	['Yes Words', `*Yes Words* (\`${String(defaultOf(action, 'Yes Words'))}\`)`],
	['No Words', `*No Words* (\`${String(defaultOf(action, 'No Words'))}\`)`],
	['the first run: Node 24 and n8n 2.41.1 (preflight.cjs, measured)', `n8n 2.41.1 (${cacheGb(['node-24.21.0', 'n8n-2.41.1'])},`],
	['the first npm test: everything (preflight.cjs, measured)', `(${cacheGb(CACHE_PARTS.map((p) => p.folder))} in all,`],
	['waiting runs per account (waitingRuns.ts)', `up to ${thousands(WAIT_CAPACITY)} runs can wait at once`],
	['Pause For (Minutes) of the trigger', `*Pause For (Minutes)* (${String(defaultOf(trigger, 'Pause For (Minutes)'))})`],
	[
		'setting a failing workflow aside (memberHealth.ts)',
		`fail ${setAsideLimits.failures} times over at least ${setAsideLimits.spanMs / 60_000} minutes`,
	],
];

/** The README with each paragraph on one line (code spans kept): a bound may cross a line break. */
const readmeFlat = readme.replace(/([^\n])\n[ \t]*(?=[^\n])/g, '$1 ');

describe('README.md', () => {
	test(`has at most ${README_MAX_LINES} lines`, () => {
		const lines = readme.endsWith('\n') ? readme.split('\n').length - 1 : readme.split('\n').length;
		expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
	});

	test('every repository path it writes as code, and every file it links, exists', () => {
		const paths = codeSpans(readme)
			.map(repoPathIn)
			.filter((path): path is string => path !== undefined);
		const linked = linkTargets(readme)
			.filter((target) => !isExternal(target) && !target.startsWith('#'))
			.map((target) => target.split('#')[0]);
		expect(paths.length).toBeGreaterThan(0);
		expect([...paths, ...linked].filter((path) => !exists(path) && !exists(`${path}.ts`))).toEqual([]);
	});

	test('every npm script it names is in package.json', () => {
		const scripts = Object.keys(readJson<{ scripts: Record<string, string> }>('package.json').scripts);
		expect(npmScripts(readme).filter((name) => !scripts.includes(name))).toEqual([]);
	});

	test('every figure it gives names its source line, which writes it; every source is still used', () => {
		const given = figures(readme);
		expect(given.length).toBeGreaterThan(0);
		expect(given.filter((figure) => !(figure in FIGURE_SOURCES))).toEqual([]);
		expect(Object.keys(FIGURE_SOURCES).filter((figure) => !given.includes(figure))).toEqual([]);
		const wrong = Object.entries(FIGURE_SOURCES).flatMap(([figure, { page, line }]) => {
			const lines = linesHolding(page, line);
			if (lines.length !== 1) return [`${figure}: ${lines.length} lines of ${page} hold "${line}"`];
			return writesNumber(lines[0], figure) ? [] : [`${figure}: not written in ${page}'s line "${line}"`];
		});
		expect(wrong).toEqual([]);
	});

	test('every bound it states is the one the code enforces', () => {
		expect(BOUNDS.filter(([, text]) => !readmeFlat.includes(text))).toEqual([]);
	});

	test('the trigger parameters and credential fields it lists are display names of the code', () => {
		const parameters = firstColumn(readme, 'Parameter').map((name) => name.replace(/ \(option\)$/, ''));
		const fields = firstColumn(readme, 'Field');
		expect(parameters.length).toBeGreaterThan(5);
		expect(fields.length).toBeGreaterThan(2);
		const displayName = (name: string) => nodeSource.includes(`displayName: '${name}'`);
		expect([...parameters, ...fields].filter((name) => !displayName(name))).toEqual([]);
	});

	test('every name in italics is a parameter, option or mode of the code, an example\'s node, or one of n8n\'s own words', () => {
		const names = italics(readme);
		expect(names.length).toBeGreaterThan(20);
		expect(names.filter((name) => !namesKnown(name))).toEqual([]);
	});

	test('every **Resource → Operation** names options of the nodes', () => {
		const operations = boldOperations(readme).filter((path) => ['Message', 'Number', 'Webhook'].includes(path.split(' → ')[0]));
		expect(operations.length).toBeGreaterThan(3);
		const unknown = operations.filter((path) => {
			const [resource, operation] = path.split(' → ');
			return !inNodeSource(resource) || !expandSlash(operation).every(inNodeSource);
		});
		expect(unknown).toEqual([]);
	});

	test('every picture under docs/images (shipped in the package) is shown by the README or named by another shipped file', () => {
		const shipped = [readme, readText('CHANGELOG.md'), ...filesUnder('examples', '.json').map((file) => readText(file))].join('\n');
		const pictures = filesUnder(join('docs', 'images'), '');
		expect(pictures.length).toBeGreaterThan(0);
		expect(pictures.filter((picture) => !shipped.includes(picture.split('\\').join('/')))).toEqual([]);
	});
});

describe('what the README test counts as a figure, a name and a picture', () => {
	test('figures: before ×, x, /s, ms and µs, both ends of a range; not durations in seconds or versions', () => {
		const page = [
			'Version 3 took 72.9 deliveries/s, 1.34× the Webhook node (as shipped 1.03-1.11×), 1.26x at 1 MB,',
			'for 18.1 ms of CPU and 6.03 µs of its own; 12/s. Retries for 60 s, 4 tries; n8n 1.x and 2.x;',
			'`8.5 ms` in code is not prose.',
			'```',
			'9.9/s in a block',
			'```',
		].join('\n');
		expect(figures(page)).toEqual(['72.9', '1.34', '1.03', '1.11', '1.26', '18.1', '6.03', '12']);
		expect(writesNumber('| 18.13 | 20.1 ms |', '18.1')).toBe(false);
		expect(writesNumber('| 18.13 | 20.1 ms |', '20.1')).toBe(true);
		expect(writesNumber('took 72.9/s', '72.9')).toBe(true);
		expect(writesNumber('1.340', '1.34')).toBe(false);
	});

	test('names: italics but not bold, across a line break; tables by their header; slashes expanded', () => {
		const page = ['- *Pause For', '  (Minutes)* and **bold** and *Options → Expected Webhook URL*; 2*3*4 is no italic.', '', '| Parameter | What |', '|---|---|', '| Events | x |', '| Chats (option) | y |', '', 'after'].join('\n');
		expect(italics(page)).toEqual(['Pause For (Minutes)', 'Options → Expected Webhook URL']);
		expect(firstColumn(page, 'Parameter')).toEqual(['Events', 'Chats (option)']);
		expect(boldOperations('**Message → Pause / Resume Automatic Replies** and **bold**')).toEqual(['Message → Pause / Resume Automatic Replies']);
		expect(expandSlash('Pause / Resume Automatic Replies')).toEqual(['Pause Automatic Replies', 'Resume Automatic Replies']);
		expect(expandSlash('Send and Wait for Reply')).toEqual(['Send and Wait for Reply']);
	});

	test('a name the code does not have is found; a known one and a path of known ones pass', () => {
		expect(namesKnown('Pause When a Person Replies')).toBe(true);
		expect(namesKnown('Options → Expected Webhook URL')).toBe(true);
		expect(namesKnown('Alert the operator')).toBe(true);
		expect(namesKnown('Pause When Someone Replies')).toBe(false);
		expect(namesKnown('Options → Expected Webhook Address')).toBe(false);
		// Only the code counts, not its comments.
		expect(withoutComments("/**\n * 'In a doc comment'\n */\nconst a = 'Code'; // 'After code'\n\t// 'A line comment'\nconst url = 'https://x';")).not.toMatch(/comment|After/);
		expect(withoutComments("const a = 'Code';\nconst url = 'https://x';")).toContain("'https://x'");
	});
});
