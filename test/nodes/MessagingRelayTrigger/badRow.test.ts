/**
 * Issue 41, item 7: one row of the account state that does not read back (a malformed `%` escape, a missing
 * field) stops nothing. Every delivery keeps working, the other rows route, the bad row is logged once with
 * what to do, and the next write of the table drops it. On f97c44d webhook() threw URIError on every request
 * (pings, hand-offs, every message), n8n answered 500, and the service retried without end.
 */
import type { INodeParameters } from 'n8n-workflow';

import { waitsInStaticData } from '../../../nodes/shared/sendAndWait/waitingRuns';
import { pausesInStaticData } from '../../../nodes/MessagingRelayTrigger/chatPause';
import type { WebhookState } from '../../../nodes/shared/sharedWebhook/webhookState';
import { ADA_CHAT, GRACE_CHAT, receivedIn, sentIn } from '../../fixtures/events';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { coreLogger } from '../../support/harness/n8nRuntime';
import { TriggerHarness } from '../../support/harness/triggerRuntime';

let sim: RelaySimulator;
let harness: TriggerHarness;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(() => sim.reset());
afterEach(async () => await harness?.stop());

const pauseOption = {
	pauseWhenPersonReplies: { settings: { minutes: 30, keyword: '#bot', apiOrigins: 'api' } },
};

test('a malformed row in the waits and in the pauses: every delivery is answered, the good rows work, one log line each, dropped at the next write', async () => {
	harness = await TriggerHarness.start(sim, {
		events: ['message.received'],
		options: pauseOption,
	} as INodeParameters);
	await harness.activate();
	const state = harness.stored as WebhookState;
	// Rows as an earlier (or damaged) save left them: one good, one with a broken escape, in each table.
	state.waitRows = [
		'good.1 4917600000009@c.us num_main mwzx0000 F /webhook-waiting/good/n%3Fx=1',
		'bad.1 %E0%A4%A num_main mwzx0000 F /webhook-waiting/bad/n',
	].join(';');
	state.waitsRev = 'mwzx0000.someoneElse.1';
	state.pauseRows = [`${GRACE_CHAT} mwzx0000 F`, `${ADA_CHAT.replace('@', '%4')} %ZZ F`].join(';');
	state.pausesRev = 'mwzx0000.someoneElse.1';

	const warnings = jest.spyOn(coreLogger(), 'warn').mockImplementation(() => undefined);
	try {
		// Any event, a chat with no wait, a paused chat: each answered as if the bad rows were not there.
		expect((await sim.deliver(receivedIn(ADA_CHAT))).status).toBe(200);
		expect((await sim.deliver(receivedIn(GRACE_CHAT))).status).toBe(200);
		expect((await sim.deliver(receivedIn(ADA_CHAT))).status).toBe(200);
		expect(harness.runs.map((r) => r.events[0])).toEqual([
			expect.objectContaining({ chatId: ADA_CHAT }),
			expect.objectContaining({ chatId: ADA_CHAT }),
		]);
		// Logged once per row, whatever the number of requests that met it; the row itself not in full.
		const lines = warnings.mock.calls.map(([message]) => String(message));
		expect(lines.filter((l) => l.includes('waitRows'))).toHaveLength(1);
		expect(lines.filter((l) => l.includes('pauseRows'))).toHaveLength(1);
		expect(lines[0]).toContain('could not be read and is skipped');
	} finally {
		warnings.mockRestore();
	}

	// The next write of each table (a person's pause) leaves the bad row out; the good ones stay.
	expect((await sim.deliver(sentIn(ADA_CHAT, 'phone'))).status).toBe(200);
	expect(Object.keys(pausesInStaticData(state)).sort()).toEqual([ADA_CHAT, GRACE_CHAT].sort());
	expect(state.pauseRows).not.toContain('%ZZ');
	expect(Object.keys(waitsInStaticData(state))).toEqual(['good.1']);
});
