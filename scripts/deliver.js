'use strict';
/**
 * Makes the running relay simulator deliver a sample event to the registered webhook, with
 * the secret, like the service does:
 *   npm run deliver -- message.received|number.disconnected|… [--account acct_main] [--secret wrong]
 */
const { sampleEvents } = require('../test/fixtures/relay-simulator');

const args = process.argv.slice(2);
const type = args.find((a) => !a.startsWith('--')) ?? 'message.received';
const option = (name) => {
	const index = args.indexOf(`--${name}`);
	return index >= 0 ? args[index + 1] : undefined;
};
const simUrl = process.env.RELAY_SIM_URL ?? `http://127.0.0.1:${process.env.RELAY_SIM_PORT ?? 5680}`;

(async () => {
	// A new event each time, happening now (as from the service: every event carries the time it
	// happened), so running this twice is two events, not a redelivery of one.
	const event = sampleEvents()[type];
	if (!event) throw new Error(`No sample event ${type}; one of: ${Object.keys(sampleEvents()).join(', ')}`);
	event.occurredAt = new Date().toISOString();
	const body = { event, account: option('account') ?? 'acct_main' };
	if (option('secret') !== undefined) body.secret = option('secret');
	const response = await fetch(`${simUrl}/__sim/deliver`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const result = await response.json();
	if (!response.ok) throw new Error(result.error?.message ?? JSON.stringify(result));
	console.log(`Delivered ${type} to ${body.account}'s webhook: n8n answered ${result.status} ${result.body}`);
	await new Promise((r) => setTimeout(r, 1500));
	const state = await (await fetch(`${simUrl}/__sim/state`)).json();
	const sent = state.messages.slice(-3);
	if (sent.length) console.log('Latest messages the simulator accepted:', JSON.stringify(sent, null, 2));
})().catch((error) => {
	console.error(`Delivery failed: ${error.message} (is \`npm start\` running?)`);
	process.exit(1);
});
