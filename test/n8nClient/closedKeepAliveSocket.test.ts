/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * A suite's first request may get a keep-alive socket an earlier suite file in the same jest worker
 * left idle, which n8n closes after 5 s: plain `fetch` then fails "other side closed" before the
 * request reached n8n (load.e2e.ts in CI, 2026-11-26). The client's `request` sends it once more on
 * a new connection. The stand-in server below closes a reused socket without answering, on loopback.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { N8nClient } from '../support/n8nClient';

/** Long enough for the finished request's socket to go back to fetch's pool, idle. */
const idle = () => new Promise((resolve) => setTimeout(resolve, 50));

let server: Server;
let baseUrl: string;
const requestsPerSocket = new Map<Socket, number>();

beforeEach(async () => {
	requestsPerSocket.clear();
	server = createServer((request, response) => {
		const count = (requestsPerSocket.get(request.socket) ?? 0) + 1;
		requestsPerSocket.set(request.socket, count);
		// A second request on a kept-alive socket: closed unanswered, as n8n's idle timeout does.
		if (count > 1) {
			request.socket.destroy();
			return;
		}
		response.writeHead(200, { 'content-type': 'application/json' });
		response.end(JSON.stringify([{ name: 'messagingRelayApi' }]));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});

test('plain fetch on a socket closed under it fails "other side closed"', async () => {
	const first = await fetch(`${baseUrl}/types/credentials.json`);
	expect(first.status).toBe(200);
	await first.text();
	await idle();
	const failed = await fetch(`${baseUrl}/types/credentials.json`).catch(
		(error: Error & { cause?: { code?: string } }) => error,
	);
	// (Node's TypeError, of another realm than jest's: compared by its text.)
	expect(String(failed)).toBe('TypeError: fetch failed');
	expect((failed as Error & { cause?: { code?: string; message?: string } }).cause).toMatchObject({
		code: 'UND_ERR_SOCKET',
		message: 'other side closed',
	});
});

test("the client's request sends it again on a new connection and gets the answer", async () => {
	const client = new N8nClient(baseUrl);
	expect((await client.request('GET', '/types/credentials.json', {})).status).toBe(200);
	await idle();
	const again = await client.request('GET', '/types/credentials.json', {});
	expect(again.status).toBe(200);
	expect(again.body).toEqual([{ name: 'messagingRelayApi' }]);
	// One socket served the first answer and was closed on the second request; a new one answered.
	expect([...requestsPerSocket.values()].sort()).toEqual([1, 2]);
});
