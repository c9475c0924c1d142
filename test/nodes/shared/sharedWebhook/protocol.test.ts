/**
 * The shared-webhook protocol (docs/shared-webhook.md) over real HTTP: several workflows of one
 * stand-in n8n, each with its own trigger, on ONE simulator account.
 */
import { sleep } from 'n8n-workflow';

import { deriveShareKey, signHandoff } from '../../../../nodes/shared/sharedWebhook/signedHandoff';
import { setAsideLimits } from '../../../../nodes/shared/sharing/memberHealth';
import {
	formatRegistration,
	parseRegistration,
} from '../../../../nodes/shared/sharedWebhook/registeredUrl';
import { sample, type SampleEventType } from '../../../fixtures/events';
import type { RelaySimulator } from '../../../simulator';
import {
	withSharedN8nPerTest,
	type SharedN8n,
	type SharedWorkflow,
} from '../../../support/harness/sharedN8n';
import { secretDigest } from '../../../../nodes/shared/serviceSecret';
import { missedEventsIn } from '../../../support/missedEvents';

let sim: RelaySimulator;
let n8n: SharedN8n;
withSharedN8nPerTest((s, n) => ([sim, n8n] = [s, n]));

/** The three workflows of the issue: auto-reply, disconnect alert, group logger. */
function threeWorkflows() {
	return {
		reply: n8n.addWorkflow('auto-reply', {
			events: ['message.received'],
			options: { chatType: 'direct' },
		}),
		alert: n8n.addWorkflow('disconnect-alert', { events: ['number.disconnected'] }),
		groups: n8n.addWorkflow('group-logger', {
			events: ['group.member_joined', 'group.member_left', 'group.updated'],
		}),
	};
}

function registration() {
	return parseRegistration(sim.webhook!.url)!;
}

function holderOf(workflows: SharedWorkflow[]) {
	return workflows.find((w) => registration().holderPath === w.productionPath);
}

const counts = (workflows: Record<string, SharedWorkflow>) =>
	Object.fromEntries(
		Object.entries(workflows).map(([name, w]) => [name, w.productionEvents.length]),
	);

/** One event of each kind the three workflows select, and one none selects; each call sends new events. */
let deliveryRound = 0;
async function deliverAll() {
	const answers = [];
	deliveryRound += 1;
	for (const type of [
		'message.received',
		'number.disconnected',
		'group.updated',
		'message.read',
	] as SampleEventType[]) {
		// A real service never sends the same event twice but as a redelivery (a member's record, deliveryLedger.ts).
		answers.push(
			(await sim.deliver({ ...sample(type), deliveryId: `round-${deliveryRound}` })).status,
		);
	}
	return answers;
}

describe('joining', () => {
	test('every published trigger of the account receives exactly the events it selects, once', async () => {
		const w = threeWorkflows();
		await w.reply.publish();
		await w.alert.publish();
		await w.groups.publish();
		// The last to join holds the registration and lists the others.
		expect(registration()).toMatchObject({
			holderPath: w.groups.productionPath,
			members: expect.arrayContaining([w.reply.productionPath, w.alert.productionPath]),
		});
		expect(sim.requestsTo('PUT', '/v1/webhook')).toHaveLength(3);

		expect(await deliverAll()).toEqual([200, 200, 200, 200]);
		expect(counts(w)).toEqual({ reply: 1, alert: 1, groups: 1 });
		expect(w.reply.productionEvents[0]).toMatchObject({
			type: 'message.received',
			chatId: expect.any(String),
		});
		expect(w.alert.productionEvents[0]).toMatchObject({ type: 'number.disconnected' });
		expect(w.groups.productionEvents[0]).toMatchObject({ type: 'group.updated' });
	});

	test('simultaneous joins all end up in the registration', async () => {
		const w = threeWorkflows();
		const more = [1, 2, 3].map((i) =>
			n8n.addWorkflow(`extra-${i}`, { events: ['message.received'] }),
		);
		await Promise.all([w.reply, w.alert, w.groups, ...more].map(async (x) => await x.publish()));
		const listed = [registration().holderPath, ...registration().members];
		for (const x of [w.reply, w.alert, w.groups, ...more])
			expect(listed).toContain(x.productionPath);

		expect((await sim.deliver(sample('message.received'))).status).toBe(200);
		for (const x of [w.reply, ...more]) expect(x.productionEvents).toHaveLength(1);
		expect(w.alert.productionEvents).toHaveLength(0);
	});

	test('a trigger with another API key of the account is refused with the same-credential hint', async () => {
		const first = n8n.addWorkflow('first', { events: ['message.received'] });
		await first.publish();
		const other = n8n.addWorkflow('other-key', { events: ['message.received'] }, 'sim-key-full-2');
		const publish = other.publish();
		await expect(publish).rejects.toThrow(/already points at/);
		await expect(publish).rejects.toMatchObject({
			description: expect.stringMatching(/same Messaging Relay credential/),
		});
		expect(registration().holderPath).toBe(first.productionPath);
	});
});

