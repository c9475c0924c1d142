/**
 * A workflow whose runs keep failing, wherever it stands on the account's shared webhook
 * (docs/shared-webhook.md, "A workflow whose runs keep failing, wherever it stands"), over real
 * HTTP: triggers of version 3 ("When the Workflow Finishes"), whose failing runs n8n answers 500
 * {"message":"Error in workflow"} (the stand-in n8n does the same: sharedN8n.ts, runsFail).
 */
import { sleep } from 'n8n-workflow';

import { setAsideLimits } from '../../../../nodes/shared/sharing/memberHealth';
import { parseRegistration } from '../../../../nodes/shared/sharedWebhook/registeredUrl';
import { sample, type SampleEventType } from '../../../fixtures/events';
import type { RelaySimulator } from '../../../simulator';
import {
	withSharedN8nPerTest,
	type SharedN8n,
	type SharedWorkflow,
} from '../../../support/harness/sharedN8n';
import { missedEventsIn } from '../../../support/missedEvents';
import { deliver } from '../../../support/deliver';

let sim: RelaySimulator;
let n8n: SharedN8n;
withSharedN8nPerTest((s, n) => ([sim, n8n] = [s, n]));

const defaults = { ...setAsideLimits };
afterEach(() => Object.assign(setAsideLimits, defaults));

/** Event hand-offs a workflow's production URL was sent (each try counts). */
const handoffsTo = (w: SharedWorkflow) =>
	n8n.served.filter((r) => r.path === w.productionPath && r.handoff === 'event').length;

/** Deliveries of the service to a workflow's URL (not hand-offs). */
const holderPath = () => parseRegistration(sim.webhook!.url)!.holderPath;

let round = 0;
function event(type: SampleEventType) {
	round += 1;
	return { ...sample(type), deliveryId: `failing-${round}` };
}

/** The service delivers; the holder's verdict of its own run arrives right after its answer. */
async function deliverThenSettle(body: unknown) {
	const answer = await deliver(sim, body);
	await sleep(20);
	return answer.status;
}

/** Two members and a holder of every event (published last, it holds the webhook). */
async function account(holderFails = 0) {
	const reply = n8n.addWorkflow('auto-reply', { events: ['message.received'] }, 'sim-key-full', 3);
	const alert = n8n.addWorkflow(
		'disconnect-alert',
		{ events: ['number.disconnected'] },
		'sim-key-full',
		3,
	);
	const logger = n8n.addWorkflow('logger', { events: ['*'] }, 'sim-key-full', 3);
	for (const w of [reply, alert, logger]) await w.publish();
	expect(holderPath()).toBe(logger.productionPath);
	logger.runsFail = holderFails;
	return { reply, alert, logger };
}

test('a forward n8n answered "Error in workflow" (the run happened and failed) is not tried again at once; the redelivery runs it again; one failure sets nothing aside', async () => {
	const { reply, alert, logger } = await account();
	alert.runsFail = 1;
	const disconnect = event('number.disconnected');

	// One hand-off, one failed run: the service is asked to deliver it again.
	expect(await deliverThenSettle(disconnect)).toBe(503);
	expect(handoffsTo(alert)).toBe(1);
	expect(alert.failedRuns).toBe(1);
	// The service's redelivery runs it again, and now it succeeds; nobody else runs it twice.
	expect(await deliverThenSettle(disconnect)).toBe(200);
	expect(handoffsTo(alert)).toBe(2);
	expect(alert.productionEvents).toHaveLength(2);
	expect(logger.productionEvents).toHaveLength(1);
	expect(reply.productionEvents).toHaveLength(0);

	// A member that could not start the run (n8n busy: another 5xx) still gets the quick tries.
	alert.failNext = { status: 500, times: 1 };
	expect(await deliverThenSettle(event('number.disconnected'))).toBe(200);
	expect(handoffsTo(alert)).toBe(4);
	// Not set aside by one failure: a failing run later is a 503 again, not a miss.
	alert.runsFail = 1;
	expect(await deliverThenSettle(event('number.disconnected'))).toBe(503);
	expect(handoffsTo(alert)).toBe(5);
});

