/**
 * A correctly signed delivery never gets 401 after a re-registration (docs/shared-webhook.md, "A
 * registration not saved yet"). n8n saves the new secret only after the activation (or the
 * takeover's request) has finished, and every request reads static data from the database; the
 * stand-in n8n (helpers/sharedN8n.ts) keeps exactly that rule. Over real HTTP, with a service that
 * keeps delivering, signed with the secret it holds at each moment, and sends again on 503.
 */
import { sleep } from 'n8n-workflow';

import {
	formatRegistration,
	parseRegistration,
	registrationStamp,
} from '../../../../nodes/shared/sharedWebhook/registeredUrl';
import { sample } from '../../../fixtures/events';
import type { RelaySimulator } from '../../../simulator';
import {
	withSharedN8nPerTest,
	type SharedN8n,
	type SharedWorkflow,
} from '../../../support/harness/sharedN8n';

let sim: RelaySimulator;
let n8n: SharedN8n;
withSharedN8nPerTest((s, n) => ([sim, n8n] = [s, n]));

let nextEvent = 0;
function newEvent() {
	const event = sample('message.received');
	event.message.id = `wamid.unsaved-${nextEvent++}`;
	return event;
}

/**
 * The service: a new event after each one is answered, every attempt signed with the secret the
 * service holds right then; on 503 the same event again shortly. Any other answer ends that event.
 */
function keepDelivering() {
	const answers: number[] = [];
	const acknowledged: string[] = [];
	let running = true;
	const loop = (async () => {
		while (running) {
			const event = newEvent();
			let status = 0;
			do {
				// No registration: the service has nowhere to send until one is made.
				if (!sim.webhook) await sleep(10);
				else {
					status = (await sim.deliver(event)).status;
					answers.push(status);
					if (status === 503) await sleep(20);
				}
			} while (status === 0 || status === 503);
			if (status === 200) acknowledged.push(event.message.id);
			await sleep(5);
		}
	})();
	return {
		answers,
		acknowledged,
		/** Waits until `count` more events than now were answered 200. */
		async more(count: number) {
			const target = acknowledged.length + count;
			for (let i = 0; i < 1000 && acknowledged.length < target; i++) await sleep(10);
			expect(acknowledged.length).toBeGreaterThanOrEqual(target);
		},
		async stop() {
			running = false;
			await loop;
		},
	};
}

/** How often `workflow` ran each of `ids`. */
const runsOf = (workflow: SharedWorkflow, ids: string[]) =>
	ids.map((id) => workflow.productionEvents.filter((item) => item.messageId === id).length);

/** A wrong secret that looks like the service's (its length, but not hex): the kind that is looked into. */
const wrongSecret = () => `${sim.webhook!.secret.slice(0, -1)}z`;

async function deliverRaw(secret: string, url = sim.webhook!.url) {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'x-service-secret': secret },
		body: JSON.stringify(newEvent()),
	});
	return {
		status: response.status,
		retryAfter: response.headers.get('retry-after'),
		text: await response.text(),
	};
}