describe('leaving', () => {
	test('a member leaving changes nothing for the others: no new secret, no lost event', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		const secret = sim.webhook!.secret;
		await w.reply.unpublish();
		expect(sim.webhook!.secret).toBe(secret);
		expect(sim.requestsTo('DELETE', '/v1/webhook')).toHaveLength(0);

		await deliverAll();
		expect(counts(w)).toEqual({ reply: 0, alert: 1, groups: 1 });
		// Published again: still listed, so no PUT, and it receives again.
		const puts = sim.requestsTo('PUT', '/v1/webhook').length;
		await w.reply.publish();
		expect(sim.requestsTo('PUT', '/v1/webhook')).toHaveLength(puts);
		await deliverAll();
		expect(counts(w)).toEqual({ reply: 1, alert: 2, groups: 2 });
	});

	test('the holder leaving hands the registration to a member, which registers itself', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		const oldSecret = sim.webhook!.secret;
		expect(holderOf(Object.values(w))).toBe(w.groups);
		await w.groups.unpublish();

		const holder = holderOf([w.reply, w.alert]);
		expect(holder).toBeDefined();
		expect(holder!.stored.webhookSecretDigest).toBe(secretDigest(sim.webhook!.secret));
		expect(registration().members).not.toContain(w.groups.productionPath);
		expect(w.groups.stored).toEqual({});
		expect(sim.webhook!.secret).not.toBe(oldSecret);

		expect(await deliverAll()).toEqual([200, 200, 200, 200]);
		expect(counts(w)).toEqual({ reply: 1, alert: 1, groups: 0 });
		// The old secret is worthless now.
		expect((await sim.deliver(sample('message.received'), { secret: oldSecret })).status).toBe(401);
	});

	test('a hand-over drops members that are no longer published, so the new holder forwards nothing to them', async () => {
		const w = threeWorkflows();
		const extra = n8n.addWorkflow('extra', { events: ['message.received'] });
		for (const x of [...Object.values(w), extra]) await x.publish();
		expect(holderOf([...Object.values(w), extra])).toBe(extra);
		await w.alert.unpublish(); // a member: nothing changes at the service yet
		expect(registration().members).toContain(w.alert.productionPath);
		await extra.unpublish(); // the holder hands over

		expect(registration().members).not.toContain(w.alert.productionPath);
		expect([registration().holderPath, ...registration().members].sort()).toEqual(
			[w.reply.productionPath, w.groups.productionPath].sort(),
		);
		n8n.served.length = 0;
		expect((await sim.deliver(sample('message.received'))).status).toBe(200);
		expect(n8n.served.map((s) => s.path)).not.toContain(w.alert.productionPath);
	});

	test('everyone leaving, in any order, ends with no registration', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		await w.alert.unpublish();
		await w.groups.unpublish();
		await w.reply.unpublish();
		expect(sim.webhook).toBeNull();
	});

	test('a holder whose members are all gone deletes the registration', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		w.reply.published = false; // unpublished without its delete running (n8n was killed)
		w.alert.published = false;
		await w.groups.unpublish();
		expect(sim.webhook).toBeNull();
	});
});

