/* eslint-disable no-console -- what the test excused is reported in its output, as a soak reports it */
/**
 * How much of the package one delivery runs (issue 34): a lone trigger's delivery stays in at most
 * 13 source files (V8's precise coverage of this process, test/support/codeReached.ts), and the
 * sharing protocol and the routing of replies run only when there is another trigger or a wait.
 * 10 until issue 43 moved the bet on n8n's response into a module of its own (shared/n8n/webhookResponse.ts),
 * 11 until it moved every module's memory into one owner (shared/processMemory.ts, where the closing
 * gate counts the delivery), 12 until it turned every answer into n8n's in one function
 * (deliveryOutcome.ts): the same code, one file more each time (45 functions on e0f930f, 51 after).
 */
import { sample } from '../../fixtures/events';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { functionsReached, sourceFilesReached } from '../../support/codeReached';
import { withSharedN8nPerTest, type SharedN8n } from '../../support/harness/sharedN8n';
import { TriggerHarness } from '../../support/harness/triggerRuntime';

const SHARING =
	/(receiveHandoff|sharing\/(shareDelivery|fanOut|memberHealth|ownRuns|authenticateHandoff|missedReport)|sharedWebhook\/(registeredUrl|peerClient|signedHandoff|registration))\.ts$/;
const REPLIES = /sendAndWait\//;

/**
 * Nothing when at most 13 files ran, else every file that ran with its functions: a failure names them
 * all (CI counted 12 twice on 2026-11-29; the second log named staticDataSave.ts).
 */
const overBound = (reached: Record<string, string[]>) =>
	Object.keys(reached).length <= 13 ? {} : reached;

/**
 * A save watch of an earlier request (the warm-up delivery, or the first test's), still polling, may
 * resume while a delivery is measured. A measured delivery starts no watch of its own (`watchSave` does
 * not run), so staticDataSave.ts is excused when nothing but a poll's resumption ran in it (`poll`, the
 * watch's `finally`), and counted. Other test files cannot run code here: this file starts first in a
 * fresh worker (test/support/measuredFirst.js, whose header says why that matters to V8's coverage).
 */
const RESUMED_POLL = { file: 'nodes/shared/n8n/staticDataSave.ts', functions: ['poll', ''] };
const excused: string[] = [];
function withoutResumedPoll(reached: Record<string, string[]>): Record<string, string[]> {
	const ran = reached[RESUMED_POLL.file];
	if (!ran?.every((name) => RESUMED_POLL.functions.includes(name))) return reached;
	excused.push(`${RESUMED_POLL.file}: ${ran.join(', ') || '(anonymous)'}`);
	const rest = { ...reached };
	delete rest[RESUMED_POLL.file];
	return rest;
}
afterAll(() => {
	// Reported, and bounded: at most one for each of the two tests that measure a lone delivery.
	if (excused.length > 0)
		console.warn(`loneDelivery: excused ${excused.length}: ${excused.join('; ')}`);
	expect(excused.length).toBeLessThanOrEqual(2);
});

describe('a lone trigger', () => {
	let sim: RelaySimulator;
	let harness: TriggerHarness;
	beforeAll(async () => {
		sim = await startRelaySimulator();
	});
	afterAll(async () => await sim.stop());
	beforeEach(() => sim.reset());
	afterEach(async () => await harness?.stop());

	test('a delivery that starts a run runs code in at most 13 source files, none of the sharing protocol', async () => {
		harness = await TriggerHarness.start(sim, { events: ['message.received'] });
		await harness.activate();
		// The first delivery loads what a process loads once; the second is what every one costs.
		await sim.deliver(sample('message.received'));
		const reached = withoutResumedPoll(
			await functionsReached(async () => {
				expect((await sim.deliver(sample('message.received'))).status).toBe(200);
			}),
		);
		const files = Object.keys(reached);
		expect(harness.runs).toHaveLength(2);
		expect(files).toContain('nodes/MessagingRelayTrigger/triggerVersion.ts');
		expect(files.filter((f) => SHARING.test(f) || REPLIES.test(f))).toEqual([]);
		expect(overBound(reached)).toEqual({});
	});

	test('a forged delivery is refused within the same files', async () => {
		harness = await TriggerHarness.start(sim, { events: ['message.received'] });
		await harness.activate();
		const reached = withoutResumedPoll(
			await functionsReached(async () => {
				const answer = await sim.deliver(sample('message.received'), { secret: 'whsec_forged' });
				expect(answer.status).toBe(401);
			}),
		);
		expect(harness.runs).toHaveLength(0);
		expect(overBound(reached)).toEqual({});
	});
});

describe('with another trigger on the account', () => {
	let sim: RelaySimulator;
	let n8n: SharedN8n;
	withSharedN8nPerTest((s, n) => ([sim, n8n] = [s, n]));

	test('the holder runs the sharing protocol and both triggers get the event once', async () => {
		const first = n8n.addWorkflow('first', { events: ['message.received'] });
		const second = n8n.addWorkflow('second', { events: ['message.received'] });
		await first.publish();
		await second.publish();
		const files = await sourceFilesReached(async () => {
			expect((await sim.deliver(sample('message.received'))).status).toBe(200);
			await n8n.settled();
		});
		expect(first.productionEvents).toHaveLength(1);
		expect(second.productionEvents).toHaveLength(1);
		expect(files).toEqual(
			expect.arrayContaining([
				'nodes/shared/sharing/shareDelivery.ts',
				'nodes/shared/sharing/fanOut.ts',
			]),
		);
	});
});
