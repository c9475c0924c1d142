import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { relayApiError } from './errors';
import { CREDENTIAL_NAME, type RelayScope } from './scopes';

type RelayContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions;

export interface RelayRequest {
	method: IHttpRequestMethods;
	/** Path below the base URL, starting with /v1. */
	path: string;
	body?: IDataObject;
	/** The scope the route needs, named in the error when the key lacks it. */
	scope: RelayScope;
	itemIndex?: number;
	/** Statuses the caller handles itself (for example 404 on GET /v1/webhook). */
	acceptStatuses?: number[];
}

export interface RelayResponse {
	statusCode: number;
	/** Parsed JSON, or `undefined` for an empty body. */
	body: unknown;
}

/** The credential's base URL without trailing slashes, so `/v1/...` joins cleanly. */
export function normaliseBaseUrl(baseUrl: unknown): string {
	return String(baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
}

function readRetryAfter(headers: IN8nHttpFullResponse['headers']): number | undefined {
	const value = headers?.['retry-after'];
	const seconds = Number(Array.isArray(value) ? value[0] : value);
	return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/**
 * Socket error codes in words. The code itself stays out of the message: NodeApiError swaps
 * any message that contains one for a generic sentence without the endpoint.
 */
const NETWORK_WORDS: Record<string, string> = {
	ECONNREFUSED: 'connection refused',
	ENOTFOUND: 'host not found',
	EAI_AGAIN: 'host name lookup failed',
	ETIMEDOUT: 'timed out',
	ECONNABORTED: 'timed out',
	ECONNRESET: 'connection reset',
	EPIPE: 'connection reset',
	EHOSTUNREACH: 'host unreachable',
};

/**
 * The code and message of a failed connection. n8n may hand the socket error over as is or
 * wrapped in a NodeApiError (code on the error, on `cause`, or in `context`).
 */
function networkFailure(error: unknown): { code?: string; message?: string } {
	const seen = error as {
		code?: unknown;
		message?: unknown;
		cause?: { code?: unknown; message?: unknown };
		context?: { code?: unknown };
	};
	const candidates = [seen?.code, seen?.cause?.code, seen?.context?.code];
	const code = candidates.find((c): c is string => typeof c === 'string' && /^E[A-Z_]+$/.test(c));
	const message = [seen?.cause?.message, seen?.message].find((m): m is string => typeof m === 'string');
	return { code, message };
}

/**
 * The only place that talks HTTP to the service. It authenticates through n8n's
 * `httpRequestWithAuthentication` (so the key is added by the credential, never by us), reads
 * the body as text so that a non-JSON answer is reported rather than half-parsed, and turns
 * every refusal into a `NodeApiError` with a cure.
 */
export async function relayApiRequest(
	this: RelayContext,
	request: RelayRequest,
): Promise<RelayResponse> {
	const credentials = await this.getCredentials(CREDENTIAL_NAME);
	const endpoint = `${request.method} ${request.path}`;
	const options: IHttpRequestOptions = {
		method: request.method,
		baseURL: normaliseBaseUrl(credentials.baseUrl),
		url: request.path,
		body: request.body,
		headers: { Accept: 'application/json' },
		encoding: 'text',
		json: false,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
	};

	let response: IN8nHttpFullResponse;
	try {
		response = (await this.helpers.httpRequestWithAuthentication.call(
			this,
			CREDENTIAL_NAME,
			options,
		)) as IN8nHttpFullResponse;
	} catch (error) {
		// A network failure. Only its code and message are kept: the original error object
		// carries the request config, whose headers hold the API key.
		const { code, message } = networkFailure(error);
		throw new NodeApiError(
			this.getNode(),
			// Not under `code`: NodeApiError would swap our message for its generic one.
			{ networkCode: code ?? 'unknown', message: message ?? 'request failed', endpoint },
			{
				message: `Could not reach the Messaging Relay API for ${endpoint}: ${NETWORK_WORDS[code ?? ''] ?? 'network error'}`,
				description: `Check the credential's Base URL (${options.baseURL}) and that n8n can reach it. ${message ?? ''}`.trim(),
				itemIndex: request.itemIndex,
				failure: { cause: 'temporarily-unavailable' },
			},
		);
	}

	const statusCode = response.statusCode;
	const rawBody = typeof response.body === 'string' ? response.body : '';
	const ok = statusCode >= 200 && statusCode < 300;
	if (!ok && !request.acceptStatuses?.includes(statusCode)) {
		throw relayApiError(this.getNode(), {
			statusCode,
			rawBody,
			retryAfterSeconds: readRetryAfter(response.headers),
			endpoint,
			scope: request.scope,
			itemIndex: request.itemIndex,
		});
	}
	if (rawBody.trim() === '') return { statusCode, body: undefined };
	try {
		return { statusCode, body: JSON.parse(rawBody) as unknown };
	} catch {
		throw new NodeApiError(
			this.getNode(),
			{ httpCode: String(statusCode), endpoint },
			{
				message: `The Messaging Relay API answered ${endpoint} with something that is not JSON`,
				description: `Expected JSON, got "${rawBody.slice(0, 120)}". Check that the credential's Base URL points at the API and not at a web page or proxy.`,
				httpCode: String(statusCode),
				itemIndex: request.itemIndex,
			},
		);
	}
}
