/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The main job: n8n with these nodes, against the local relay simulator (or a real account),
 * the auto-reply and the disconnect alert published (test/support/stack/provision.ts; on the
 * simulator the alert is sent from its number to its operator's phone, test/support/examples.ts;
 * on a real account the alert is left for you to complete). Keeps running until Ctrl-C.
 *
 *   npm start                                   # simulator
 *   RELAY_BASE_URL=https://… RELAY_API_KEY=… npm start   # a real account
 *   N8N_PORT=5678 RELAY_SIM_PORT=5680 npm start # other ports
 *
 * It leaves the running stack's addresses and keys in a file (NPM_START_STACK_FILE), from which
 * `npm run deliver` asks n8n which workflows ran a delivery; the file goes when it stops.
 */
import { createInterface } from 'node:readline/promises';

import { say } from '../test/support/stack/runtime';
import { stackInfoOf, startStack } from '../test/support/stack/single';
import {
	NPM_START_STACK_FILE,
	removeStackFile,
	writeStackFile,
} from '../test/support/stack/stackFile';

async function askForAccount(): Promise<{ baseUrl: string; apiKey: string } | undefined> {
	if (process.env.RELAY_BASE_URL && process.env.RELAY_API_KEY) {
		return { baseUrl: process.env.RELAY_BASE_URL, apiKey: process.env.RELAY_API_KEY };
	}
	if (process.env.CI || !process.stdin.isTTY || process.env.RELAY_USE_SIMULATOR) return undefined;
	const rl = createInterface({ input: process.stdin, output: process.stdout });
	const baseUrl = (
		await rl.question('Messaging Relay base URL (Enter for the local simulator): ')
	).trim();
	let apiKey = '';
	if (baseUrl) apiKey = (await rl.question('API key: ')).trim();
	rl.close();
	return baseUrl && apiKey ? { baseUrl, apiKey } : undefined;
}

async function main() {
	const account = await askForAccount();
	const stack = await startStack({
		n8nPort: Number(process.env.N8N_PORT ?? 5678),
		simPort: Number(process.env.RELAY_SIM_PORT ?? 5680),
		account,
		keepUserFolder: true,
	});
	const info = stackInfoOf(stack);
	writeStackFile(NPM_START_STACK_FILE, info);
	const lines = [
		'',
		'n8n is running with the Messaging Relay nodes.',
		`  Editor:   ${stack.n8nUrl}`,
		`  Login:    ${stack.owner.email} / ${stack.owner.password}`,
		`  Data:     ${stack.userFolder} (n8n log: ${stack.logFile})`,
		`  Published: ${Object.values(stack.workflows)
			.map((w) => `"${w.name}"`)
			.join(', ')}`,
	];
	if (stack.simUrl) {
		lines.push(
			`  Simulator: ${stack.simUrl} (API key sim-key-full)`,
			'',
			'Deliver a sample inbound message (the auto-reply workflow answers it through the simulator):',
			`  npm run deliver -- message.received`,
			'A disconnected number (the alert workflow, a trigger of its own on the same account):',
			'  npm run deliver -- number.disconnected',
		);
	} else {
		lines.push(
			'',
			'Using your account: its webhook now points at this n8n, which must be reachable over public HTTPS.',
		);
		// The alert's From Number and To are yours to pick: n8n refuses to publish it until they are set.
		for (const workflow of Object.values(stack.unpublished ?? {})) {
			lines.push(
				`Imported, not published: "${workflow.name}". Open it, pick From Number and type the phone to alert in To, then publish.`,
			);
		}
	}
	lines.push('', 'Press Ctrl-C to stop.');
	console.log(lines.join('\n'));

	const shutdown = async () => {
		say('stopping');
		removeStackFile(NPM_START_STACK_FILE);
		await stack.stop();
		process.exit(0);
	};
	process.on('SIGINT', () => void shutdown());
	process.on('SIGTERM', () => void shutdown());
}

main().catch((error: Error) => {
	console.error(`\nCould not start: ${error.message}`);
	process.exit(1);
});
