/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The bet on n8n's response (nodes/shared/n8n/webhookResponse.ts) against Node's own
 * ServerResponse over loopback, the object under n8n's Express response (Express adds `status` and
 * `json` to it, as `expressLike` does here; the real one is in the e2e suites): `whenAnswered`
 * reports an answer that went out with its status, a connection closed first as none, once.
 */
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { sleep } from 'n8n-workflow';

import {
	sendOn,
	whenAnswered,
	type WebhookResponse,
} from '../../../../nodes/shared/n8n/webhookResponse';

/** Express's two methods the package uses, on the same ServerResponse (its events stay Node's). */
function expressLike(response: ServerResponse): WebhookResponse {
	return Object.assign(response, {
		status(code: number) {
			response.statusCode = code;
			return response as unknown as WebhookResponse;
		},
		json(body: unknown) {
			response.setHeader('content-type', 'application/json');
			response.end(JSON.stringify(body));
			return response;
		},
	});
}

/** One request to a server whose handler gets the response; resolves what whenAnswered reported. */
async function serve(
	handle: (response: WebhookResponse) => void,
	abortAfterMs?: number,
): Promise<{ reported: Array<number | undefined>; body: string }> {
	const reported: Array<number | undefined> = [];
	let settled!: () => void;
	const done = new Promise<void>((resolve) => (settled = resolve));
	const server = createServer((_, response) => {
		const express = expressLike(response);
		whenAnswered(express, (status) => {
			reported.push(status);
			settled();
		});
		handle(express);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	const body = await new Promise<string>((resolve) => {
		const req = request({ host: '127.0.0.1', port, method: 'POST' }, (res) => {
			let text = '';
			res.on('data', (chunk: Buffer) => (text += chunk.toString()));
			res.on('end', () => resolve(text));
		});
		req.on('error', () => resolve(''));
		req.end('{}');
		if (abortAfterMs !== undefined) void sleep(abortAfterMs).then(() => req.destroy());
	});
	await done;
	// Both events have fired by now for an answered request: a second report would be here.
	await sleep(20);
	await new Promise((resolve) => server.close(resolve));
	return { reported, body };
}

test('an answer that went out is reported once, with its status', async () => {
	const { reported, body } = await serve((response) =>
		sendOn(response, 503, { error: 'later' }, { 'Retry-After': '2' }),
	);
	expect(reported).toEqual([503]);
	expect(JSON.parse(body)).toEqual({ error: 'later' });
});

test('a connection closed before any answer is reported as none', async () => {
	const { reported } = await serve(() => undefined, 50);
	expect(reported).toEqual([undefined]);
});

test('a second answer on an answered response is dropped, not thrown', async () => {
	const { reported, body } = await serve((response) => {
		sendOn(response, 200, { received: true });
		sendOn(response, 503, { error: 'too late' });
	});
	expect(reported).toEqual([200]);
	expect(JSON.parse(body)).toEqual({ received: true });
});
