import { markdownToWhatsApp } from '../../../nodes/MessagingRelay/whatsappFormat';

describe('Markdown → WhatsApp formatting', () => {
	test.each([
		// [what, markdown, WhatsApp]
		['bold with asterisks', 'This is **important**.', 'This is *important*.'],
		['bold with underscores', 'This is __important__.', 'This is *important*.'],
		['italic with an asterisk', 'This is *really* nice', 'This is _really_ nice'],
		['italic with an underscore stays', 'This is _really_ nice', 'This is _really_ nice'],
		['bold and italic', '***Both*** at once', '*_Both_* at once'],
		['italic inside bold', '**Open *today* only**', '*Open _today_ only*'],
		['strike', 'Price: ~~20 €~~ 15 €', 'Price: ~20 €~ 15 €'],
		['heading', '# Opening hours', '*Opening hours*'],
		['level-3 heading with bold inside', '### **Step 1**: book', '*Step 1: book*'],
		['closing hashes of a heading', '## Prices ##', '*Prices*'],
		['bullet list with asterisks', '* eggs\n* milk', '- eggs\n- milk'],
		['bullet list with plus signs, nested', '+ eggs\n  + brown', '- eggs\n  - brown'],
		['dash list stays', '- eggs\n- milk', '- eggs\n- milk'],
		['numbered list stays', '1. first\n2. second', '1. first\n2. second'],
		['bullet with bold item', '* **Mon**: 9–18', '- *Mon*: 9–18'],
		[
			'link',
			'See [our menu](https://example.com/menu_2026).',
			'See our menu (https://example.com/menu_2026).',
		],
		[
			'link whose text is the URL',
			'[https://example.com](https://example.com)',
			'https://example.com',
		],
		['autolink', 'Go to <https://example.com/a_b_c>', 'Go to https://example.com/a_b_c'],
		['image', '![logo](https://example.com/logo.png)', 'logo (https://example.com/logo.png)'],
		['inline code', 'Run `npm_install --save`', 'Run ```npm_install --save```'],
		['inline code with double backticks', 'Type ``a`b`` here', 'Type ```a`b``` here'],
		[
			'fenced code block, language dropped, content verbatim',
			'Code:\n```js\nconst a = 2*3*4; // **not bold**\n```\nDone',
			'Code:\n```const a = 2*3*4; // **not bold**```\nDone',
		],
		['escaped asterisks', 'Use \\*stars\\* literally', 'Use *stars* literally'],
		[
			'bold URL keeps its underscores',
			'**https://example.com/a_b_c**',
			'*https://example.com/a_b_c*',
		],
		['emphasis next to punctuation', '(**yes**), "*no*"', '(*yes*), "_no_"'],
		['unicode words', '**Grüße** aus _Köln_', '*Grüße* aus _Köln_'],
	])('%s', (_what, markdown, whatsapp) => {
		expect(markdownToWhatsApp(markdown)).toBe(whatsapp);
	});

	test.each([
		['arithmetic', '2*3*4 = 24'],
		['arithmetic with spaces', '2 * 3 * 4 = 24'],
		['snake_case', 'Set my_var_name and another_one_here'],
		['URL with underscores', 'Open https://example.com/some_path_with_under_scores?x_y=1'],
		['URL with asterisks and tildes', 'https://example.com/~user/a*b*c'],
		['www URL', 'www.example.com/a_b_c_d'],
		['e-mail address', 'Write to first_last@example_domain.com'],
		['plain text', 'Hello! We are open 9 to 6, Monday to Friday.\nSee you.'],
		['a lone asterisk and underscore', 'Footnote* and a_ trailing'],
		['emoji and unicode', 'Danke 😊 — bis morgen'],
		['a single backtick', "It's `unfinished"],
		['a Windows path', 'C:\\Users\\ada\\file_name.txt'],
		['empty', ''],
		['quote and rule', '> quoted line\n\n---'],
	])('leaves %s as it is', (_what, text) => {
		expect(markdownToWhatsApp(text)).toBe(text);
	});

	test('a whole model answer', () => {
		const answer = [
			'## Our opening hours',
			'',
			'We are open **Monday to Friday**, *9:00–18:00*.',
			'* Saturday: ~~closed~~ 10:00–14:00',
			'* Sunday: closed',
			'',
			'Book at [our site](https://example.com/book_now) or reply with `BOOK`.',
		].join('\n');
		expect(markdownToWhatsApp(answer)).toBe(
			[
				'*Our opening hours*',
				'',
				'We are open *Monday to Friday*, _9:00–18:00_.',
				'- Saturday: ~closed~ 10:00–14:00',
				'- Sunday: closed',
				'',
				'Book at our site (https://example.com/book_now) or reply with ```BOOK```.',
			].join('\n'),
		);
	});
});
