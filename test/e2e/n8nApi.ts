/**
 * HTTP helpers for the end-to-end suites: n8n's public API (API key), its internal REST API
 * (the owner's session cookie, for what the public API lacks), and the simulator's control routes.
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { stackInfo } from './stack';

const info = stackInfo();

/**
 * `fetch` that tries once more when a reused keep-alive connection turns out closed. n8n's server
 * closes idle sockets after 5 s (Node's default keepAliveTimeout); on a busy 2-core CI machine the
 * client can pick such a socket just as it closes and gets "other side closed" (UND_ERR_SOCKET)
 * before the request reached n8n, so sending it again cannot run it twice.
 */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
	const first = await fetch(url, init).catch((error: unknown) => error);
	if (first instanceof Response) return first;
	const code = ((first as { cause?: { code?: string } }).cause ?? {}).code;
	if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') return await fetch(url, init);
	throw new Error(`${init.method ?? 'GET'} ${url} failed: ${String(first)} (${code ?? 'no code'})`);
}

async function call(url: string, init: RequestInit): Promise<{ status: number; body: IDataObject }> {
	const response = await fetchOnce(url, init);
	const text = await response.text();
	let body: IDataObject = {};
	try {
		body = text ? (JSON.parse(text) as IDataObject) : {};
	} catch {
		body = { text };
	}
	return { status: response.status, body };
}

