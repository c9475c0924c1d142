/**
 * The Messaging Relay Watch node against the simulator, through n8n-core's PollContext: each
 * change kind, nothing on the first poll, nothing twice after a restart, API errors and 429.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { relayCredentials } from '../../support/harness/n8nRuntime';
import { N8N_BASE, WatchHarness } from '../../support/harness/pollRuntime';

let sim: RelaySimulator;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());

const OUR_URL = `${N8N_BASE}/webhook/0b7e6f4c-1111-4a2b-9c3d-5e6f7a8b9c0d/webhook`;
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

/** The simulator with our webhook registered and every phone online and recently active. */
function healthyAccount() {
	sim.reset();
	sim.webhook = { url: OUR_URL, active: true, secret: 'whsec_test' };
	for (const number of sim.numbers) {
		number.health = { phoneOnline: true, lastSeenAt: minutesAgo(1), lastEventAt: minutesAgo(1) };
		if (number.id !== 'num_old') number.status = 'CONNECTED';
	}
}

const numberById = (id: string) => sim.numbers.find((n) => n.id === id)!;
const watch = (parameters: INodeParameters = {}, apiKey?: string) =>
	new WatchHarness(
		{ offlineMinutes: 30, silenceMinutes: 0, watchWebhook: true, ...parameters },
		relayCredentials(sim.baseUrl, apiKey),
	);
const kinds = (items: IDataObject[] | null) =>
	(items ?? []).map((i) => `${i.change} ${i.numberId ?? ''}`.trim());

beforeEach(healthyAccount);

describe('the first poll records the state', () => {
	test('publishing emits nothing, even with problems present, and nothing changes after', async () => {
		numberById('num_sales').health = {
			phoneOnline: false,
			lastSeenAt: minutesAgo(120),
			lastEventAt: minutesAgo(120),
		};
		sim.webhook = null;
		const harness = watch();
		expect(await harness.publish()).toBeNull();
		expect(await harness.poll()).toBeNull();
		expect(await harness.poll()).toBeNull();
		// Each poll reads the numbers and the webhook: two requests.
		expect(sim.requests.map((r) => `${r.method} ${r.path}`)).toEqual(
			Array(3).fill(['GET /v1/numbers', 'GET /v1/webhook']).flat(),
		);
	});

	test('"Report Current Problems at Start" emits what is wrong already, once', async () => {
		numberById('num_sales').health = {
			phoneOnline: false,
			lastSeenAt: minutesAgo(120),
			lastEventAt: minutesAgo(1),
		};
		sim.webhook = { url: 'https://elsewhere.example.com/hook', active: true, secret: 'x' };
		const harness = watch({ options: { emitAtStart: true } });
		const items = await harness.publish();
		expect(kinds(items)).toEqual([
			'number.phone_offline num_sales',
			'number.status_changed num_old',
			'webhook.moved',
		]);
		expect(items!.every((i) => i.problem === true)).toBe(true);
		expect(items![1].message).toBe(
			'Number "Old shop phone" (+4930123456) needs relinking (status CREDENTIALS). Pair the phone again in the Messaging Relay dashboard; until then it sends and receives nothing.',
		);
		expect(items![0].message).toMatch(
			/^The phone of number "Sales" \(\+4915187654321\) has been offline for 2 hours\./,
		);
		expect(await harness.poll()).toBeNull();
	});
});

