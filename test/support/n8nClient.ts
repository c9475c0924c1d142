/**
 * The one client of a running n8n's HTTP API, for the stack, the end-to-end suites, the
 * benchmark and `npm run deliver`: the public API (/api/v1, with an API key) and the internal
 * REST API the editor uses (/rest, with the owner's session cookie), for what the public API
 * lacks (owner setup, API keys, the credential test, node types).
 */
import type { IDataObject } from 'n8n-workflow';
import { N8N_VERSION } from './stack/n8nVersion';

export interface Owner {
	email: string;
	password: string;
	firstName?: string;
	lastName?: string;
}

/** A logged-in session: n8n's auth cookie and the `browser-id` it is bound to. */
export interface Session {
	cookie: string;
	browserId: string;
}

export interface Answer {
	status: number;
	body: IDataObject;
}

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

const withBody = (body: unknown) => (body === undefined ? undefined : JSON.stringify(body));

export class N8nClient {
	/** The owner's session, set by login (and by any /rest answer that sets it). */
	private cookie = '';

	/**
	 * @param baseUrl  n8n's address, e.g. http://127.0.0.1:5678
	 * @param options  apiKey for /api/v1; owner to log in to /rest when needed; browserId, the
	 *   `browser-id` header n8n binds a session to (every /rest request of a session sends it);
	 *   session, one this client continues instead of logging in (see `session`)
	 */
	constructor(
		readonly baseUrl: string,
		private readonly options: {
			apiKey?: string;
			owner?: Owner;
			browserId?: string;
			session?: Session;
		} = {},
	) {
		if (options.session) {
			this.cookie = options.session.cookie;
			this.options.browserId = options.session.browserId;
		}
	}

	/**
	 * The owner's session as it stands, for another client to continue (the stack file hands the
	 * one made at setup to every end-to-end suite). Under NODE_ENV=production n8n answers a sixth
	 * login within a minute 429: 1.123.81 per address (`rateLimit: true` with express-rate-limit's
	 * defaults, 5 a minute: controllers/auth.controller.js:193, controller.registry.js:98-126),
	 * 2.41.1 per login name (`keyedRateLimit` 5 a minute: controllers/auth.controller.js:184-195).
	 * Suites that each logged in made a fast CI run fail there (1.x, stop 9).
	 */
	get session(): Session | undefined {
		return this.cookie ? { cookie: this.cookie, browserId: this.browserId } : undefined;
	}

	get apiKey(): string {
		return this.options.apiKey ?? '';
	}

	get browserId(): string {
		return this.options.browserId ?? 'relay-support';
	}

	/** Any request to n8n; the body parsed as JSON (or { text } when it is not JSON). */
	async request(
		method: string,
		path: string,
		headers: Record<string, string>,
		body?: unknown,
	): Promise<Answer & { response: Response }> {
		const response = await fetchOnce(`${this.baseUrl}${path}`, {
			method,
			headers: { 'content-type': 'application/json', ...headers },
			body: withBody(body),
		});
		const text = await response.text();
		let parsed: IDataObject = {};
		try {
			parsed = text ? (JSON.parse(text) as IDataObject) : {};
		} catch {
			parsed = { text };
		}
		return { status: response.status, body: parsed, response };
	}

