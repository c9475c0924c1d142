import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IN8nHttpFullResponse,
	INode,
	IPollFunctions,
	ITriggerFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { relayApiError } from './errors';
import {
	backoffMs,
	cancellableSleep,
	gateFor,
	parseRetryAfter,
	retryPolicy,
	waitForGate,
} from './retry';
import { contextMemory } from './processMemory';
import { CREDENTIAL_NAME, type RelayScope } from './scopes';

type RelayContext =
	| IExecuteFunctions
	| ILoadOptionsFunctions
	| IHookFunctions
	| IPollFunctions
	| ITriggerFunctions
	| IWebhookFunctions;

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

/**
 * Socket error codes in words. The code itself stays out of the message: NodeApiError swaps
 * any message that contains one for a generic sentence without the endpoint.
 */
export const NETWORK_WORDS: Record<string, string> = {
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
 * The code and message of a failed connection. n8n may hand the socket error over as is or wrapped
 * in a NodeApiError (code on the error, on `cause`, or in `context`). n8n-workflow 1.123's NodeApiError
 * drops `cause` and keeps the code only in `httpCode`: looked at last, after 2.x's places
 * (docs/design/n8n-internals.md, "A failed connection's code: NodeApiError's cause").
 */
export function networkFailure(error: unknown): { code?: string; message?: string } {
	const seen = error as {
		code?: unknown;
		message?: unknown;
		cause?: { code?: unknown; message?: unknown };
		context?: { code?: unknown };
		httpCode?: unknown;
	};
	const candidates = [seen?.code, seen?.cause?.code, seen?.context?.code, seen?.httpCode];
	const code = candidates.find((c): c is string => typeof c === 'string' && /^E[A-Z_]+$/.test(c));
	const message = [seen?.cause?.message, seen?.message].find(
		(m): m is string => typeof m === 'string',
	);
	return { code, message };
}

/**
 * The credential and the node, read once per node run: n8n decrypts the credential on every
 * getCredentials call and deep-copies the node on every getNode call, which with hundreds of
 * messages in flight costs more than the requests themselves.
 */
const credentialCache = contextMemory<Promise<ICredentialDataDecryptedObject>>(
	'credentials read',
	"each node run's decrypted credential",
);
function credentialsOf(context: RelayContext): Promise<ICredentialDataDecryptedObject> {
	let credentials = credentialCache.get(context);
	if (!credentials) {
		credentials = context.getCredentials(CREDENTIAL_NAME);
		credentialCache.set(context, credentials);
	}
	return credentials;
}

const nodeCache = contextMemory<INode>('nodes read', "each node run's copy of its node");
/** `context.getNode()`, copied once per run. Read only: n8n hands out a copy for that reason. */
export function nodeOf(context: RelayContext): INode {
	let node = nodeCache.get(context);
	if (!node) {
		node = context.getNode();
		nodeCache.set(context, node);
	}
	return node;
}

/** Network failures after which the request was certainly not received. */
const NEVER_SENT: ReadonlySet<string> = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
]);

/** Methods the service can receive twice without harm (PUT /v1/webhook sets, not adds). */
const IDEMPOTENT: ReadonlySet<string> = new Set(['GET', 'PUT', 'DELETE', 'HEAD']);

type Attempt =
	| { kind: 'response'; response: IN8nHttpFullResponse }
	| { kind: 'network'; code?: string; message?: string };

/**
 * Every call to the service's API from a node (the credential test has its own: credentialTest.ts), through
 * n8n's `httpRequestWithAuthentication` (the credential adds the key); the body is read as text to report a
 * non-JSON answer, and every refusal becomes a `NodeApiError` with a cure. Retried for every method: a 429 (not
 * taken; waited out per Retry-After, shared by the run) and a connection refused before sending. 5xx, resets and
 * timeouts are retried with backoff only for GET, PUT and DELETE: a POST /v1/messages is never sent twice.
 */