describe('each change is emitted once, with before, after and a sentence', () => {
	test("a number's status changes to CREDENTIALS, then back", async () => {
		const harness = watch();
		await harness.publish();
		numberById('num_main').status = 'CREDENTIALS';
		const [item] = (await harness.poll())!;
		expect(item).toMatchObject({
			change: 'number.status_changed',
			problem: true,
			numberId: 'num_main',
			numberName: 'Support line',
			before: { status: 'CONNECTED', phoneOnline: true },
			after: { status: 'CREDENTIALS', phoneOnline: true },
			number: { id: 'num_main', status: 'CREDENTIALS', createdAt: '2026-01-05T10:00:00.000Z' },
		});
		expect(item.message).toBe(
			'Number "Support line" (+4915112345678) needs relinking: its status changed from CONNECTED to CREDENTIALS. Pair the phone again in the Messaging Relay dashboard; until then it sends and receives nothing.',
		);
		expect(new Date(item.detectedAt as string).getTime()).toBeGreaterThan(Date.now() - 5000);
		expect(await harness.poll()).toBeNull();

		numberById('num_main').status = 'CONNECTED';
		const [back] = (await harness.poll())!;
		expect(back).toMatchObject({ change: 'number.status_changed', problem: false });
		expect(back.message).toBe(
			'Number "Support line" (+4915112345678) is linked again: its status changed from CREDENTIALS to CONNECTED.',
		);
	});

	test('an unknown status value is reported as it is', async () => {
		const harness = watch();
		await harness.publish();
		numberById('num_sales').status = 'SYNCING';
		const [item] = (await harness.poll())!;
		expect(item).toMatchObject({
			problem: false,
			message: 'Number "Sales" (+4915187654321) changed status from CONNECTED to SYNCING.',
		});
	});

	test('a number appears and one disappears', async () => {
		const harness = watch();
		await harness.publish();
		sim.numbers.push({
			id: 'num_new',
			displayName: 'Night shift',
			pairedNumber: '+4915100000001',
			status: 'CONNECTED',
			health: { phoneOnline: true },
		});
		sim.numbers = sim.numbers.filter((n) => n.id !== 'num_sales');
		const items = (await harness.poll())!;
		expect(kinds(items)).toEqual(['number.added num_new', 'number.removed num_sales']);
		expect(items[0]).toMatchObject({
			problem: false,
			before: null,
			message: 'Number "Night shift" (+4915100000001) appeared on the account (status CONNECTED).',
		});
		expect(items[1]).toMatchObject({ problem: true, after: null, number: null });
		expect(items[1].message).toMatch(
			/^Number "Sales" \(\+4915187654321\) is no longer on the account/,
		);
		expect(await harness.poll()).toBeNull();
	});

	test('a phone offline longer than the chosen time, then back; a short outage says nothing', async () => {
		const harness = watch({ offlineMinutes: 30 });
		await harness.publish();
		// Offline since 10 minutes: not yet.
		numberById('num_sales').health = {
			phoneOnline: false,
			lastSeenAt: minutesAgo(10),
			lastEventAt: minutesAgo(10),
		};
		expect(await harness.poll()).toBeNull();
		// Back within the time: nothing.
		numberById('num_sales').health = {
			phoneOnline: true,
			lastSeenAt: minutesAgo(0),
			lastEventAt: minutesAgo(10),
		};
		expect(await harness.poll()).toBeNull();
		// Offline since 45 minutes (lastSeenAt): alert, once.
		numberById('num_sales').health = {
			phoneOnline: false,
			lastSeenAt: minutesAgo(45),
			lastEventAt: minutesAgo(45),
		};
		const [offline] = (await harness.poll())!;
		expect(offline).toMatchObject({
			change: 'number.phone_offline',
			problem: true,
			numberId: 'num_sales',
			after: { phoneOnline: false },
		});
		expect(offline.message).toBe(
			'The phone of number "Sales" (+4915187654321) has been offline for 45 minutes. The link is intact, but nothing is sent or received until the phone is on and has signal.',
		);
		expect(await harness.poll()).toBeNull();
		numberById('num_sales').health = {
			phoneOnline: true,
			lastSeenAt: minutesAgo(0),
			lastEventAt: minutesAgo(0),
		};
		const [online] = (await harness.poll())!;
		expect(online).toMatchObject({
			change: 'number.phone_online',
			problem: false,
			before: { phoneOnline: false },
		});
		expect(online.message).toBe(
			'The phone of number "Sales" (+4915187654321) is online again after about 45 minutes.',
		);
	});

	test('without lastSeenAt, the outage counts from the first poll that saw it', async () => {
		const harness = watch({ offlineMinutes: 30 });
		await harness.publish();
		numberById('num_sales').health = { phoneOnline: false };
		expect(await harness.poll()).toBeNull();
		// Half an hour later, as n8n would see it: move the recorded start back.
		const stored = harness.state.numbers as Record<string, IDataObject>;
		stored.num_sales.offlineSince = minutesAgo(31);
		expect(kinds(await harness.poll())).toEqual(['number.phone_offline num_sales']);
	});

	test('a number that needs relinking gets no offline alert on top', async () => {
		const harness = watch({ offlineMinutes: 30 });
		await harness.publish();
		numberById('num_main').status = 'CREDENTIALS';
		numberById('num_main').health = { phoneOnline: false, lastSeenAt: minutesAgo(90) };
		expect(kinds(await harness.poll())).toEqual(['number.status_changed num_main']);
		expect(await harness.poll()).toBeNull();
	});

	test('no events for longer than the chosen time (off by default), then events again', async () => {
		const quiet = watch();
		await quiet.publish();
		numberById('num_main').health = {
			phoneOnline: true,
			lastSeenAt: minutesAgo(0),
			lastEventAt: minutesAgo(600),
		};
		expect(await quiet.poll()).toBeNull();

		healthyAccount();
		const harness = watch({ silenceMinutes: 120 });
		await harness.publish();
		numberById('num_main').health = {
			phoneOnline: true,
			lastSeenAt: minutesAgo(0),
			lastEventAt: minutesAgo(150),
		};
		const [silent] = (await harness.poll())!;
		expect(silent).toMatchObject({ change: 'number.silent', problem: true, numberId: 'num_main' });
		expect(silent.message).toBe(
			'Number "Support line" (+4915112345678) has had no event for 2 hours 30 min. If that is unusual, check the phone and the link in the Messaging Relay dashboard.',
		);
		expect(await harness.poll()).toBeNull();
		numberById('num_main').health = {
			phoneOnline: true,
			lastSeenAt: minutesAgo(0),
			lastEventAt: minutesAgo(0),
		};
		expect(kinds(await harness.poll())).toEqual(['number.events_resumed num_main']);
	});

	test('the webhook is gone, set elsewhere, inactive, on a test URL, and back', async () => {
		const harness = watch();
		await harness.publish();

		sim.webhook = null;
		const [lost] = (await harness.poll())!;
		expect(lost).toMatchObject({
			change: 'webhook.lost',
			problem: true,
			numberId: null,
			before: { state: 'ours', url: OUR_URL },
			after: { state: 'none', url: null },
		});
		expect(lost.message).toMatch(
			/^The account's webhook is gone: no pushed events \(such as number.disconnected\) reach n8n\./,
		);
		expect(await harness.poll()).toBeNull();

		sim.webhook = { url: 'https://other.example.com/hook', active: true, secret: 'x' };
		const [moved] = (await harness.poll())!;
		expect(moved).toMatchObject({
			change: 'webhook.moved',
			after: { state: 'elsewhere', url: 'https://other.example.com/hook' },
		});
		expect(moved.message).toMatch(
			/^The account's webhook now points at https:\/\/other.example.com\/hook, not at this n8n/,
		);

		sim.webhook = {
			url: OUR_URL.replace('/webhook/', '/webhook-test/'),
			active: true,
			secret: 'x',
		};
		const [test] = (await harness.poll())!;
		expect(test.message).toMatch(
			/points at this n8n's test URL .*: the published trigger workflow receives nothing/,
		);

		sim.webhook = { url: OUR_URL, active: false, secret: 'x' };
		expect(kinds(await harness.poll())).toEqual(['webhook.inactive']);

		sim.webhook = { url: OUR_URL, active: true, secret: 'x' };
		const [back] = (await harness.poll())!;
		expect(back).toMatchObject({
			change: 'webhook.restored',
			problem: false,
			after: { state: 'ours', url: OUR_URL },
		});
		expect(back.message).toBe(
			`The account's webhook points at this n8n again (${OUR_URL}): pushed events arrive again.`,
		);
		expect(await harness.poll()).toBeNull();
	});

	test('a shared registration counts as ours through its holder or a production member, not a test holder alone', async () => {
		const harness = watch({ options: { expectedWebhookUrl: OUR_URL } });
		await harness.publish();
		const path = new URL(OUR_URL).pathname;
		const testHolder = `${N8N_BASE}/webhook-test/listener/webhook?relay-share=v1&holder-test=1`;
		// A test listener holds it and lists the published trigger as a member: events still reach it.
		sim.webhook = {
			url: `${testHolder}&member=${encodeURIComponent(path)}`,
			active: true,
			secret: 'x',
		};
		expect(await harness.poll()).toBeNull();
		// The same without the member: nothing reaches the published trigger.
		sim.webhook = { url: testHolder, active: true, secret: 'x' };
		expect(kinds(await harness.poll())).toEqual(['webhook.moved']);
		sim.webhook = {
			url: `${OUR_URL}?relay-share=v1&member=/webhook/other/webhook`,
			active: true,
			secret: 'x',
		};
		expect(kinds(await harness.poll())).toEqual(['webhook.restored']);
	});

	test('an Expected Webhook URL makes another URL of this n8n count as elsewhere', async () => {
		const harness = watch({ options: { expectedWebhookUrl: OUR_URL } });
		await harness.publish();
		sim.webhook = { url: `${N8N_BASE}/webhook/another-trigger/webhook`, active: true, secret: 'x' };
		expect(kinds(await harness.poll())).toEqual(['webhook.moved']);
		sim.webhook = { url: `${OUR_URL}/`, active: true, secret: 'x' };
		expect(kinds(await harness.poll())).toEqual(['webhook.restored']);
	});

	test('with Watch the Webhook off, a read-only key works and the webhook is not read', async () => {
		const harness = watch({ watchWebhook: false }, 'sim-key-readonly');
		await harness.publish();
		sim.webhook = null;
		numberById('num_main').status = 'CREDENTIALS';
		expect(kinds(await harness.poll())).toEqual(['number.status_changed num_main']);
		expect(sim.requestsTo('GET', '/v1/webhook')).toHaveLength(0);
	});
});

