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
		const { code, message } = error as { code?: string; message?: string };
		throw new NodeApiError(
			this.getNode(),
			{ code: code ?? 'NETWORK_ERROR', message: message ?? 'request failed', endpoint },
			{
				message: `Could not reach the Messaging Relay API for ${endpoint} (${code ?? 'network error'})`,
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