test("the holder's own runs failing: 500 until 3 failures over the bound, then set aside at the next arrival (2xx, its run offered once by a hand-off to itself); the members run every event once; taken back by a run that succeeds; its check reports what it missed", async () => {
	setAsideLimits.spanMs = 3_000;
	const { reply, alert, logger } = await account(Number.MAX_SAFE_INTEGER);
	const message = event('message.received');

	// Its own run fails: n8n's 500 goes to the service, which delivers again; the member ran it
	// once and answers the repeated forwards "already ran".
	for (let i = 0; i < 3; i++) expect(await deliverThenSettle(message)).toBe(500);
	expect(reply.productionEvents).toHaveLength(1);
	expect(logger.failedRuns).toBe(3);
	// Three failures within the span are not enough: the bound is a time too.
	await sleep(3_000);
	expect(handoffsTo(logger)).toBe(0);
	// The fourth, past the span: set aside at its arrival (memberHealth.ts, setAsideIfDue), before
	// its own run could fail once more. The service gets 2xx; the holder's run is offered once by a
	// hand-off to itself (it fails: a miss); the members run every event once.
	expect(await deliverThenSettle(message)).toBe(200);
	expect(handoffsTo(logger)).toBe(1);
	expect(logger.failedRuns).toBe(4);
	const disconnect = event('number.disconnected');
	expect(await deliverThenSettle(disconnect)).toBe(200);
	const groupUpdate = event('group.updated');
	expect(await deliverThenSettle(groupUpdate)).toBe(200);
	expect(handoffsTo(logger)).toBe(3);
	expect([reply.productionEvents.length, alert.productionEvents.length]).toEqual([1, 1]);
	expect(reply.failedRuns + alert.failedRuns).toBe(0);

	// It succeeds again: the offered run takes it back; the next event runs in the service's
	// request again (no hand-off to itself).
	logger.runsFail = 0;
	expect(await deliverThenSettle(event('message.read'))).toBe(200);
	expect(handoffsTo(logger)).toBe(4);
	expect(await deliverThenSettle(event('message.read'))).toBe(200);
	expect(handoffsTo(logger)).toBe(4);
	expect(logger.productionEvents.length - logger.failedRuns).toBe(2);
	// Failing again starts a new run of failures: 500, not a miss.
	logger.runsFail = 1;
	expect(await deliverThenSettle(event('message.read'))).toBe(500);

	// Its registration check reports what it missed while set aside, once.
	const report = await logger.registrationCheckTick();
	expect(report.failed.map((e) => e.message)).toEqual([
		expect.stringMatching(
			/^This workflow missed 3 event\(s\) while it could not take them \(\S+ to \S+\): (message\.received|number\.disconnected|group\.updated) × 1, /,
		),
	]);
	// Named one by one, by the ids the service sent, in the order they were missed.
	expect(
		missedEventsIn(report.failed[0].description)?.events.map(({ id, type }) => [id, type]),
	).toEqual([
		[message.deliveryId, 'message.received'],
		[disconnect.deliveryId, 'number.disconnected'],
		[groupUpdate.deliveryId, 'group.updated'],
	]);
	expect((await logger.registrationCheckTick()).failed).toEqual([]);
	expect((await reply.registrationCheckTick()).failed).toEqual([]);
});

test('a lone trigger whose runs fail is not set aside: the service delivers again, as with one workflow', async () => {
	setAsideLimits.spanMs = 500;
	const lone = n8n.addWorkflow('lone', { events: ['*'] }, 'sim-key-full', 3);
	await lone.publish();
	lone.runsFail = Number.MAX_SAFE_INTEGER;
	const message = event('message.received');
	for (let i = 0; i < 3; i++) expect(await deliverThenSettle(message)).toBe(500);
	await sleep(600);
	for (let i = 0; i < 2; i++) expect(await deliverThenSettle(message)).toBe(500);
	expect(handoffsTo(lone)).toBe(0);
	expect((await lone.registrationCheckTick()).failed).toEqual([]);
});
