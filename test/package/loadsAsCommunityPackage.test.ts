/**
 * The built package as n8n loads a community package: n8n-core's PackageDirectoryLoader reads
 * package.json's `n8n` section and the dist/ files it names. Run after `npm run build`
 * (`npm test` builds first).
 */
import { PackageDirectoryLoader } from 'n8n-core';

import { exists, readJson, readText, repoRoot } from '../support/repo';

const pkg = readJson('package.json');

describe('package.json meets the rules for verified community nodes', () => {
	test('name, keyword, licence, files, strict mode', () => {
		expect(pkg.name).toBe('n8n-nodes-messaging-relay');
		expect(pkg.keywords).toContain('n8n-community-node-package');
		expect(pkg.license).toBe('MIT');
		// dist for n8n; the examples, the README's screenshots and the changelog ship too, so that a
		// user of the installed package has them beside it.
		expect(pkg.files).toEqual(['dist', 'examples', 'docs/images', 'CHANGELOG.md']);
		expect(pkg.n8n).toMatchObject({ n8nNodesApiVersion: 1, strict: true });
	});

	test('no runtime dependencies, peer dependency exactly n8n-workflow, no overrides or install scripts', () => {
		expect(pkg.dependencies ?? {}).toEqual({});
		expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		expect(pkg.overrides).toBeUndefined();
		for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) {
			expect(pkg.scripts?.[script]).toBeUndefined();
		}
	});

	test('no `main` (n8n loads the files its `n8n` section names), and `engines` what the README asks for', () => {
		expect(pkg.main).toBeUndefined();
		expect(pkg.engines).toEqual({ node: '>=20.19', npm: '>=11' });
		expect(readText('README.md')).toContain('Node 20.19 or later and npm 11');
	});

	test('zod is pinned to the line n8n ships (3.25.x)', () => {
		expect(pkg.devDependencies.zod).toMatch(/^3\.25\./);
	});

	test('every node and credential is listed by its dist path, no globs', () => {
		const paths: string[] = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
		for (const path of paths) {
			expect(path).toMatch(/^dist\/.+\.js$/);
			expect(path).not.toContain('*');
		}
	});
});

