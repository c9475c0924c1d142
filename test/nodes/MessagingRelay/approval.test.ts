import {
	decide,
	normaliseAnswer,
} from '../../../nodes/MessagingRelay/actions/sendAndWait/approval';

const words = { yes: ['yes', 'y', '1', 'ok', 'sí', '👍'], no: ['no', 'n', '2', '👎'] };

describe("Approval: what a contact's answer means", () => {
	test.each([
		['yes', 'approved'],
		['YES', 'approved'],
		['  Yes!  ', 'approved'],
		['yes please', 'approved'],
		['1', 'approved'],
		['Si', 'approved'],
		['sí.', 'approved'],
		['👍', 'approved'],
		['👍🏽', 'approved'],
		['No', 'declined'],
		['2', 'declined'],
		['👎', 'declined'],
		['nope', 'unclear'],
		['maybe', 'unclear'],
		['12', 'unclear'],
		['', 'unclear'],
	])('%j → %s', (answer, expected) => {
		expect(decide(answer, words)).toBe(expected);
	});

	test('an answer that matches both lists is unclear, not the first list', () => {
		expect(decide('ok', { yes: ['ok'], no: ['ok'] })).toBe('unclear');
	});

	test('normalising drops case, accents, skin tones and trailing punctuation only', () => {
		expect(normaliseAnswer('  Ça Va?! ')).toBe('ca va');
		expect(normaliseAnswer('👍🏿')).toBe('👍');
	});
});