export async function relayApiRequest(
	this: RelayContext,
	request: RelayRequest,
): Promise<RelayResponse> {
	const credentials = await credentialsOf(this);
	const node = nodeOf(this);
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
		timeout: retryPolicy.timeoutMs,
	};
	const gate = gateFor(this);
	const signal = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	const idempotent = IDEMPOTENT.has(request.method);

	for (let attempt = 1; ; attempt++) {
		await waitForGate(node, gate, signal);
		const outcome = await send(this, options, credentials);
		const retriesLeft = attempt < retryPolicy.maxAttempts;

		if (outcome.kind === 'network') {
			const retryable = NEVER_SENT.has(outcome.code ?? '') || idempotent;
			if (retryable && retriesLeft) {
				await cancellableSleep(node, backoffMs(attempt), signal);
				continue;
			}
			throw networkError(node, endpoint, options.baseURL!, outcome, request, idempotent);
		}

		const { statusCode } = outcome.response;
		const rawBody = typeof outcome.response.body === 'string' ? outcome.response.body : '';
		if (statusCode === 429) {
			const waitMs =
				parseRetryAfter(outcome.response.headers?.['retry-after']) ?? backoffMs(attempt);
			if (retriesLeft && waitMs <= retryPolicy.maxRateLimitWaitMs) {
				gate.pausedUntil = Math.max(gate.pausedUntil, Date.now() + waitMs);
				continue;
			}
		} else if (statusCode >= 500 && idempotent && retriesLeft) {
			await cancellableSleep(node, backoffMs(attempt), signal);
			continue;
		}

		const ok = statusCode >= 200 && statusCode < 300;
		if (!ok && !request.acceptStatuses?.includes(statusCode)) {
			const retryAfterMs = parseRetryAfter(outcome.response.headers?.['retry-after']);
			throw relayApiError(node, {
				statusCode,
				rawBody,
				retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
				endpoint,
				scope: request.scope,
				itemIndex: request.itemIndex,
				attempts: attempt,
				mayHaveBeenSent: statusCode >= 500 && !idempotent,
			});
		}
		return { statusCode, body: parseBody(node, rawBody, statusCode, endpoint, request.itemIndex) };
	}
}

async function send(
	context: RelayContext,
	options: IHttpRequestOptions,
	credentials: ICredentialDataDecryptedObject,
): Promise<Attempt> {
	const reference = nodeOf(context).credentials?.[CREDENTIAL_NAME];
	try {
		// The credential read once for this run is handed to n8n, which otherwise loads and
		// decrypts it again for every request; n8n still applies its `authenticate`.
		const response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_NAME,
			{ ...options },
			{
				credentialsDecrypted: {
					id: reference?.id ?? '',
					name: reference?.name ?? '',
					type: CREDENTIAL_NAME,
					data: { ...credentials },
				},
			},
		)) as IN8nHttpFullResponse;
		return { kind: 'response', response };
	} catch (error) {
		// Only the code and message are kept: the original error object carries the request
		// config, whose headers hold the API key.
		return { kind: 'network', ...networkFailure(error) };
	}
}

function networkError(
	node: INode,
	endpoint: string,
	baseUrl: string,
	failure: { code?: string; message?: string },
	request: RelayRequest,
	idempotent: boolean,
): NodeApiError {
	const words = NETWORK_WORDS[failure.code ?? ''] ?? 'network error';
	const unsure = !idempotent && !NEVER_SENT.has(failure.code ?? '');
	return new NodeApiError(
		node,
		// Not under `code`: NodeApiError would swap our message for its generic one.
		{
			networkCode: failure.code ?? 'unknown',
			message: failure.message ?? 'request failed',
			endpoint,
		},
		{
			message: `Could not reach the Messaging Relay API for ${endpoint}: ${words}`,
			description: unsure
				? `The request may have reached the service before the connection failed, so it was not sent again (a message must not go out twice). Check the chat before resending. ${failure.message ?? ''}`.trim()
				: `Check the credential's Base URL (${baseUrl}) and that n8n can reach it. ${failure.message ?? ''}`.trim(),
			itemIndex: request.itemIndex,
			failure: { cause: 'temporarily-unavailable' },
		},
	);
}

function parseBody(
	node: INode,
	rawBody: string,
	statusCode: number,
	endpoint: string,
	itemIndex?: number,
) {
	if (rawBody.trim() === '') return undefined;
	try {
		return JSON.parse(rawBody) as unknown;
	} catch {
		throw new NodeApiError(
			node,
			{ httpCode: String(statusCode), endpoint },
			{
				message: `The Messaging Relay API answered ${endpoint} with something that is not JSON`,
				description: `Expected JSON, got "${rawBody.slice(0, 120)}". Check that the credential's Base URL points at the API and not at a web page or proxy.`,
				httpCode: String(statusCode),
				itemIndex,
			},
		);
	}
}
