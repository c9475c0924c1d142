import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * Parameter checks that run before any request, so a typo costs no API call and the error
 * names the field and the item it came from.
 */

function refuse(node: INode, itemIndex: number, message: string, description: string): never {
	throw new NodeOperationError(node, `${message} [item ${itemIndex}]`, { itemIndex, description });
}

export function requireText(node: INode, value: unknown, field: string, itemIndex: number): string {
	const text = typeof value === 'string' ? value : value == null ? '' : String(value);
	if (text.trim() === '') {
		refuse(
			node,
			itemIndex,
			`The field "${field}" is empty`,
			`Enter the text to send, or map it from a previous node. Empty messages are not sent.`,
		);
	}
	return text;
}

/** Only phone-number characters: this is meant to be a phone number, not a chat ID. */
const PHONE_LIKE = /^\+?[\d\s().-]+$/;

/** E.164's bounds on a phone number's digits, country code included (the README states them). */
export const PHONE_DIGITS = { min: 7, max: 15 };

/**
 * `to` is either a phone number in international format or a chat ID taken from a received
 * message. The spec does not show what chat IDs look like, so anything that is not made only
 * of phone characters is passed on as a chat ID; what looks like a phone number must be one.
 * Returns the phone number as `+` and digits, or the chat ID as typed.
 */
export function normaliseRecipient(node: INode, value: unknown, itemIndex: number): string {
	const to = (typeof value === 'string' ? value : value == null ? '' : String(value)).trim();
	if (to === '') {
		refuse(
			node,
			itemIndex,
			'The field "To" is empty',
			'Enter a phone number in international format, like +4915112345678, or the chat ID of a received message (use the Reply operation to answer a message without typing it).',
		);
	}
	if (PHONE_LIKE.test(to)) {
		const digits = to.replace(/\D/g, '');
		if (digits.length < PHONE_DIGITS.min || digits.length > PHONE_DIGITS.max) {
			refuse(
				node,
				itemIndex,
				`The field "To" is not a valid phone number: "${to}"`,
				`Use international format: a + and the country code, then the number, ${PHONE_DIGITS.min} to ${PHONE_DIGITS.max} digits in all, like +4915112345678.`,
			);
		}
		return `+${digits}`;
	}
	if (/\s/.test(to)) {
		refuse(
			node,
			itemIndex,
			`The field "To" is neither a phone number nor a chat ID: "${to}"`,
			'A phone number has only digits after the +, like +4915112345678; a chat ID has no spaces. Map the chat ID from the trigger item, or use the Reply operation.',
		);
	}
	return to;
}

export function requireHttpsUrl(
	node: INode,
	value: unknown,
	field: string,
	itemIndex: number,
): string {
	const url = (typeof value === 'string' ? value : '').trim();
	if (url === '') {
		refuse(
			node,
			itemIndex,
			`The field "${field}" is empty`,
			'Enter the HTTPS address that should receive the events.',
		);
	}
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		refuse(
			node,
			itemIndex,
			`The field "${field}" is not a URL: "${url}"`,
			'Enter a full address such as https://example.com/hooks/relay.',
		);
	}
	if (parsed.protocol !== 'https:') {
		refuse(
			node,
			itemIndex,
			`The field "${field}" must use HTTPS: "${url}"`,
			'The service only delivers to publicly reachable HTTPS URLs. Put n8n behind HTTPS (for example a reverse proxy or tunnel) and use that address.',
		);
	}
	return url;
}

export function requireId(node: INode, value: unknown, field: string, itemIndex: number): string {
	const id = (typeof value === 'string' ? value : value == null ? '' : String(value)).trim();
	if (id === '') {
		refuse(
			node,
			itemIndex,
			`The field "${field}" is empty`,
			`Choose a number from the list or enter its ID.`,
		);
	}
	if (/\s/.test(id)) {
		refuse(
			node,
			itemIndex,
			`The field "${field}" is not a number ID: "${id}"`,
			'A number ID has no spaces, like num_main. Choose the number From List, or copy its ID from there.',
		);
	}
	return id;
}