describe('the README works on the npm page and on GitHub', () => {
	const readme = readText('README.md');
	// Links outside code: code blocks and spans (`[text](url)` in the Formatting option) are text.
	const prose = readme.replace(/^```[\s\S]*?^```/gm, '').replace(/(`+)[^\n]*?\1/g, '');
	const links = [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
	const relative = links.filter((link) => !/^(https:\/\/|#)/.test(link));

	test('files are linked relatively (GitHub resolves them, npm against `repository`), never through a CDN of the published package', () => {
		expect(relative).toEqual(
			expect.arrayContaining([
				'examples/auto-reply.json',
				'docs/images/auto-reply.png',
				'docs/installing.md',
				'CHANGELOG.md',
			]),
		);
		expect(
			links.filter((link) => /^https?:\/\/(cdn\.jsdelivr\.net|unpkg\.com)\//.test(link)),
		).toEqual([]);
		expect(links.filter((link) => link.startsWith('http://'))).toEqual([]);
	});

	test('every relative link names a file or folder of the repository', () => {
		for (const link of relative) {
			const path = link.split('#')[0];
			expect({
				link,
				exists: path !== '' && !path.startsWith('/') && !path.startsWith('..') && exists(path),
			}).toEqual({ link, exists: true });
		}
	});

	test('every anchor names a heading of the README', () => {
		// GitHub's and npm's heading ids: lower case, punctuation dropped, spaces to hyphens.
		const ids = [...prose.matchAll(/^#{1,6} (.+)$/gm)].map((match) =>
			match[1]
				.trim()
				.toLowerCase()
				.replace(/[^\w\- ]/g, '')
				.replace(/ /g, '-'),
		);
		for (const anchor of links
			.filter((link) => link.startsWith('#'))
			.map((link) => link.slice(1))) {
			expect({ anchor, found: ids.includes(anchor) }).toEqual({ anchor, found: true });
		}
	});

	test('the sections n8n links to from the node panel exist (codex and credential documentation URLs)', () => {
		for (const heading of ['Credentials', 'Operations', 'Trigger', 'Watch']) {
			expect(readme).toMatch(new RegExp(`^#{2,3} ${heading}$`, 'm'));
		}
	});

	test("the n8n-nodes-starter's sections, in its order", () => {
		const sections = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
		expect(sections).toEqual([
			'Installation',
			'Operations',
			'Credentials',
			'Compatibility',
			'Usage',
			'Resources',
			'Version history',
		]);
	});

	test('the first screen gives exactly the two commands for a fresh machine', () => {
		const firstScreen = readme.split('\n').slice(0, 15).join('\n');
		const commands = [...firstScreen.matchAll(/^(npm [^#\n]*?)\s*(#.*)?$/gm)].map(
			(match) => match[1],
		);
		expect(commands).toEqual(['npm ci && npm start', 'npm ci && npm test']);
	});

	test('examples are imported from a file or by pasting: n8n 3.0 removes the import from URL', () => {
		expect(readme).not.toMatch(/From URL|Import from URL/i);
		// n8n 2.41.1's workflow menu: Import → From file (editor-ui i18n menuActions.importFromFile).
		expect(readme).toMatch(/Import →\s+From file/);
	});
});

describe('n8n loads the built package', () => {
	let loader: PackageDirectoryLoader;

	beforeAll(async () => {
		expect(exists('dist')).toBe(true);
		loader = new PackageDirectoryLoader(repoRoot);
		await loader.loadAll();
	});

	test('the node types and the credential type load under the package name', () => {
		expect(loader.packageName).toBe('n8n-nodes-messaging-relay');
		expect([...new Set(loader.types.nodes.map((n) => n.name))].sort()).toEqual([
			'messagingRelay',
			'messagingRelayTrigger',
			'messagingRelayWatch',
		]);
		// The trigger is a versioned node type: n8n lists a description per version set
		// (n8n-core nodes-loader/directory-loader.js:179-182, 239-250), new nodes at version 3.
		const trigger = loader.types.nodes.filter((n) => n.name === 'messagingRelayTrigger');
		expect(trigger.map((n) => n.version)).toEqual([3, [1, 2]]);
		expect(trigger.map((n) => n.defaultVersion)).toEqual([3, 3]);
		expect(loader.types.credentials.map((c) => c.name)).toEqual(['messagingRelayApi']);
	});

	test('what n8n lists of each node and credential is the committed form, byte for byte', () => {
		// A published workflow stores parameter names and values: a refactor must leave every
		// description as it was (issue 43). A deliberate change regenerates the file (CONTRIBUTING.md).
		expect(JSON.stringify(loader.types, null, 1) + '\n').toBe(
			readText('test', 'package', 'fixtures', 'listed-types.json'),
		);
	});

	test('the action node is usable as an AI tool', () => {
		const node = loader.types.nodes.find((n) => n.name === 'messagingRelay')!;
		expect(node.usableAsTool).toBe(true);
	});

	test.each(['messagingRelay', 'messagingRelayTrigger'])(
		'%s has its codex (Communication, WhatsApp alias)',
		(name) => {
			const node = loader.types.nodes.find((n) => n.name === name)!;
			expect(node.codex?.categories).toEqual(['Communication']);
			expect(node.codex?.alias).toEqual(expect.arrayContaining(['WhatsApp', 'SMS', 'chat']));
		},
	);

	test("the Watch node is a polling trigger with n8n's own Poll Times and its codex", () => {
		const node = loader.types.nodes.find((n) => n.name === 'messagingRelayWatch')!;
		expect(node.polling).toBe(true);
		expect(node.group).toEqual(['trigger']);
		// n8n's DirectoryLoader puts its Poll Times in front (n8n-core nodes-loader/directory-loader.js:297).
		expect(node.properties[0]).toMatchObject({ name: 'pollTimes', type: 'fixedCollection' });
		expect(node.properties.filter((p) => p.name === 'pollTimes')).toHaveLength(1);
		expect(node.codex?.categories).toEqual(['Communication']);
		expect(node.codex?.alias).toEqual(expect.arrayContaining(['WhatsApp', 'monitor', 'webhook']));
	});

	test('themed icons of the three nodes and the credential resolve to SVG files inside dist', () => {
		// One per node description (the trigger has two: versions 1-2 and 3) and the credential's.
		const icons = [
			...loader.types.nodes.map((n) => n.iconUrl),
			loader.types.credentials[0].iconUrl,
		];
		expect(icons).toHaveLength(5);
		const files: string[] = [];
		for (const icon of icons) {
			expect(icon).toEqual({
				light: expect.stringMatching(/\.svg$/),
				dark: expect.stringMatching(/\.dark\.svg$/),
			});
			const { light, dark } = icon as { light: string; dark: string };
			files.push(light, dark);
		}
		for (const file of files) {
			expect(readText(file.replace(/^icons\/n8n-nodes-messaging-relay\//, ''))).toContain('<svg');
		}
	});

	test('every operation has an action and a description', () => {
		const node = loader.types.nodes.find((n) => n.name === 'messagingRelay')!;
		const operations = node.properties.filter((p) => p.name === 'operation');
		expect(operations.length).toBe(3);
		for (const operation of operations) {
			for (const option of operation.options as Array<{ action?: string; description?: string }>) {
				expect(option.action).toBeTruthy();
				expect(option.description).toBeTruthy();
			}
		}
	});
});