describe('a service that keeps delivering during a re-registration never gets 401, and every event runs once', () => {
	test('a lost registration registered again (the repair, or a restart)', async () => {
		const w = n8n.addWorkflow('auto-reply', { events: ['message.received'] });
		await w.publish();
		const service = keepDelivering();
		await service.more(3);
		sim.webhook = null; // the service lost it
		await sleep(30);
		// What n8n does with the repair's emitError: publish again (the route stays).
		await w.publish();
		await service.more(5);
		await service.stop();

		expect(service.answers).not.toContain(401);
		// The new secret arrived before n8n had saved it: those deliveries were asked again.
		expect(service.answers).toContain(503);
		expect(runsOf(w, service.acknowledged).every((runs) => runs === 1)).toBe(true);
		expect(w.productionEvents).toHaveLength(service.acknowledged.length);
		expect((await deliverRaw(wrongSecret())).status).toBe(401);
	});

	test('a second trigger joins; then the first, which the list lost, joins again with its old registration still saved', async () => {
		const first = n8n.addWorkflow('first', { events: ['message.received'] });
		const second = n8n.addWorkflow('second', { events: ['message.received'] });
		await first.publish();
		const service = keepDelivering();
		await service.more(3);
		await second.publish(); // joins: the holder now
		const secondFrom = service.acknowledged.length;
		await service.more(3);
		// The registration lost the first (a race elsewhere); its repair joins again. Its static data
		// still holds the registration it made before the second joined.
		expect(first.stored.webhookSecretDigest).toBeDefined();
		const current = parseRegistration(sim.webhook!.url)!;
		sim.webhook = {
			...sim.webhook!,
			url: formatRegistration(
				current.holderUrl,
				{ members: [], testMembers: [] },
				false,
				registrationStamp(),
			),
		};
		await first.publish();
		expect(parseRegistration(sim.webhook!.url)).toMatchObject({
			holderPath: first.productionPath,
			members: [second.productionPath],
		});
		await service.more(5);
		await service.stop();

		expect(service.answers).not.toContain(401);
		expect(service.answers).toContain(503);
		expect(runsOf(first, service.acknowledged).every((runs) => runs === 1)).toBe(true);
		expect(first.productionEvents).toHaveLength(service.acknowledged.length);
		// The second runs what the service delivered once it had joined, once each.
		expect(runsOf(second, service.acknowledged).every((runs) => runs <= 1)).toBe(true);
		expect(runsOf(second, service.acknowledged.slice(secondFrom + 1))).toEqual(
			service.acknowledged.slice(secondFrom + 1).map(() => 1),
		);
		expect((await deliverRaw(wrongSecret())).status).toBe(401);
	});

	test('a takeover: the holder leaves and a member with an old registration saved registers itself', async () => {
		const first = n8n.addWorkflow('first', { events: ['message.received'] });
		const second = n8n.addWorkflow('second', { events: ['message.received'] });
		await first.publish();
		await second.publish();
		const savedBeforeTakeover = first.db;
		expect(first.stored.webhookSecretDigest).toBeDefined(); // from when it held the registration alone
		const service = keepDelivering();
		await service.more(3);
		await second.unpublish(); // hands over: the first registers inside the takeover request
		expect(parseRegistration(sim.webhook!.url)?.holderPath).toBe(first.productionPath);
		await service.more(5);
		await service.stop();
		expect(service.answers).not.toContain(401);
		expect(runsOf(first, service.acknowledged).every((runs) => runs === 1)).toBe(true);
		expect(first.productionEvents).toHaveLength(service.acknowledged.length);

		// Here n8n saves the takeover's static data milliseconds after the PUT, so the sender rarely
		// lands in between. That moment, held still: the service already signs with the new secret,
		// the first's saved state is still the one from before.
		const saved = first.db;
		first.db = savedBeforeTakeover;
		const during = await deliverRaw(sim.webhook!.secret);
		expect(during).toMatchObject({ status: 503, retryAfter: '2' });
		expect(during.text).not.toContain(sim.webhook!.secret);
		expect(first.productionEvents).toHaveLength(service.acknowledged.length);
		first.db = saved;
		expect((await deliverRaw(sim.webhook!.secret)).status).toBe(200);
		expect(first.productionEvents).toHaveLength(service.acknowledged.length + 1);
		expect((await deliverRaw(wrongSecret())).status).toBe(401);
	});
});