describe('members that cannot take an event right now', () => {
	test('a member busy for one try is retried and the service gets 200', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		w.alert.failNext = { status: 503, times: 1 };
		expect((await sim.deliver(sample('number.disconnected'))).status).toBe(200);
		expect(counts(w)).toEqual({ reply: 0, alert: 1, groups: 0 });
	});

	test('a member that is down: the service is asked to redeliver, and nobody runs it twice', async () => {
		const w = threeWorkflows();
		const logger = n8n.addWorkflow('everything', { events: ['*'] });
		for (const x of [...Object.values(w), logger]) await x.publish();
		expect(holderOf([...Object.values(w), logger])).toBe(logger);
		w.reply.failNext = { status: 500, times: 3 }; // all three tries fail

		const event = sample('message.received');
		const first = await sim.deliver(event);
		expect(first.status).toBe(503);
		expect(logger.productionEvents).toHaveLength(1); // the holder ran it; it is not lost for it
		expect(w.reply.productionEvents).toHaveLength(0);
		// The holder's record of it is in this process's memory: the request also started the
		// holder's run, and n8n saves nothing of such a request (docs/design/account-state.md).
		expect(logger.stored.pending).toBeUndefined();

		// The service delivers the same event again: only the member that missed it runs it.
		const again = await sim.deliver(event);
		expect(again.status).toBe(200);
		// Said by a flag, not only by the reason's words (a holder reads the flag: fanOut.ts).
		expect(JSON.parse(again.body)).toEqual({
			received: true,
			ignored: 'already ran at an earlier delivery',
			ranBefore: true,
		});
		expect(w.reply.productionEvents).toHaveLength(1);
		expect(logger.productionEvents).toHaveLength(1);
		expect(logger.stored.pending).toBeUndefined();
	});

	test("answering at the run's end (version 3), a holder that answers 503 starts nothing; it runs the event once, with the member, at the redelivery", async () => {
		// A run started after a 503 could die with n8n while the holder's record says it ran
		// (acknowledgement.ts): the event would be lost for the holder.
		const w = threeWorkflows();
		const logger = n8n.addWorkflow('everything', { events: ['*'] }, 'sim-key-full', 3);
		for (const x of [...Object.values(w), logger]) await x.publish();
		expect(holderOf([...Object.values(w), logger])).toBe(logger);
		w.reply.failNext = { status: 500, times: 3 };

		const event = sample('message.received');
		expect((await sim.deliver(event)).status).toBe(503);
		expect(logger.productionEvents).toHaveLength(0);
		expect(
			(logger.stored.pending as Record<string, { ran?: string[] }>)[
				Object.keys(logger.stored.pending as object)[0]
			].ran ?? [],
		).not.toContain('self');

		expect((await sim.deliver(event)).status).toBe(200);
		expect(w.reply.productionEvents).toHaveLength(1);
		expect(logger.productionEvents).toHaveLength(1);
		// The 503's record was saved (that request started nothing); the redelivery that ended it
		// started runs, so n8n did not save its end: it goes when it is an hour old.
		expect(Object.keys(logger.stored.pending as object)).toHaveLength(1);
	});

	test('two deliveries answered 503 at the same time: at their redelivery the holder runs neither again', async () => {
		// n8n loads static data at each request's start and writes it whole at its end, so the
		// second 503 overwrites the first one's pending entry (deliveryLedger.ts).
		const w = threeWorkflows();
		const logger = n8n.addWorkflow('everything', { events: ['*'] });
		for (const x of [...Object.values(w), logger]) await x.publish();
		expect(holderOf([...Object.values(w), logger])).toBe(logger);
		w.reply.failNext = { status: 500, times: 6 }; // three tries for each of the two

		const events = [sample('message.received'), sample('message.received')];
		events[1].message.id = `${events[0].message.id}-2`; // another event (its id is the body's hash)
		const first = await Promise.all(events.map(async (e) => await sim.deliver(e)));
		expect(first.map((r) => r.status)).toEqual([503, 503]);
		expect(logger.productionEvents).toHaveLength(2);

		const again = await Promise.all(events.map(async (e) => await sim.deliver(e)));
		expect(again.map((r) => r.status)).toEqual([200, 200]);
		expect(w.reply.productionEvents).toHaveLength(2);
		expect(logger.productionEvents).toHaveLength(2);
	});

	test('a member whose workflow was unpublished without notice is skipped; the others get theirs', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		w.alert.published = false;
		expect(await deliverAll()).toEqual([200, 200, 200, 200]);
		expect(counts(w)).toEqual({ reply: 1, alert: 0, groups: 1 });
	});
});