describe('state survives a restart of n8n (static data)', () => {
	test('an alert that went out is not repeated after a restart', async () => {
		const harness = watch();
		await harness.publish();
		numberById('num_main').status = 'CREDENTIALS';
		sim.webhook = null;
		expect(kinds(await harness.poll())).toEqual(['number.status_changed num_main', 'webhook.lost']);
		harness.restart();
		expect(await harness.poll()).toBeNull();
		// News after the restart is still news.
		numberById('num_main').status = 'CONNECTED';
		expect(kinds(await harness.poll())).toEqual(['number.status_changed num_main']);
	});

	test('a restart before any alert keeps the baseline: old problems stay quiet, the first poll is not repeated', async () => {
		numberById('num_sales').health = { phoneOnline: false, lastSeenAt: minutesAgo(120) };
		const harness = watch();
		await harness.publish();
		harness.restart();
		expect(harness.state.watchVersion).toBe(1);
		expect(await harness.poll()).toBeNull();
	});
});

describe('"Fetch Test Event" in the editor', () => {
	test('shows the current problems and keeps no state', async () => {
		numberById('num_main').status = 'CREDENTIALS';
		const harness = watch();
		expect(kinds(await harness.manual())).toEqual([
			'number.status_changed num_main',
			'number.status_changed num_old',
		]);
		expect(harness.state.watchVersion).toBeUndefined();
	});

	test('says so when nothing is wrong', async () => {
		sim.numbers = sim.numbers.filter((n) => n.id !== 'num_old');
		const [item] = await watch().manual();
		expect(item).toEqual({
			change: 'none',
			problem: false,
			message:
				'No problem now: 2 number(s) checked, and the webhook points at this n8n. Published, this node emits one item per change.',
		});
	});
});

