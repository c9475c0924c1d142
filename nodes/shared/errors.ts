import type { INode, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { RelayScope } from './scopes';

/** What the transport knows about a refused request when it turns it into an error. */
export interface RelayFailure {
	statusCode: number;
	/** The response body as text, JSON or not, possibly empty. */
	rawBody: string;
	retryAfterSeconds?: number;
	/** `GET /v1/numbers`, for the message. */
	endpoint: string;
	scope: RelayScope;
	itemIndex?: number;
	/** How many times the request was sent, when it was retried. */
	attempts?: number;
	/** A POST that failed with 5xx: the service may have taken it, so it was not resent. */
	mayHaveBeenSent?: boolean;
}

interface Envelope {
	code?: string;
	message?: string;
}

/** Reads `{ error: { code, message } }`; anything else (HTML, empty, other JSON) gives `{}`. */
export function readErrorEnvelope(rawBody: string): Envelope {
	try {
		const parsed: unknown = JSON.parse(rawBody);
		if (parsed && typeof parsed === 'object' && 'error' in parsed) {
			const error = (parsed as { error: unknown }).error;
			if (error && typeof error === 'object') {
				const { code, message } = error as Record<string, unknown>;
				return {
					code: typeof code === 'string' ? code : undefined,
					message: typeof message === 'string' ? message : undefined,
				};
			}
			if (typeof error === 'string') return { message: error };
		}
	} catch {
		// Not JSON: the caller says so in words below, with a short excerpt of the body.
	}
	return {};
}

function excerpt(rawBody: string): string {
	const flat = rawBody.replace(/\s+/g, ' ').trim();
	if (flat === '') return 'an empty body';
	return `"${flat.length > 120 ? `${flat.slice(0, 120)}…` : flat}"`;
}

/**
 * Turns a refused request into the error an n8n user reads in the node's error panel:
 * `message` says what happened, `description` what to do. The raw body is never attached,
 * and neither is the request (its headers hold the API key).
 */
export function relayApiError(node: INode, failure: RelayFailure): NodeApiError {
	const { statusCode, endpoint, scope, itemIndex } = failure;
	const envelope = readErrorEnvelope(failure.rawBody);
	const code = envelope.code ?? (statusCode >= 500 ? 'SERVER_ERROR' : 'HTTP_' + statusCode);
	const serverSays = envelope.message
		? `The service said: "${envelope.message}"`
		: `The service answered with ${excerpt(failure.rawBody)}, not the usual JSON error.`;
	const errorResponse: JsonObject = {
		httpCode: String(statusCode),
		code,
		message: envelope.message ?? null,
		endpoint,
	};
	const base = { httpCode: String(statusCode), itemIndex };

	if (statusCode === 401) {
		return new NodeApiError(node, errorResponse, {
			...base,
			message: `The Messaging Relay API key was not accepted (401 ${code})`,
			description: `The key is missing, mistyped or revoked. Create a new key in the Messaging Relay dashboard under API keys and paste it into the "Messaging Relay API" credential. ${serverSays}`,
			failure: { cause: 'credential-invalid' },
		});
	}
	if (statusCode === 403) {
		return new NodeApiError(node, errorResponse, {
			...base,
			message: `The API key is not allowed to call ${endpoint}: it lacks the ${scope} scope (403 ${code})`,
			description: `This operation needs the ${scope} scope. A key issued before a scope existed never gains it, and scopes cannot be added to an existing key: create a new key with ${scope} in the dashboard under API keys and put it in the credential. A revoked key can answer 403 too. ${serverSays}`,
			failure: { cause: 'credential-invalid' },
		});
	}
	if (statusCode === 402 || envelope.code === 'ACCOUNT_SUSPENDED') {
		return new NodeApiError(node, errorResponse, {
			...base,
			message: `The Messaging Relay account is on hold (${statusCode} ACCOUNT_SUSPENDED)`,
			description: `Every call is refused until the account is restored. The API key and its scopes are fine, so rotating the key or reconnecting will not help: contact the service (billing) to restore access. ${serverSays}`,
			failure: { cause: 'configuration-invalid' },
		});
	}
	if (statusCode === 404) {
		return new NodeApiError(node, errorResponse, {
			...base,
			message: `Not found: ${endpoint} (404 ${code})`,
			description: `Check the ID you passed, and that the credential's Base URL is the API's address without /v1. ${serverSays}`,
			failure: { cause: 'configuration-invalid' },
		});
	}
	const tries = failure.attempts && failure.attempts > 1 ? ` after ${failure.attempts} tries` : '';
	if (statusCode === 429) {
		const wait = failure.retryAfterSeconds;
		return new NodeApiError(node, errorResponse, {
			...base,
			message: `The Messaging Relay API is rate limiting requests (429 ${code})${tries}`,
			description: `${wait !== undefined ? `The service asks to retry in ${wait} s.` : 'Retry in a minute.'} Send fewer messages at once (lower "Messages in Flight"), or spread them with a Wait node. ${serverSays}`,
			failure: {
				cause: 'rate-limited',
				...(wait !== undefined ? { retryAfterMs: wait * 1000 } : {}),
			},
		});
	}
	if (statusCode >= 500) {
		return new NodeApiError(node, errorResponse, {
			...base,
			message: `The Messaging Relay service failed on ${endpoint} (${statusCode})${tries}`,
			description: failure.mayHaveBeenSent
				? `The service may have accepted the message before failing, so it was not sent again (a message must not go out twice). Check the chat before resending. ${serverSays}`
				: `This is a problem on the service's side. Retry later; if it persists, contact the service. ${serverSays}`,
			failure: { cause: 'temporarily-unavailable' },
		});
	}
	return new NodeApiError(node, errorResponse, {
		...base,
		message: `The Messaging Relay API refused ${endpoint} (${statusCode} ${code})${envelope.message ? `: ${envelope.message}` : ''}`,
		description: `${serverSays} Check the values you passed to this operation.`,
	});
}
