/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Loopback ports for a test stack. A port already taken is refused, not shared: a relay simulator
 * left over from a killed run once answered the next run's setup on the same port, with its own
 * accounts, and the suites failed far from the cause (401 for a key the new simulator knew).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export async function portIsFree(port: number): Promise<boolean> {
	return await new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = net.createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as AddressInfo;
			server.close(() => resolve(port));
		});
	});
}

/** Fails, naming what each taken port was meant for, before anything is started. */
export async function requirePortsFree(
	needed: Array<[what: string, port: number]>,
	hint: string,
): Promise<void> {
	for (const [what, port] of needed) {
		if (!(await portIsFree(port)))
			throw new Error(
				`Port ${port} (${what}) is in use on 127.0.0.1: stop what holds it or ${hint}`,
			);
	}
}