describe('a member that cannot take events for long is set aside (memberHealth.ts)', () => {
	const defaults = { ...setAsideLimits };
	afterEach(() => Object.assign(setAsideLimits, defaults));

	/** Hand-offs the member at `w` was sent (each try counts). */
	const handoffsTo = (w: SharedWorkflow) =>
		n8n.served.filter((r) => r.path === w.productionPath && r.handoff === 'event').length;

	test('a member answering 500 forever: 503 until 3 failed hand-offs over the bound, then 2xx; the others run every event once; the misses are bounded; it is taken back when it answers, and its check reports what it missed once', async () => {
		// Each failed hand-off takes about 1 s (three tries, pauses 0.2 s and 0.8 s).
		setAsideLimits.spanMs = 4_000;
		setAsideLimits.missedKept = 2;
		const w = threeWorkflows();
		for (const x of [w.alert, w.groups, w.reply]) await x.publish();
		expect(holderOf(Object.values(w))).toBe(w.reply);
		// It fails every event it selects, and still answers (200 "ignored") the ones it does not.
		w.alert.failNext = { status: 500, times: 100_000, onlyTypes: ['number.disconnected'] };

		// Failing: the service is asked to redeliver (two hand-offs, three tries each).
		const first = { ...sample('number.disconnected'), deliveryId: 'set-aside-1' };
		expect((await sim.deliver(first)).status).toBe(503);
		// An event it ignores does not count as taking events again.
		expect(
			(await sim.deliver({ ...sample('message.received'), deliveryId: 'ignored-by-alert' })).status,
		).toBe(200);
		expect((await sim.deliver(first)).status).toBe(503);
		expect(handoffsTo(w.alert)).toBe(7);
		// The third failure within the span is not enough: the bound is a time too.
		expect((await sim.deliver(first)).status).toBe(503);
		await sleep(4_000);
		// The fourth, past the span: set aside at its arrival (setAsideIfDue), so one short try
		// instead of three; the service gets its 2xx.
		expect((await sim.deliver(first)).status).toBe(200);
		expect(handoffsTo(w.alert)).toBe(11);

		// From now on: one short try per event, 2xx, and everyone else runs everything once; the
		// events it ignores do not take it back.
		for (let round = 0; round < 2; round++)
			expect(await deliverAll()).toEqual([200, 200, 200, 200]);
		expect(handoffsTo(w.alert)).toBe(11 + 8);
		expect(counts(w)).toEqual({ reply: 3, alert: 0, groups: 2 });

		// Missed: the events it selects (the 1st and one per round); bounded: 2 kept with their
		// type, the rest counted.
		const record = (
			w.reply.stored.members as Record<string, { missed: object; missedUncounted: number }>
		)[w.alert.productionPath];
		expect(Object.keys(record.missed)).toHaveLength(2);
		expect(record.missedUncounted).toBe(1);

		// It answers again: taken back at the next event, which it runs.
		w.alert.failNext.times = 0;
		expect(
			(await sim.deliver({ ...sample('number.disconnected'), deliveryId: 'back' })).status,
		).toBe(200);
		expect(counts(w)).toEqual({ reply: 3, alert: 1, groups: 2 });
		// A member that fails again starts a new run of failures: 503, not a miss.
		w.alert.failNext = { status: 500, times: 3 };
		expect(
			(await sim.deliver({ ...sample('number.disconnected'), deliveryId: 'again' })).status,
		).toBe(503);
		w.alert.failNext.times = 0;

		// Its registration check reports the misses once, as a failed execution of its workflow.
		const report = await w.alert.registrationCheckTick();
		expect(report.emitted).toEqual([]);
		expect(report.failed.map((e) => e.message)).toEqual([
			expect.stringMatching(
				/^This workflow missed 3 event\(s\) while it could not take them \(\S+ to \S+\): number\.disconnected × 2, 1 more of types not kept$/,
			),
		]);
		expect(report.failed[0].description).toContain('the service was told they were received');
		// The description names the kept ones by the ids the service sent, oldest first, and the rest by count.
		expect(missedEventsIn(report.failed[0].description)).toEqual({
			events: [
				{
					id: 'set-aside-1',
					type: 'number.disconnected',
					at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
				},
				{
					id: `round-${deliveryRound - 1}`,
					type: 'number.disconnected',
					at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
				},
			],
			notKept: 1,
		});
		expect((await w.alert.registrationCheckTick()).failed).toEqual([]);
		// The holder and the member that never failed report nothing.
		expect((await w.reply.registrationCheckTick()).failed).toEqual([]);
		expect((await w.groups.registrationCheckTick()).failed).toEqual([]);
	});
});

