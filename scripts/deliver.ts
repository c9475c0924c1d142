/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Makes the running relay simulator deliver a sample event to the registered webhook, with the
 * secret, like the service does, then says what happened in n8n: which workflows ran the event
 * and how their runs ended (asked through n8n's API with the key `npm start` created), and the
 * messages the workflows sent through the simulator.
 *
 *   npm run deliver -- message.received|number.disconnected|… [--account acct_main] [--secret wrong]
 *
 * The stack is the one `npm start` runs (its stack file), or the file RELAY_STACK_FILE names;
 * RELAY_SIM_URL (or RELAY_SIM_PORT) points at another simulator.
 */
import { sampleEvents } from '../test/fixtures/events';
import { executionsSince, type Execution } from '../test/support/executions';
import { N8nClient } from '../test/support/n8nClient';
import { SimClient } from '../test/support/simClient';
import { readStackFile, stackFilePath, type StackInfo } from '../test/support/stack/stackFile';
import { sleep } from '../test/support/waitUntil';

const args = process.argv.slice(2);
const type = args.find((a) => !a.startsWith('--')) ?? 'message.received';
const option = (name: string) => {
	const index = args.indexOf(`--${name}`);
	return index >= 0 ? args[index + 1] : undefined;
};

function runningStack(): StackInfo | undefined {
	try {
		return readStackFile(stackFilePath());
	} catch {
		return undefined;
	}
}

/** "Ran in: …" lines for the executions, with each workflow's name. */
async function ranIn(client: N8nClient, runs: Execution[]): Promise<string[]> {
	const names = new Map<string, string>();
	for (const id of new Set(runs.map((run) => run.workflowId as string))) {
		names.set(id, (await client.api('GET', `/workflows/${id}`)).name as string);
	}
	return runs
		.sort((a, b) => Number(a.id) - Number(b.id))
		.map((run) => `  ${names.get(run.workflowId as string)} (${run.status}, execution ${run.id})`);
}

async function main() {
	const stack = runningStack();
	const simUrl =
		process.env.RELAY_SIM_URL ??
		(process.env.RELAY_SIM_PORT
			? `http://127.0.0.1:${process.env.RELAY_SIM_PORT}`
			: stack?.simUrl) ??
		'http://127.0.0.1:5680';
	const simulator = new SimClient(simUrl);

	// A new event each time, happening now (as from the service: every event carries the time it
	// happened), so running this twice is two events, not a redelivery of one.
	const event = sampleEvents()[type];
	if (!event)
		throw new Error(`No sample event ${type}; one of: ${Object.keys(sampleEvents()).join(', ')}`);
	event.occurredAt = new Date().toISOString();
	const account = option('account') ?? 'acct_main';
	const secret = option('secret');

	const since = new Date();
	const delivered = await simulator.deliver({
		event,
		account,
		...(secret === undefined ? {} : { secret }),
	});
	const accepted = delivered.status >= 200 && delivered.status < 300;
	// A 2xx body is the answering trigger's own view ("ignored: event type not selected" when
	// another workflow of the account ran it): what ran is told below, from n8n itself.
	console.log(
		`Delivered ${type} to ${account}'s webhook: n8n answered ${delivered.status}${accepted ? '' : ` ${delivered.body}`}.`,
	);

	if (!stack?.apiKey) {
		await sleep(1500);
		console.log(
			`Could not ask n8n which workflows ran it (no running \`npm start\`: ${stackFilePath()} is missing); see Executions in the n8n editor.`,
		);
	} else {
		const client = new N8nClient(stack.n8nUrl, { apiKey: stack.apiKey });
		try {
			const runs = await executionsSince(client, since);
			if (runs.length) console.log(['Ran in:', ...(await ranIn(client, runs))].join('\n'));
			else if (accepted)
				console.log(
					`No workflow ran it: no published trigger on ${account} selects this ${type} event (its Events and filters).`,
				);
			else console.log('No workflow ran it.');
		} catch (error) {
			console.log(
				`Could not ask n8n which workflows ran it (${(error as Error).message}); see Executions in the editor at ${stack.n8nUrl}.`,
			);
		}
	}

	const sent = (await simulator.state()).messages.filter((m) => m.timestamp >= since.toISOString());
	if (sent.length)
		console.log(
			'Messages the workflows sent through the simulator:',
			JSON.stringify(sent, null, 2),
		);
}

main().catch((error: Error) => {
	console.error(`Delivery failed: ${error.message} (is \`npm start\` running?)`);
	process.exit(1);
});
