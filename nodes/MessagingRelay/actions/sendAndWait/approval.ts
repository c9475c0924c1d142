/**
 * Send and Wait for Reply, kind Approval: whether a contact's answer means yes or no. Words are
 * compared without case, accents, surrounding spaces and trailing punctuation ("Sí!" is "si"), and
 * an answer matches when it is one of the words or starts with one followed by a space ("yes
 * please"). Emoji compare as they are (👍, also with a skin tone).
 */
export interface ApprovalWords {
	yes: string[];
	no: string[];
}

export type Decision = 'approved' | 'declined' | 'unclear';

/** Lower case, no accents, no emoji skin tones or variation selectors, no trailing punctuation. */
export function normaliseAnswer(text: string): string {
	return text
		.normalize('NFD')
		.replace(/[\u0300-\u036f]/g, '')
		.replace(/(?:[\u{1F3FB}-\u{1F3FF}]|\uFE0F)/gu, '')
		.toLowerCase()
		.trim()
		.replace(/[.!?¡¿,;:)]+$/u, '')
		.trim();
}

function matches(answer: string, words: string[]): boolean {
	return words
		.map(normaliseAnswer)
		.some((word) => word !== '' && (answer === word || answer.startsWith(`${word} `)));
}

export function decide(text: string, words: ApprovalWords): Decision {
	const answer = normaliseAnswer(text);
	const yes = matches(answer, words.yes);
	const no = matches(answer, words.no);
	if (yes === no) return 'unclear';
	return yes ? 'approved' : 'declined';
}