describe('a missed-events report across versions (memberHealth.ts, missedReport.ts)', () => {
	/** Misses in the holder's stored record for `member`, as a holder writes them (or, without ids, as the version before did). */
	function recordMisses(
		holder: SharedWorkflow,
		member: SharedWorkflow,
		missed: Record<string, unknown[]>,
	) {
		const db = JSON.parse(holder.db) as Record<string, { members?: object }>;
		const node = db[`node:${holder.node.name}`];
		node.members = {
			...node.members,
			[member.productionPath]: { changedAt: Date.now(), failures: 0, missed },
		};
		holder.db = JSON.stringify(db);
	}
	const at = Date.now() - 60_000;

	test('a holder of the version before answers without ids: the member still reports the counts, once, and lists none', async () => {
		const w = threeWorkflows();
		for (const x of [w.alert, w.groups, w.reply]) await x.publish();
		expect(holderOf(Object.values(w))).toBe(w.reply);
		recordMisses(w.reply, w.alert, {
			'ledger-1': ['number.disconnected', at, 'dlv-1'],
			'ledger-2': ['number.disconnected', at + 1_000, 'dlv-2'],
		});
		w.reply.answersMissedWithoutIds = true;

		const report = await w.alert.registrationCheckTick();
		expect(report.failed.map((e) => e.message)).toEqual([
			`This workflow missed 2 event(s) while it could not take them (${new Date(at).toISOString()} to ${new Date(at + 1_000).toISOString()}): number.disconnected × 2`,
		]);
		expect(report.failed[0].description).toContain('the service was told they were received');
		expect(report.failed[0].description).not.toContain('Missed events');
		expect(missedEventsIn(report.failed[0].description)).toBeUndefined();
		// It confirmed them: the holder forgot them.
		expect((await w.alert.registrationCheckTick()).failed).toEqual([]);
	});

	test("misses a holder recorded before the upgrade (no id kept) are named by the holder's delivery id, with those recorded after by theirs", async () => {
		const w = threeWorkflows();
		for (const x of [w.alert, w.groups, w.reply]) await x.publish();
		recordMisses(w.reply, w.alert, {
			c0ffee: ['group.updated', at],
			'ledger-2': ['number.disconnected', at + 1_000, 'dlv-2'],
		});

		const report = await w.alert.registrationCheckTick();
		expect(report.failed.map((e) => e.message)).toEqual([
			expect.stringMatching(
				/^This workflow missed 2 event\(s\) while it could not take them \(\S+ to \S+\): (group\.updated × 1, number\.disconnected × 1|number\.disconnected × 1, group\.updated × 1)$/,
			),
		]);
		expect(missedEventsIn(report.failed[0].description)).toEqual({
			events: [
				{ id: 'delivery c0ffee', type: 'group.updated', at: new Date(at).toISOString() },
				{ id: 'dlv-2', type: 'number.disconnected', at: new Date(at + 1_000).toISOString() },
			],
			notKept: 0,
		});
	});
});

describe('the registration check of a published trigger (registrationRepair.ts)', () => {
	test('every member sees the shared registration as intact; one the list lost joins again at its repair, through its own webhook URL, with no error for n8n', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		for (const x of Object.values(w))
			expect(await x.checkRegistration()).toEqual({ kind: 'intact' });

		// The registration lost the auto-reply member (a race lost somewhere else).
		const current = registration();
		sim.webhook = {
			...sim.webhook!,
			url: formatRegistration(current.holderUrl, {
				members: current.members.filter((p) => p !== w.reply.productionPath),
				testMembers: [],
			}),
		};
		expect(await w.reply.checkRegistration()).toEqual({ kind: 'notListed' });
		expect(await w.alert.checkRegistration()).toEqual({ kind: 'intact' });
		expect(await w.reply.registrationCheckTick()).toEqual({ emitted: [], failed: [] });
		expect(await w.reply.checkRegistration()).toEqual({ kind: 'intact' });
		await deliverAll();
		expect(counts(w)).toEqual({ reply: 1, alert: 1, groups: 1 });
	});

	test('the same path behind another address (another n8n) is reported, not joined', async () => {
		const w = threeWorkflows();
		await w.reply.publish();
		const elsewhere = sim.webhook!.url.replace(/^http:\/\/[^/]+/, 'https://other-n8n.example.com');
		sim.webhook = { ...sim.webhook!, url: elsewhere };
		expect(await w.reply.checkRegistration()).toEqual({ kind: 'elsewhere', url: elsewhere });
	});

	test('a lost registration is lost for every member; their repairs, all at once, join again with no error for n8n', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		sim.webhook = null;
		for (const x of Object.values(w)) expect(await x.checkRegistration()).toEqual({ kind: 'lost' });
		// Their checks fire in the same second: three joins race, each inside its own webhook call.
		const ticks = await Promise.all(Object.values(w).map((x) => x.registrationCheckTick()));
		expect(ticks).toEqual(Object.values(w).map(() => ({ emitted: [], failed: [] })));
		for (const x of Object.values(w))
			expect(await x.checkRegistration()).toEqual({ kind: 'intact' });
		await deliverAll();
		expect(counts(w)).toEqual({ reply: 1, alert: 1, groups: 1 });
	});
});