describe('a wrong secret is still refused with 401', () => {
	test("many at once cost one look at the service; secrets that cannot be the service's cost none", async () => {
		const w = n8n.addWorkflow('auto-reply', { events: ['message.received'] });
		await w.publish();
		const looks = () => sim.requestsTo('GET', '/v1/webhook').length;
		let before = looks();
		// Twenty different wrong secrets of the service's length at once: a look answers all that arrived before it started.
		const secret = sim.webhook!.secret;
		// (Not hex, so none of them is the secret.)
		const guesses = Array.from(
			{ length: 20 },
			(_, i) => `${secret.slice(0, -2)}z${String.fromCharCode(97 + i)}`,
		);
		const answers = await Promise.all(guesses.map(async (guess) => await deliverRaw(guess)));
		expect(answers.map((a) => a.status)).toEqual(answers.map(() => 401));
		expect(looks() - before).toBeLessThanOrEqual(2);
		// The same wrong secret again and again: its verdict is reused for a second, then looked at again.
		before = looks();
		for (let i = 0; i < 10; i++) expect((await deliverRaw(guesses[0])).status).toBe(401);
		expect(looks() - before).toBeLessThanOrEqual(1);
		// Another length, or no secret at all: not a secret the service issued, no look.
		before = looks();
		expect((await deliverRaw('whsec_guess')).status).toBe(401);
		const unsigned = await fetch(sim.webhook!.url, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(newEvent()),
		});
		expect(unsigned.status).toBe(401);
		expect(looks()).toBe(before);
		expect(w.productionEvents).toHaveLength(0);
	});

	test('a registration of this trigger that n8n never saved counts only for a minute', async () => {
		const w = n8n.addWorkflow('auto-reply', { events: ['message.received'] });
		await w.publish();
		const holderUrl = w.productionUrl;
		const none = { members: [], testMembers: [] };
		// The service holds a registration of this trigger that its saved state does not have (a PUT
		// whose answer was lost, say), made just now: 503, it may be about to be saved.
		const unsaved = (url: string, last: string) =>
			(sim.webhook = { url, active: true, secret: `${sim.webhook!.secret.slice(0, -1)}${last}` });
		unsaved(formatRegistration(holderUrl, none, false, registrationStamp()), 'v');
		expect(await deliverRaw(sim.webhook!.secret, holderUrl)).toMatchObject({
			status: 503,
			retryAfter: '2',
		});
		// The same made two minutes ago: nothing is going to save it any more.
		unsaved(
			formatRegistration(holderUrl, none, false, registrationStamp(Date.now() - 120_000)),
			'w',
		);
		expect((await deliverRaw(sim.webhook!.secret, holderUrl)).status).toBe(401);
		// Without a stamp (made by hand, or by an older version).
		unsaved(`${holderUrl}?relay-share=v1`, 'x');
		expect((await deliverRaw(sim.webhook!.secret, holderUrl)).status).toBe(401);
		// Another trigger's registration.
		unsaved(
			formatRegistration(
				`${n8n.baseUrl}/webhook/someone-else/webhook`,
				none,
				false,
				registrationStamp(),
			),
			'y',
		);
		expect((await deliverRaw(sim.webhook!.secret, holderUrl)).status).toBe(401);
		expect(w.productionEvents).toHaveLength(0);
	});

	test('when the service cannot be asked, a mismatch is answered 503 (it cannot tell), never run', async () => {
		const w = n8n.addWorkflow('auto-reply', { events: ['message.received'] });
		await w.publish();
		sim.inject({
			method: 'GET',
			path: '/v1/webhook',
			status: 500,
			body: { error: { code: 'DOWN', message: 'down' } },
			times: 10,
		});
		expect(await deliverRaw(wrongSecret())).toMatchObject({ status: 503, retryAfter: '2' });
		expect(w.productionEvents).toHaveLength(0);
	});
});

test('every registration carries a stamp of its own, and the parser reads URLs with and without one', () => {
	const url = 'https://n8n.example.com/webhook/abc/webhook';
	const at = Date.UTC(2026, 10, 24, 12, 0, 0);
	const stamped = formatRegistration(
		url,
		{ members: ['/webhook/m/webhook'], testMembers: [] },
		false,
		registrationStamp(at),
	);
	expect(stamped).toMatch(
		/^https:\/\/n8n\.example\.com\/webhook\/abc\/webhook\?relay-share=v1&member=%2Fwebhook%2Fm%2Fwebhook&reg=[0-9a-f]{12}$/,
	);
	expect(parseRegistration(stamped)).toMatchObject({
		holderPath: '/webhook/abc/webhook',
		members: ['/webhook/m/webhook'],
		registeredAt: at,
	});
	// Two registrations in one second still differ (16 random bits each).
	expect(new Set(Array.from({ length: 5 }, () => registrationStamp(at))).size).toBeGreaterThan(1);
	expect(parseRegistration(`${url}?relay-share=v1`)).not.toHaveProperty('registeredAt');
	expect(parseRegistration(`${url}?relay-share=v1&reg=nonsense`)).not.toHaveProperty(
		'registeredAt',
	);
});