export async function api(method: string, path: string, body?: unknown) {
	const result = await call(`${info.n8nUrl}/api/v1${path}`, {
		method,
		headers: { 'content-type': 'application/json', 'X-N8N-API-KEY': info.apiKey },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	if (result.status >= 400) {
		throw new Error(`${method} /api/v1${path} → ${result.status} ${JSON.stringify(result.body).slice(0, 300)}`);
	}
	return result.body;
}

let cookie = '';
/** The owner's session cookie (logged in once), sent with `browser-id: e2e`. */
export async function sessionCookie() {
	if (!cookie) {
		const login = await fetchOnce(`${info.n8nUrl}/rest/login`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', 'browser-id': 'e2e' },
			body: JSON.stringify({ emailOrLdapLoginId: info.owner.email, password: info.owner.password }),
		});
		cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
	}
	return cookie;
}

export async function rest(method: string, path: string, body?: unknown) {
	return await call(`${info.n8nUrl}/rest${path}`, {
		method,
		headers: { 'content-type': 'application/json', cookie: await sessionCookie(), 'browser-id': 'e2e' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
}

export async function sim(method: string, path: string, body?: unknown) {
	return (
		await call(`${info.simUrl}/__sim${path}`, {
			method,
			headers: { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		})
	).body;
}

export interface SimRequest {
	method: string;
	path: string;
	body: IDataObject;
	account: string | null;
	at: number;
}

export async function simRequests(since: number): Promise<SimRequest[]> {
	return (await sim('GET', `/requests?since=${since}`)) as unknown as SimRequest[];
}

export interface Execution {
	id: string;
	status: string;
	finished: boolean;
	data?: { resultData: { runData: Record<string, Array<{ data?: { main: Array<Array<{ json: IDataObject }>> } }>>; error?: IDataObject } };
}

export async function executions(workflowId: string): Promise<Execution[]> {
	const page = await api('GET', `/executions?workflowId=${workflowId}&includeData=true&limit=250`);
	return (page.data as unknown as Execution[]) ?? [];
}

/** Polls until `check` holds, for at most `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
	const started = Date.now();
	for (;;) {
		const value = await check();
		if (value) return value;
		if (Date.now() - started > timeoutMs) throw new Error(`Condition not met within ${timeoutMs} ms`);
		await sleep(200);
	}
}

/** Waits until the workflow has at least `count` finished executions and returns them. */
export async function finishedExecutions(workflowId: string, count: number, timeoutMs = 90_000) {
	return await eventually(async () => {
		const list = (await executions(workflowId)).filter((e) => e.status !== 'running' && e.status !== 'new');
		return list.length >= count ? list : undefined;
	}, timeoutMs);
}

/** Items a node output in an execution (output 0 unless told). */
export function nodeItems(execution: Execution, nodeName: string, output = 0): IDataObject[] {
	const run = execution.data?.resultData.runData[nodeName]?.[0];
	return (run?.data?.main[output] ?? []).map((item) => item.json);
}

export { info };

/** A Messaging Relay credential for one of the simulator's keys. */
export async function relayCredential(name: string, apiKey: string, authHeader = 'xApiKey') {
	const created = await api('POST', '/credentials', {
		name,
		type: 'messagingRelayApi',
		data: { baseUrl: info.simUrl, apiKey, authHeader },
	});
	return { id: created.id as string, name };
}

/**
 * A workflow with a Messaging Relay Trigger ("Relay Trigger") on the given key's account,
 * optionally followed by a Message → Reply ("Reply"). Not yet published.
 */
export async function triggerWorkflow(options: {
	name: string;
	apiKey: string;
	webhookId: string;
	events: string[];
	reply?: string;
	/** The trigger's Options collection. */
	options?: IDataObject;
	/** The trigger node's version (1 unless a test is about version 2). */
	typeVersion?: number;
}) {
	const credential = await relayCredential(`${options.name} account`, options.apiKey);
	const nodes: IDataObject[] = [
		{
			id: 'relay-trigger',
			name: 'Relay Trigger',
			type: 'n8n-nodes-messaging-relay.messagingRelayTrigger',
			typeVersion: options.typeVersion ?? 1,
			position: [0, 0],
			webhookId: options.webhookId,
			parameters: { events: options.events, ...(options.options ? { options: options.options } : {}) },
			credentials: { messagingRelayApi: credential },
		},
	];
	const connections: IDataObject = {};
	if (options.reply !== undefined) {
		nodes.push({
			id: 'relay-reply',
			name: 'Reply',
			type: 'n8n-nodes-messaging-relay.messagingRelay',
			typeVersion: 1,
			position: [240, 0],
			parameters: { resource: 'message', operation: 'reply', text: options.reply },
			credentials: { messagingRelayApi: credential },
		});
		connections['Relay Trigger'] = { main: [[{ node: 'Reply', type: 'main', index: 0 }]] };
	}
	const workflow = await api('POST', '/workflows', {
		name: options.name,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	});
	return { workflowId: workflow.id as string, credential };
}

/** The production webhook URL n8n gives a trigger node. */
export const productionUrl = (webhookId: string) => `${info.n8nUrl}/webhook/${webhookId}/webhook`;
/**
 * What a lone trigger registers: its production URL marked as a shared registration, with the stamp
 * that makes each registration's URL its own (docs/shared-webhook.md). A matcher (for toEqual, or
 * its asymmetricMatch): the stamp is new at every registration.
 */
export const registeredUrl = (webhookId: string) => {
	const exact = `${productionUrl(webhookId)}?relay-share=v1`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return expect.stringMatching(new RegExp(`^${exact}&reg=[0-9a-f]{12}$`)) as { asymmetricMatch(other: unknown): boolean };
};

/** An OpenAI credential whose Base URL points at the loopback stand-in for the model API. */
export async function openAiCredential(name: string, baseUrl: string) {
	const created = await api('POST', '/credentials', {
		name,
		type: 'openAiApi',
		data: { apiKey: 'sk-standin-not-a-real-key', url: baseUrl, organizationId: '', header: false },
	});
	return { id: created.id as string, name };
}

/**
 * Imports an example workflow as a user would, with each credential placeholder pointed at the
 * credential of that type; nothing else in it changes.
 */
export async function importExample(
	example: { name: string; nodes: IDataObject[]; connections: IDataObject; settings?: IDataObject },
	credentials: Record<string, { id: string; name: string }>,
) {
	const nodes = example.nodes.map((node) => {
		const used = node.credentials as Record<string, unknown> | undefined;
		if (!used) return node;
		return { ...node, credentials: Object.fromEntries(Object.keys(used).map((type) => [type, credentials[type]])) };
	});
	const workflow = await api('POST', '/workflows', {
		name: example.name,
		nodes,
		connections: example.connections,
		settings: example.settings ?? {},
	});
	return workflow.id as string;
}