describe('a member that combines bursts', () => {
	function chatMessage(n: number) {
		const event = sample('message.received');
		Object.assign(event.message, {
			id: `wamid.shared-burst-${n}`,
			chatId: '4917600000001@c.us',
			text: `part ${n}`,
			timestamp: new Date(Date.UTC(2026, 10, 22, 9, 0, n)).toISOString(),
		});
		return event;
	}

	test('holds the forwarded messages longer than a plain forward waits, and the service still gets 200 for each', async () => {
		// 6 s quiet time: longer than any fixed forward time-out under a minute would allow.
		const combiner = n8n.addWorkflow('combiner', {
			events: ['message.received'],
			options: { combineWithinSeconds: 6 },
		});
		const logger = n8n.addWorkflow('logger', { events: ['message.received'] });
		await combiner.publish();
		await logger.publish();
		expect(holderOf([combiner, logger])).toBe(logger);

		const answers = await Promise.all(
			[1, 2, 3].map(async (n) => await sim.deliver(chatMessage(n))),
		);
		expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
		expect(logger.productionEvents).toHaveLength(3);
		expect(combiner.productionEvents).toHaveLength(1);
		expect(combiner.productionEvents[0]).toMatchObject({
			messageCount: 3,
			texts: ['part 1', 'part 2', 'part 3'],
		});
	}, 30_000);
});

describe('hand-offs are authenticated', () => {
	const key = deriveShareKey('sim-key-full');

	async function post(url: string, headers: Record<string, string>, body: string) {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...headers },
			body,
		});
		return { status: response.status, text: await response.text() };
	}

	test('forged, tampered, misdirected, stale and replayed hand-offs get 401 and start nothing', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		const body = JSON.stringify(sample('message.received'));
		const target = w.reply.productionUrl;

		// Forged: the right headers with a made-up signature, and one with another key.
		const forged = signHandoff(key, 'event', w.reply.productionPath, body).headers;
		forged['x-relay-signature'] = 'ab'.repeat(32);
		expect((await post(target, forged, body)).status).toBe(401);
		const wrongKey = signHandoff(
			deriveShareKey('guessed-key'),
			'event',
			w.reply.productionPath,
			body,
		).headers;
		expect((await post(target, wrongKey, body)).status).toBe(401);
		// Tampered: a real signature, another body.
		const real = signHandoff(key, 'event', w.reply.productionPath, body).headers;
		expect((await post(target, real, body.replace('Hello', 'Pay me'))).status).toBe(401);
		// Misdirected: signed for one member, sent to another.
		expect(
			(
				await post(
					w.alert.productionUrl,
					signHandoff(key, 'event', w.reply.productionPath, body).headers,
					body,
				)
			).status,
		).toBe(401);
		// Stale: signed two minutes ago.
		const stale = signHandoff(
			key,
			'event',
			w.reply.productionPath,
			body,
			Date.now() - 120_000,
		).headers;
		expect((await post(target, stale, body)).status).toBe(401);
		// Missing the signature.
		const unsigned = signHandoff(key, 'event', w.reply.productionPath, body).headers;
		delete unsigned['x-relay-signature'];
		expect((await post(target, unsigned, body)).status).toBe(401);
		expect(counts(w)).toEqual({ reply: 0, alert: 0, groups: 0 });

		// A genuine one runs once; the same request again is a replay.
		const genuine = signHandoff(key, 'event', w.reply.productionPath, body).headers;
		expect((await post(target, genuine, body)).status).toBe(200);
		expect((await post(target, genuine, body)).status).toBe(401);
		expect(counts(w)).toEqual({ reply: 1, alert: 0, groups: 0 });
	});

	test('a member runs a forwarded event once when the holder forwards it again because its answer was lost', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		const alert = w.alert.productionPath === registration().holderPath ? w.groups : w.alert;
		expect(alert).toBe(w.alert);
		const body = JSON.stringify(sample('number.disconnected'));
		// The holder forwarded it and the member ran it; then n8n stopped before the holder
		// answered the service (nothing of the holder's request was kept).
		expect(
			(
				await post(
					alert.productionUrl,
					signHandoff(key, 'event', alert.productionPath, body).headers,
					body,
				)
			).status,
		).toBe(200);
		await n8n.restart();
		// The service delivers the same event again; the holder forwards it again.
		expect((await sim.deliver(JSON.parse(body))).status).toBe(200);
		await n8n.settled();
		expect(counts(w)).toEqual({ reply: 0, alert: 1, groups: 0 });
		// Another event still runs.
		const next = sample('number.disconnected');
		next.occurredAt = '2026-11-23T18:00:00.000Z';
		expect((await sim.deliver(next)).status).toBe(200);
		await n8n.settled();
		expect(counts(w)).toEqual({ reply: 0, alert: 2, groups: 0 });
	});

	test('a stranger cannot take over, and a 401 answer leaks no secret', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		const secret = sim.webhook!.secret;
		const takeover = JSON.stringify({ leaving: w.groups.productionPath });
		const headers = signHandoff(
			deriveShareKey('sim-key-full-2'),
			'takeover',
			w.reply.productionPath,
			takeover,
		).headers;
		const answer = await post(w.reply.productionUrl, headers, takeover);
		expect(answer.status).toBe(401);
		expect(answer.text).not.toContain(secret);
		expect(answer.text).not.toContain(key);
		expect(sim.webhook!.secret).toBe(secret);
		expect(sim.requestsTo('PUT', '/v1/webhook')).toHaveLength(3);
	});
});

