/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The end-to-end suites continue the owner's session opened at setup (N8nClient's `session`) instead
 * of each logging in: n8n answers a sixth login within a minute 429 (1.123.81 per address, 2.41.1 per
 * login name), and a fast CI run of the 1.x suites failed there (stop 9: "POST /rest/login → 429").
 * The stand-in below is n8n's login route as those versions have it (5 a minute, then 429; a session
 * bound to its `browser-id`), on loopback: the client's real HTTP against it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { N8nClient, type Owner } from '../support/n8nClient';

const owner: Owner = { email: 'owner@example.com', password: 'Relay-demo-2026' };

/** n8n's /rest as far as sessions go: login (5 a minute), and GET /rest/settings behind the session. */
function standIn() {
	const state = {
		logins: 0,
		refusedLogins: 0,
		valid: new Map<string, string>(),
		seen: [] as Array<{ path: string; cookie: string; browserId: string }>,
	};
	const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
		const cookie = request.headers.cookie ?? '';
		const browserId = String(request.headers['browser-id'] ?? '');
		state.seen.push({ path: request.url ?? '', cookie, browserId });
		const answer = (status: number, body: object, headers: Record<string, string> = {}) => {
			response.writeHead(status, { 'content-type': 'application/json', ...headers });
			response.end(JSON.stringify(body));
		};
		request.resume();
		request.on('end', () => {
			if (request.url === '/rest/login') {
				if (state.logins >= 5) {
					state.refusedLogins++;
					return answer(429, { message: 'Too many requests' });
				}
				state.logins++;
				const token = `n8n-auth=token-${state.logins}`;
				state.valid.set(token, browserId);
				return answer(
					200,
					{ data: { id: 'owner' } },
					{ 'set-cookie': `${token}; Path=/; HttpOnly` },
				);
			}
			if (state.valid.get(cookie) !== browserId) return answer(401, { message: 'Unauthorized' });
			return answer(200, { data: { versionCli: '2.41.1' } });
		});
	});
	return { server, state };
}

let stand: ReturnType<typeof standIn>;
let baseUrl: string;

beforeEach(async () => {
	stand = standIn();
	await new Promise<void>((resolve) => stand.server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(stand.server.address() as AddressInfo).port}`;
});

afterEach(async () => {
	stand.server.closeAllConnections();
	await new Promise((resolve) => stand.server.close(resolve));
});

test('ten suites that each log in: the sixth login is refused 429, as in the failed CI run', async () => {
	const results: string[] = [];
	for (let suite = 0; suite < 10; suite++) {
		const client = new N8nClient(baseUrl, { owner, browserId: 'e2e' });
		results.push(
			await client.restData('GET', '/settings').then(
				() => 'ok',
				(error: Error) => error.message,
			),
		);
	}
	expect(results.slice(0, 5)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
	expect(results[5]).toBe('POST /rest/login → 429: {"message":"Too many requests"}');
	expect(stand.state.refusedLogins).toBe(5);
});

test('ten suites that continue the session opened at setup log in no more: one login in all', async () => {
	const setup = new N8nClient(baseUrl, { owner });
	await setup.restData('POST', '/login', {
		emailOrLdapLoginId: owner.email,
		password: owner.password,
	});
	const session = setup.session;
	expect(session).toEqual({ cookie: 'n8n-auth=token-1', browserId: 'relay-support' });

	for (let suite = 0; suite < 10; suite++) {
		const client = new N8nClient(baseUrl, { owner, browserId: 'e2e', session });
		expect((await client.restData('GET', '/settings')).versionCli).toBe('2.41.1');
		expect(client.logins).toBe(0);
		// The session is bound to the browser-id it was opened with: the client sends that one, not its own.
		expect(client.browserId).toBe('relay-support');
	}
	expect(stand.state.logins).toBe(1);
	expect(
		stand.state.seen
			.filter((r) => r.path === '/rest/settings')
			.every((r) => r.cookie === 'n8n-auth=token-1' && r.browserId === 'relay-support'),
	).toBe(true);
});

test('a continued session n8n no longer accepts: the client logs in once and asks again', async () => {
	const client = new N8nClient(baseUrl, {
		owner,
		session: { cookie: 'n8n-auth=from-before-a-reset', browserId: 'e2e' },
	});
	const answer = await client.rest('GET', '/settings');
	expect(answer.status).toBe(200);
	expect(client.logins).toBe(1);
	expect(stand.state.seen.map((r) => r.path)).toEqual([
		'/rest/settings',
		'/rest/login',
		'/rest/settings',
	]);
});

test('a fresh session refused too is answered 401 to the caller, not asked again and again', async () => {
	const client = new N8nClient(baseUrl, {
		owner,
		session: { cookie: 'n8n-auth=stale', browserId: 'e2e' },
	});
	// The stand-in binds each new session to the browser-id it was opened with; break that binding.
	const login = stand.state.valid.set.bind(stand.state.valid);
	stand.state.valid.set = (token: string) => login(token, 'another-browser');
	const answer = await client.rest('GET', '/settings');
	expect(answer.status).toBe(401);
	expect(client.logins).toBe(1);
	expect(stand.state.seen.map((r) => r.path)).toEqual([
		'/rest/settings',
		'/rest/login',
		'/rest/settings',
	]);
});