describe('the number list in every response shape the action node accepts', () => {
	const list = () => JSON.parse(JSON.stringify(sim.numbers)) as unknown[];
	test.each([
		['wrapped', () => ({ numbers: list() })],
		['bare', () => list()],
		['data', () => ({ data: list() })],
		['items', () => ({ items: list() })],
		['results', () => ({ results: list() })],
		['data.numbers', () => ({ data: { numbers: list() } })],
	])('%s', async (_shape, body) => {
		const harness = watch();
		await harness.publish();
		numberById('num_main').status = 'CREDENTIALS';
		sim.inject({ method: 'GET', path: '/v1/numbers', status: 200, body: body() });
		expect(kinds(await harness.poll())).toEqual(['number.status_changed num_main']);
	});

	test('an answer that is not a number list is a clear error', async () => {
		const harness = watch();
		await harness.publish();
		sim.inject({ method: 'GET', path: '/v1/numbers', status: 200, body: { numbers: 'none' } });
		await expect(harness.poll()).rejects.toThrow(
			'The Messaging Relay API returned the list of numbers in a shape this node does not understand',
		);
	});
});

describe("API errors are thrown with the action node's messages and never become alerts", () => {
	test.each([
		['sim-key-revoked', /The Messaging Relay API key was not accepted \(401 UNAUTHORIZED\)/],
		['sim-key-suspended', /The Messaging Relay account is on hold \(402 ACCOUNT_SUSPENDED\)/],
		['sim-key-send-only', /lacks the numbers:read scope \(403 UNAUTHORIZED\)/],
		['sim-key-old', /lacks the webhooks:manage scope \(403 UNAUTHORIZED\)/],
	])('%s: publishing fails with the cure', async (key, message) => {
		await expect(watch({}, key).publish()).rejects.toThrow(message);
	});

	test('a 5xx that outlasts the retries fails the poll; the state is kept and nothing is alerted after', async () => {
		const harness = watch();
		await harness.publish();
		sim.inject({
			method: 'GET',
			path: '/v1/webhook',
			status: 503,
			body: { error: { code: 'UNAVAILABLE', message: 'down' } },
			times: 4,
		});
		await expect(harness.poll()).rejects.toThrow(
			'The Messaging Relay service failed on GET /v1/webhook (503) after 4 tries',
		);
		expect(await harness.poll()).toBeNull();
	});

	test('a 429 is waited out (Retry-After) and the poll goes on without a false alert', async () => {
		const harness = watch();
		await harness.publish();
		sim.inject({
			method: 'GET',
			path: '/v1/numbers',
			status: 429,
			headers: { 'retry-after': '1' },
			body: { error: { code: 'RATE_LIMITED', message: 'slow down' } },
			times: 2,
		});
		const started = Date.now();
		expect(await harness.poll()).toBeNull();
		expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
		expect(sim.requestsTo('GET', '/v1/numbers')).toHaveLength(4);
	});

	test('a 429 longer than the transport waits fails the poll with the time to retry, and no alert follows', async () => {
		const harness = watch();
		await harness.publish();
		sim.inject({
			method: 'GET',
			path: '/v1/numbers',
			status: 429,
			headers: { 'retry-after': '3600' },
			body: { error: { code: 'RATE_LIMITED', message: 'slow down' } },
		});
		await expect(harness.poll()).rejects.toThrow(/rate limiting requests \(429 RATE_LIMITED\)/);
		expect(await harness.poll()).toBeNull();
	});

	test('errors do not carry the API key', async () => {
		const harness = watch({}, 'sim-key-revoked');
		const error = await harness.publish().then(
			() => undefined,
			(e: unknown) => e,
		);
		expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(
			'sim-key-revoked',
		);
	});
});
