/**
 * What the repository's Markdown names that must exist in the repository: relative links (and
 * their `#anchors`), repository paths written as code (`docs/scaling.md`, `nodes/…/acknowledgement.ts`)
 * and `npm run` scripts. Pure functions over a page's text; links.test.ts applies them to the pages.
 */

/** The repository's top-level folders: a code span starting with one of them is a path in it. */
export const REPO_FOLDERS = ['.ci', '.github', 'credentials', 'docs', 'examples', 'icons', 'nodes', 'scripts', 'test'];

/** A page's text without fenced code blocks, which quote commands and output, not links. */
export const withoutCodeBlocks = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, '');

/** Markdown link and image targets outside code: `[text](target)`, `![alt](target)`. */
export function linkTargets(markdown: string): string[] {
	const prose = withoutCodeBlocks(markdown).replace(/(`+)[^\n]*?\1/g, '');
	return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1]);
}

/** A link that leaves the repository (a web address, mail) is not checked here. */
export const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target);

/** The text of every code span, also inside code blocks (a command there may name a path). */
export const codeSpans = (markdown: string): string[] => [...markdown.matchAll(/(`+)([^`\n]+?)\1/g)].map((match) => match[2].trim());

/**
 * The repository path a code span names, or undefined. A path starts with one of the repository's
 * folders or is a Markdown page (`scaling.md`, `CONTRIBUTING.md`); a `:line` citation and an
 * `#anchor` are cut off. Patterns and placeholders (`test/e2e/*.e2e.ts`, `docs/images/<example>.png`,
 * `…`), anything with spaces (a command) and n8n's compiled `nodes/…/*.js` are not paths.
 */
export function repoPathIn(span: string): string | undefined {
	if (/[\s*<>{}…|$]/.test(span)) return undefined;
	const path = span.replace(/:\d+(-\d+)?(,\d+(-\d+)?)*$/, '').replace(/#.*$/, '');
	const first = path.split('/')[0];
	// Compiled JavaScript under nodes/ is n8n's (docs/ai-assistant.md cites @n8n/n8n-nodes-langchain's
	// dist/nodes/…): this repository's nodes are TypeScript, compiled into dist/, which is not in it.
	if (first === 'nodes' && path.endsWith('.js')) return undefined;
	if (REPO_FOLDERS.includes(first) && path.includes('/')) return path;
	if (/^[\w./-]+\.md$/.test(path) && !path.startsWith('..')) return path;
	return undefined;
}

/** The scripts a page runs: `npm run <name>`, and `npm start` / `npm test` (scripts too). */
export function npmScripts(markdown: string): string[] {
	const named = [...markdown.matchAll(/\bnpm run ([a-z][\w:.-]*)/g)].map((match) => match[1]);
	const builtIn = [...markdown.matchAll(/\bnpm (start|test)\b/g)].map((match) => match[1]);
	return [...new Set([...named, ...builtIn])];
}

/**
 * The anchors of a page's headings as GitHub makes them: lower case, punctuation dropped except
 * `-` and `_`, spaces to `-`, a repeated heading gets `-1`, `-2`, ….
 */
export function headingAnchors(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	for (const match of withoutCodeBlocks(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
		const text = match[1].replace(/`/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
		const slug = text
			.toLowerCase()
			.replace(/[^\p{L}\p{N}\s_-]/gu, '')
			.replace(/\s/g, '-');
		const count = seen.get(slug) ?? 0;
		anchors.add(count === 0 ? slug : `${slug}-${count}`);
		seen.set(slug, count + 1);
	}
	return anchors;
}