	/** The public API; throws on a 4xx or 5xx with what n8n said. */
	async api(method: string, path: string, body?: unknown): Promise<IDataObject> {
		if (!this.apiKey) throw new Error(`${method} /api/v1${path}: this client has no API key`);
		const answer = await this.request(
			method,
			`/api/v1${path}`,
			{ 'X-N8N-API-KEY': this.apiKey },
			body,
		);
		if (answer.status >= 400) {
			throw new Error(
				`${method} /api/v1${path} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
			);
		}
		return answer.body;
	}

	/**
	 * The internal REST API with the owner's session (logged in on first use, and once more when
	 * n8n no longer accepts a session this client continued); the status is the caller's to judge.
	 */
	async rest(method: string, path: string, body?: unknown): Promise<Answer> {
		let answer = await this.restOnce(method, path, body);
		if (answer.status === 401 && answer.sessionSent && this.options.owner) {
			this.cookie = '';
			answer = await this.restOnce(method, path, body);
		}
		return { status: answer.status, body: answer.body };
	}

	/** One /rest request; whether it carried a session (so that a 401 means n8n refused that session). */

	private async restOnce(
		method: string,
		path: string,
		body?: unknown,
	): Promise<Answer & { sessionSent: boolean }> {
		const opensSession = path === '/login' || path === '/owner/setup';
		const cookie = opensSession ? this.cookie : await this.sessionCookie();
		const answer = await this.request(
			method,
			`/rest${path}`,
			{ cookie, 'browser-id': this.browserId },
			body,
		);
		const setCookie = answer.response.headers.get('set-cookie');
		if (setCookie) this.cookie = setCookie.split(';')[0];
		return {
			status: answer.status,
			body: answer.body,
			sessionSent: !opensSession && cookie !== '',
		};
	}

	/** The internal REST API for setting n8n up: throws on a 4xx or 5xx, returns the answer's `data`. */
	async restData(method: string, path: string, body?: unknown): Promise<IDataObject> {
		const { status, body: answer } = await this.rest(method, path, body);
		if (status >= 400)
			throw new Error(
				`${method} /rest${path} → ${status}: ${JSON.stringify(answer).slice(0, 300)}`,
			);
		return (answer.data as IDataObject | undefined) ?? answer;
	}

	/** How many times this client logged in (the suites' client continues setup's session: none). */
	logins = 0;

	/** The owner's session cookie, logging in first when there is none. */
	async sessionCookie(): Promise<string> {
		if (!this.cookie && this.options.owner) {
			const { email, password } = this.options.owner;
			this.logins++;
			await this.restData('POST', '/login', { emailOrLdapLoginId: email, password });
		}
		return this.cookie;
	}

	/** A fresh n8n: creates its owner account and logs in as that owner. */
	async setupOwner(owner: Owner): Promise<void> {
		this.options.owner = owner;
		await this.restData('POST', '/owner/setup', owner);
		await this.restData('POST', '/login', {
			emailOrLdapLoginId: owner.email,
			password: owner.password,
		});
	}

	/** An API key with every scope the owner may grant, used by this client from now on. */
	async createApiKey(label: string): Promise<string> {
		const scopes = await this.restData('GET', '/api-keys/scopes');
		const created = await this.restData('POST', '/api-keys', { label, scopes, expiresAt: null });
		this.options.apiKey = created.rawApiKey as string;
		return this.options.apiKey;
	}

	private version?: string;

	/**
	 * The running n8n's version (`versionCli` of the owner's GET /rest/settings), asked once. A
	 * client with only an API key (the queue suite's) gets the public settings, which carry no
	 * version (2.41.1 server.js:405, frontend.service.js:522-545): the n8n it talks to is then the
	 * one this process's stacks started, N8N_VERSION.
	 */
	async n8nVersion(): Promise<string> {
		this.version ??=
			((await this.restData('GET', '/settings')).versionCli as string | undefined) ?? N8N_VERSION;
		return this.version;
	}

	/**
	 * Publishes the workflow. n8n 1.x has no publishing: the public API's activate is its
	 * equivalent, synchronous, a failing trigger's error a 400 with its message (1.123.81:
	 * public-api/v1/handlers/workflows/workflows.handler.js:231-249); in 2.41.1 the same route
	 * publishes the current version.
	 */
	async publish(workflowId: string): Promise<IDataObject> {
		return await this.api('POST', `/workflows/${workflowId}/activate`);
	}

	async unpublish(workflowId: string): Promise<IDataObject> {
		return await this.api('POST', `/workflows/${workflowId}/deactivate`);
	}
}
