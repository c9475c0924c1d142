/**
 * Markdown (what chat models write) to WhatsApp-style formatting (what a phone renders): **bold** → *bold*,
 * *italic* → _italic_, ~~strike~~ → ~strike~, headings bold, "* item" → "- item", links as "text (url)", code
 * monospace. Emphasis counts only at word boundaries, so `2*3*4` and snake_case_names stay as they are; code, URLs
 * and link targets are never touched, and text without Markdown comes back unchanged. Every rule, and what is left
 * as written: docs/ai-assistant.md, "Markdown on a phone".
 */

/** Private-use characters: they cannot occur in a model's answer, so they mark protected spans. */
const HOLD_OPEN = '\uE000';
const HOLD_CLOSE = '\uE001';
const BOLD = '\uE002';
const ITALIC = '\uE003';
const HELD = /\uE000(\d+)\uE001/g;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const BULLET = /^(\s*)[*+](?=[ \t]+\S)/;

/** A letter or digit: emphasis never opens or closes next to one (`2*3*4`, snake_case). */
const WORD = '\\p{L}\\p{N}';

function emphasis(marker: string, count: number): RegExp {
	const m = marker === '*' ? '\\*' : marker;
	const run = `${m}{${count}}`;
	// Opens after a non-word character and before a non-space; closes after a non-space and
	// before a non-word character. The content is as short as possible and stays on one line.
	return new RegExp(
		`(?<![${WORD}${m}\\\\])${run}(?![\\s${m}])([^\\n]*?[^\\s\\\\])${run}(?![${WORD}${m}])`,
		'gu',
	);
}

const BOLD_ITALIC = [emphasis('*', 3), emphasis('_', 3)];
const BOLD_RULES = [emphasis('*', 2), emphasis('_', 2)];
const ITALIC_RULES = [emphasis('*', 1), emphasis('_', 1)];
const STRIKE = /(?<!~)~~(?![\s~])([^\n]*?[^\s\\])~~(?!~)/gu;

class Holder {
	private readonly spans: string[] = [];

	/** Replaces `text` by a marker that no formatting rule matches, to be put back at the end. */
	hold(text: string): string {
		this.spans.push(text);
		return `${HOLD_OPEN}${this.spans.length - 1}${HOLD_CLOSE}`;
	}

	restore(text: string): string {
		// Held spans may contain markers of spans held before them (a link's text with code).
		let out = text;
		while (HELD.test(out)) {
			HELD.lastIndex = 0;
			out = out.replace(HELD, (_m, index: string) => this.spans[Number(index)]);
		}
		return out;
	}
}

const URL_TEXT = /(?:https?:\/\/|www\.)[^\s<>()]*[^\s<>().,;:!?'"*_~]/giu;

function sameTarget(text: string, url: string): boolean {
	const strip = (s: string) => s.replace(/^(?:https?:\/\/|mailto:)/i, '').replace(/\/$/, '');
	return strip(text) === strip(url);
}

/** Code spans, links, autolinks, bare URLs and escapes are taken out before emphasis is read. */
function holdInline(line: string, holder: Holder): string {
	let out = line.replace(
		/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g,
		(_m, _ticks: string, code: string) =>
			holder.hold(`\`\`\`${code.trim() === '' ? code : code.replace(/^ (.*) $/s, '$1')}\`\`\``),
	);
	out = out.replace(/\\([\\`*_{}[\]()#+\-.!~>|])/g, (_m, char: string) => holder.hold(char));
	out = out.replace(/<((?:https?:\/\/|mailto:)[^\s<>]+)>/gi, (_m, url: string) => holder.hold(url));
	out = out.replace(
		/(!?)\[([^\]\n]*)\]\(\s*<?([^\s)>]+)>?(?:\s+"[^"\n]*")?\s*\)/g,
		(_m, _image: string, text: string, url: string) => {
			const held = holder.hold(url);
			if (text.trim() === '' || sameTarget(text.trim(), url)) return held;
			return `${text} (${held})`;
		},
	);
	return out.replace(URL_TEXT, (url) => holder.hold(url));
}

function convertEmphasis(line: string): string {
	let out = line;
	for (const rule of BOLD_ITALIC) out = out.replace(rule, `${BOLD}${ITALIC}$1${ITALIC}${BOLD}`);
	for (const rule of BOLD_RULES) out = out.replace(rule, `${BOLD}$1${BOLD}`);
	for (const rule of ITALIC_RULES) out = out.replace(rule, `${ITALIC}$1${ITALIC}`);
	out = out.replace(STRIKE, '~$1~');
	return out;
}

function convertLine(line: string, holder: Holder): string {
	const heading = HEADING.exec(line);
	if (heading) {
		// The whole heading becomes bold; bold inside it would close that bold early.
		const inner = convertEmphasis(holdInline(heading[1], holder)).split(BOLD).join('');
		return inner.trim() === '' ? line : `${BOLD}${inner}${BOLD}`;
	}
	const bullet = BULLET.exec(line);
	const body = bullet ? `${bullet[1]}-${line.slice(bullet[0].length)}` : line;
	return convertEmphasis(holdInline(body, holder));
}

/** Converts one model answer. Idempotent on plain text: no Markdown, no change. */
export function markdownToWhatsApp(markdown: string): string {
	const holder = new Holder();
	const out: string[] = [];
	const lines = markdown.split('\n');
	for (let i = 0; i < lines.length; i++) {
		const fence = FENCE.exec(lines[i]);
		if (!fence) {
			out.push(convertLine(lines[i], holder));
			continue;
		}
		// A fenced block: its lines go out verbatim between ``` (an unclosed fence runs to the end).
		const closing = new RegExp(
			`^ {0,3}${fence[1][0] === '`' ? '`' : '~'}{${fence[1].length},}\\s*$`,
		);
		const code: string[] = [];
		let j = i + 1;
		while (j < lines.length && !closing.test(lines[j])) code.push(lines[j++]);
		out.push(holder.hold(`\`\`\`${code.join('\n')}\`\`\``));
		i = j;
	}
	const converted = out.join('\n').split(BOLD).join('*').split(ITALIC).join('_');
	return holder.restore(converted);
}
