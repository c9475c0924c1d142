import { createHash } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { eventSchemas, type EventType, type RelayEvent } from './schemas/events';

/** Larger bodies are refused with 413: no event of the catalogue comes near this. */
export const MAX_BODY_BYTES = 1024 * 1024;

export type Delivery =
	| { kind: 'refused'; status: number; error: string }
	| { kind: 'valid'; body: IDataObject; event: RelayEvent }
	| { kind: 'invalid'; body: IDataObject; problems: string[] }
	| { kind: 'unknown'; body: IDataObject };

export type ReadableDelivery = Exclude<Delivery, { kind: 'refused' }>;

/**
 * Step 2 of a delivery (MessagingRelayTrigger/triggerVersion.ts, webhook()): what arrived. The
 * body's text (byte for byte, what a hand-off forwards) and its delivery id (what the shared
 * webhook's records file it under, deliveryLedger.ts) are computed here once and handed down.
 */
export interface Arrival {
	kind: 'arrived';
	delivery: ReadableDelivery;
	text: string;
	id: string;
}

interface RawRequest {
	rawBody?: unknown;
	body?: unknown;
	headers?: Record<string, string | string[] | undefined>;
}

/**
 * The spec says every event is "a POST with a JSON body" and shows no Content-Type. So JSON
 * (`application/json`, `…+json`), text (`text/plain`, whose text must then be JSON) and no type at
 * all are read as JSON; a type that says the body is something else (a form, XML, a file) is
 * refused with 415 before n8n's parse of it could be mistaken for an event.
 */
export function contentTypeProblem(request: RawRequest): string | undefined {
	const header = request.headers?.['content-type'];
	const type = (Array.isArray(header) ? header[0] : (header ?? ''))
		.split(';')[0]
		.trim()
		.toLowerCase();
	if (type === '' || type === 'application/json' || type.endsWith('+json') || type === 'text/plain')
		return undefined;
	return `Content-Type ${type} is not JSON: the trigger expects a JSON event (send Content-Type: application/json)`;
}

/**
 * A node of version 2 does not let n8n evaluate the version-1 "binary data" expression, and then
 * n8n's parseRequestBody parses only the content types it knows (docs/per-delivery-findings.md,
 * section 4): a body sent without a Content-Type is left unread. It is read here, up to
 * MAX_BODY_BYTES, so it is judged like any other.
 */
export async function readUnparsedBody(
	request: RawRequest & AsyncIterable<unknown> & { readable?: boolean },
) {
	if (request.rawBody !== undefined || request.body !== undefined || request.readable !== true)
		return;
	const chunks: Buffer[] = [];
	let kept = 0;
	for await (const chunk of request) {
		// Past the limit the rest is drained, not kept: readBody answers 413 from what was kept.
		if (kept > MAX_BODY_BYTES) continue;
		const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
		kept += buffer.byteLength;
		chunks.push(buffer);
	}
	request.rawBody = Buffer.concat(chunks);
}

function isRecord(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads a delivery's body. n8n has already parsed a JSON object body, and that is used as is;
 * the raw bytes are looked at only for their size and when n8n's parse gave nothing usable,
 * to tell malformed JSON, an empty body, an array and a string apart.
 */
function readBody(request: RawRequest): { body?: unknown; status?: number; error?: string } {
	const raw = request.rawBody;
	const hasRaw = raw instanceof Uint8Array || typeof raw === 'string';
	if (hasRaw) {
		const size = typeof raw === 'string' ? Buffer.byteLength(raw) : raw.byteLength;
		if (size > MAX_BODY_BYTES) {
			return { status: 413, error: `Body too large (${size} bytes, at most ${MAX_BODY_BYTES})` };
		}
	}
	if (isRecord(request.body) && Object.keys(request.body).length > 0) return { body: request.body };
	if (!hasRaw) return { body: request.body };
	const text = typeof raw === 'string' ? raw : Buffer.from(raw).toString('utf8');
	if (text.trim() === '') return { status: 400, error: 'Empty body: expected a JSON event' };
	try {
		return { body: JSON.parse(text) };
	} catch {
		return { status: 400, error: 'Body is not valid JSON' };
	}
}

/** The body as text, byte for byte as it arrived when n8n kept the raw bytes (it does). */
export function rawBodyText(request: RawRequest): string {
	const raw = request.rawBody;
	if (raw instanceof Uint8Array) return Buffer.from(raw).toString('utf8');
	if (typeof raw === 'string') return raw;
	return JSON.stringify(request.body ?? {});
}

/**
 * Reads the request (also a body n8n left unparsed) into an Arrival, or the refusal (400, 413,
 * 415). `verifiedText` is the body text a hand-off's signature was checked over, used as is.
 */
export async function whatArrived(
	request: RawRequest & AsyncIterable<unknown> & { readable?: boolean },
	verifiedText?: string,
): Promise<Arrival | Extract<Delivery, { kind: 'refused' }>> {
	await readUnparsedBody(request);
	const delivery = readDelivery(request);
	if (delivery.kind === 'refused') return delivery;
	const text = verifiedText ?? rawBodyText(request);
	return { kind: 'arrived', delivery, text, id: deliveryIdOf(text) };
}

/** Turns an HTTP delivery into an event, or says why it cannot be one. */
export function readDelivery(request: RawRequest): Delivery {
	const wrongType = contentTypeProblem(request);
	if (wrongType) return { kind: 'refused', status: 415, error: wrongType };
	const { body, status, error } = readBody(request);
	if (status !== undefined) return { kind: 'refused', status, error: error! };
	if (!isRecord(body) || Object.keys(body).length === 0) {
		return { kind: 'refused', status: 400, error: 'Expected a JSON object event with a "type"' };
	}
	if (typeof body.type !== 'string' || body.type === '') {
		return { kind: 'refused', status: 400, error: 'The event has no "type"' };
	}
	if (!Object.prototype.hasOwnProperty.call(eventSchemas, body.type))
		return { kind: 'unknown', body };

	const parsed = eventSchemas[body.type as EventType].safeParse(body);
	if (parsed.success) return { kind: 'valid', body, event: parsed.data as RelayEvent };
	const problems = parsed.error.issues.map(
		(issue) => `${issue.path.length ? issue.path.join('.') : '(body)'}: ${issue.message}`,
	);
	return { kind: 'invalid', body, problems };
}

/**
 * The id under which a delivery is recorded: the first half of its body's SHA-256 (128 bits tell
 * events apart and keep static data small). The service's redelivery carries the same body.
 */
export function deliveryIdOf(body: string | Uint8Array): string {
	return createHash('sha256').update(body).digest('hex').slice(0, 32);
}