describe('static data lost, restarts, test listeners', () => {
	test('the holder losing its static data re-registers with the same members', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		const members = registration().members;
		w.groups.db = '{}';
		await w.groups.publish('init');
		expect(registration()).toMatchObject({ holderPath: w.groups.productionPath, members });
		expect(w.groups.stored.webhookSecretDigest).toBe(secretDigest(sim.webhook!.secret));
		await deliverAll();
		expect(counts(w)).toEqual({ reply: 1, alert: 1, groups: 1 });
	});

	test('a member losing its static data gets its account key back at the next start', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		w.reply.db = '{}';
		// Until then a forwarded event finds no key: the holder is told to redeliver, nothing is lost.
		w.reply.failNext = { status: 500, times: 0 };
		expect((await sim.deliver(sample('message.received'))).status).toBe(503);
		const puts = sim.requestsTo('PUT', '/v1/webhook').length;
		await n8n.restart();
		expect(sim.requestsTo('PUT', '/v1/webhook')).toHaveLength(puts);
		expect((await sim.deliver(sample('message.received'))).status).toBe(200);
		expect(counts(w)).toEqual({ reply: 1, alert: 0, groups: 0 });
	});

	test('a restart keeps the registration and every member', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		const before = sim.webhook!;
		await n8n.restart();
		expect(sim.webhook).toEqual(before);
		await deliverAll();
		expect(counts(w)).toEqual({ reply: 1, alert: 1, groups: 1 });
	});

	test('listening for a test event receives the next event while the published ones keep theirs', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		await w.alert.listenForTest();
		expect(registration()).toMatchObject({ holderPath: w.alert.testPath, holderTest: true });

		expect((await sim.deliver(sample('number.disconnected'))).status).toBe(200);
		await n8n.settled();
		expect(w.alert.executions.map((e) => e.mode).sort()).toEqual(['production', 'test']);
		// The listener ended after its event and handed the registration back to a published trigger.
		expect(w.alert.testListening).toBe(false);
		expect(Object.values(w).map((x) => x.productionPath)).toContain(registration().holderPath);

		await deliverAll();
		expect(counts(w)).toEqual({ reply: 1, alert: 2, groups: 1 });
		expect(w.alert.executions.filter((e) => e.mode === 'test')).toHaveLength(1);
	});

	test('stopping a test listener that got nothing leaves the published ones as they were', async () => {
		const w = threeWorkflows();
		for (const x of Object.values(w)) await x.publish();
		await w.reply.listenForTest();
		await w.reply.stopTest();
		await deliverAll();
		expect(counts(w)).toEqual({ reply: 1, alert: 1, groups: 1 });
	});
});
