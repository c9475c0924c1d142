import { sample } from '../../fixtures/events';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { waitsInStaticData } from '../../../nodes/shared/sendAndWait/waitingRuns';
import { signedWaitParams } from '../../../nodes/shared/protocol/waitingRunUrl';
import { TriggerHarness } from '../../support/harness/triggerRuntime';
import { secretDigest } from '../../../nodes/shared/serviceSecret';
import { keyCheckOf } from '../../../nodes/shared/sharedWebhook/accountKey';
import { deriveShareKey } from '../../../nodes/shared/sharedWebhook/signedHandoff';
import { deliver } from '../../support/deliver';

let sim: RelaySimulator;
let harness: TriggerHarness;
beforeAll(async () => {
	sim = await startRelaySimulator();
});
afterAll(async () => await sim.stop());
beforeEach(async () => {
	sim.reset();
	harness = await TriggerHarness.start(sim, { events: ['message.received'] });
});
afterEach(async () => await harness.stop());

describe("publishing registers this node's URL and keeps the secret", () => {
	test('create PUTs the production URL and stores the issued secret in static data', async () => {
		expect(await harness.lifecycle('checkExists')).toBe(false);
		expect(await harness.lifecycle('create')).toBe(true);
		expect(sim.requestsTo('PUT', '/v1/webhook').map((r) => r.body)).toEqual([
			{ url: harness.registeredUrl },
		]);
		expect(harness.stored).toEqual({
			webhookUrl: harness.registeredUrl,
			// The digest of the issued secret, never the secret itself (n8n shows static data).
			webhookSecretDigest: secretDigest(sim.webhook!.secret),
			webhookSecretLength: sim.webhook!.secret.length,
			// A check of the account key, never the key itself (a reader could sign with it).
			shareKeyCheck: keyCheckOf(deriveShareKey('sim-key-full')),
			ownUrl: harness.productionUrl,
		});
		expect(await harness.lifecycle('checkExists')).toBe(true);
	});

	test('a registration that still stands is not renewed (no second PUT)', async () => {
		await harness.activate();
		await harness.activate();
		expect(sim.requestsTo('PUT', '/v1/webhook')).toHaveLength(1);
	});

	test('a lost secret forces a new registration', async () => {
		await harness.activate();
		delete harness.stored.webhookSecretDigest;
		expect(await harness.lifecycle('checkExists')).toBe(false);
		await harness.activate();
		expect(sim.requestsTo('PUT', '/v1/webhook')).toHaveLength(2);
		expect(harness.stored.webhookSecretDigest).toBe(secretDigest(sim.webhook!.secret));
	});

	test('a webhook the service lost is registered again', async () => {
		await harness.activate();
		sim.webhook = null;
		expect(await harness.lifecycle('checkExists')).toBe(false);
		await harness.activate();
		expect(sim.webhook).toMatchObject({ url: harness.registeredUrl });
	});

	test('an answer without a secret is a clear error and stores nothing', async () => {
		sim.inject({
			method: 'PUT',
			path: '/v1/webhook',
			status: 200,
			body: { webhook: { url: harness.productionUrl, active: true } },
		});
		await expect(harness.lifecycle('create')).rejects.toThrow(
			'The Messaging Relay API registered the webhook but returned no secret',
		);
		expect(harness.stored.webhookSecretDigest).toBeUndefined();
	});

	test('a key without webhooks:manage gets the scope error', async () => {
		const old = await TriggerHarness.start(
			sim,
			{ events: ['message.received'] },
			{ apiKey: 'sim-key-old' },
		);
		await expect(old.lifecycle('create')).rejects.toThrow(/lacks the webhooks:manage scope/);
		await old.stop();
	});
});

describe('the one-webhook-per-account rule', () => {
	test('another URL is never taken over silently: the error shows it and explains the rule', async () => {
		sim.webhook = {
			url: 'https://crm.example.com/hooks/relay',
			active: true,
			secret: 'whsec_other',
		};
		const create = harness.lifecycle('create');
		await expect(create).rejects.toThrow(
			"The account's webhook already points at https://crm.example.com/hooks/relay",
		);
		await expect(create).rejects.toMatchObject({
			description: expect.stringMatching(/exactly one webhook.*Replace Existing Webhook/),
		});
		expect(sim.requestsTo('PUT', '/v1/webhook')).toHaveLength(0);
		expect(sim.webhook.url).toBe('https://crm.example.com/hooks/relay');
	});

	test('"Replace Existing Webhook" takes it over', async () => {
		sim.webhook = {
			url: 'https://crm.example.com/hooks/relay',
			active: true,
			secret: 'whsec_other',
		};
		harness.setParameters({ events: ['message.received'], options: { replaceExisting: true } });
		await harness.activate();
		expect(sim.webhook).toMatchObject({ url: harness.registeredUrl });
	});

	test('a trigger on another n8n instance (another address) is foreign too', async () => {
		const other = await TriggerHarness.start(
			sim,
			{ events: ['message.received'] },
			{ webhookId: 'aaaaaaaa-0000-4000-8000-000000000000' },
		);
		await other.activate();
		await expect(harness.lifecycle('create')).rejects.toThrow(/already points at .*aaaaaaaa-0000/);
		await other.stop();
	});

	test("this node's test listener shares the webhook with its published version", async () => {
		await harness.activate();
		// "Listen for test event" while published: the test URL holds the webhook and the
		// production URL stays listed, so the published workflow keeps receiving.
		await harness.activate({ test: true });
		expect(sim.webhook!.url.replace(/&reg=[0-9a-f]{12}$/, '')).toBe(
			`${harness.testUrl}?relay-share=v1&holder-test=1&member=${encodeURIComponent(new URL(harness.productionUrl).pathname)}`,
		);
		expect(sim.webhook!.url).toMatch(/&reg=[0-9a-f]{12}$/);
		expect(await harness.lifecycle('checkExists')).toBe(true);
	});
});

describe('a Send and Wait run holds the webhook (no trigger was published on the account)', () => {
	const runUrl = (origin: string) =>
		`${origin}/webhook-waiting/981/node-1?${new URLSearchParams({ ...signedWaitParams({ chat: '4917610000009', channelId: 'num_main', since: 1_000, until: Date.now() + 3_600_000 }), signature: 'f'.repeat(64) })}`;

	test("publishing a trigger takes the webhook and keeps the run's wait from its URL, so the trigger routes its answer", async () => {
		const url = runUrl(harness.n8nBaseUrl);
		sim.webhook = { url, active: true, secret: 'whsec_of_the_run' };
		await harness.activate();
		expect(sim.webhook).toMatchObject({ url: harness.registeredUrl });
		const waits = waitsInStaticData(harness.stored);
		expect(waits).toEqual({
			'981.rs': expect.objectContaining({
				executionId: '981',
				resumePath: url.slice(harness.n8nBaseUrl.length),
				chat: '4917610000009',
				channelId: 'num_main',
			}),
		});
	});

	test('a waiting run on another n8n (another address) is foreign: the conflict error, nothing taken', async () => {
		const url = runUrl('https://other-n8n.example.com');
		sim.webhook = { url, active: true, secret: 'whsec_of_the_run' };
		await expect(harness.lifecycle('create')).rejects.toThrow(
			`The account's webhook already points at ${url}`,
		);
		expect(sim.webhook.url).toBe(url);
		expect(waitsInStaticData(harness.stored)).toEqual({});
	});
});

describe("delete removes only this node's current registration", () => {
	test('unpublishing deletes the webhook and clears the secret', async () => {
		await harness.activate();
		expect(await harness.lifecycle('delete')).toBe(true);
		expect(sim.requestsTo('DELETE', '/v1/webhook')).toHaveLength(1);
		expect(sim.webhook).toBeNull();
		expect(harness.stored).toEqual({});
	});

	test('ending a test listener does not remove the published registration', async () => {
		await harness.activate();
		const secret = sim.webhook!.secret;
		// The test listener ends while the production URL is registered.
		expect(await harness.lifecycle('delete', { test: true })).toBe(true);
		expect(sim.requestsTo('DELETE', '/v1/webhook')).toHaveLength(0);
		expect(sim.webhook).toMatchObject({ url: harness.registeredUrl, secret });
	});

	test("deactivating never removes another workflow's registration", async () => {
		await harness.activate();
		sim.webhook = {
			url: 'https://crm.example.com/hooks/relay',
			active: true,
			secret: 'whsec_other',
		};
		expect(await harness.lifecycle('delete')).toBe(true);
		expect(sim.requestsTo('DELETE', '/v1/webhook')).toHaveLength(0);
		expect(sim.webhook.url).toBe('https://crm.example.com/hooks/relay');
		expect(harness.stored).toEqual({});
	});

	test('a failing delete is reported, not swallowed', async () => {
		await harness.activate();
		sim.inject({
			method: 'DELETE',
			path: '/v1/webhook',
			status: 500,
			times: 4,
			body: { error: { code: 'INTERNAL', message: 'boom' } },
		});
		await expect(harness.lifecycle('delete')).rejects.toThrow(
			'The Messaging Relay service failed on DELETE /v1/webhook (500) after 4 tries',
		);
	});
});

describe("n8n's URL is not reachable for the real service", () => {
	test("the service's 400 becomes an error that names the n8n setting to change", async () => {
		sim.strictWebhookUrls = true;
		const create = harness.lifecycle('create');
		await expect(create).rejects.toThrow(
			`The Messaging Relay service refused n8n's webhook URL ${harness.productionUrl}`,
		);
		await expect(create).rejects.toMatchObject({
			description: expect.stringMatching(
				/plain http.*N8N_WEBHOOK_URL.*HTTPS.*url must be a publicly reachable HTTPS URL/,
			),
		});
	});
});

describe('Webhook Managed Elsewhere', () => {
	test("registers nothing, deletes nothing, and verifies with the credential's secret", async () => {
		const manual = await TriggerHarness.start(
			sim,
			{ registration: 'manual', events: ['message.received'] },
			{ webhookSecret: 'whsec_from_dashboard' },
		);
		expect(await manual.lifecycle('checkExists')).toBe(true);
		expect(await manual.lifecycle('create')).toBe(true);
		expect(await manual.lifecycle('delete')).toBe(true);
		expect(sim.requests).toHaveLength(0);

		const event = {
			type: 'message.received',
			message: {
				id: 'm',
				channelId: 'num_main',
				chatId: 'c@c.us',
				from: null,
				senderName: null,
				text: 'x',
				timestamp: 't',
			},
		};
		expect(
			(await sim.deliver(event, { url: manual.productionUrl, secret: 'whsec_from_dashboard' }))
				.status,
		).toBe(200);
		expect(
			(await sim.deliver(event, { url: manual.productionUrl, secret: 'whsec_wrong_secret___' }))
				.status,
		).toBe(401);
		expect(manual.runs).toHaveLength(1);
		await manual.stop();
	});

	test('deliveries do not read the credential; an edited secret works at the next delivery without republishing', async () => {
		const manual = await TriggerHarness.start(
			sim,
			{ registration: 'manual', events: ['message.received'] },
			{ webhookSecret: 'whsec_from_dashboard' },
		);
		expect(await manual.lifecycle('checkExists')).toBe(true); // publish (and every n8n start) keeps the secret
		const event = sample('message.received');
		const statusWith = async (secret: string) =>
			(await deliver(sim, event, { url: manual.productionUrl, secret })).status;
		const reads = manual.credentialReads;
		expect(await statusWith('whsec_from_dashboard')).toBe(200);
		expect(await statusWith('whsec_from_dashboard')).toBe(200);
		expect(manual.credentialReads).toBe(reads); // n8n decrypts nothing per delivery

		manual.editCredential({ webhookSecret: 'whsec_rotated_in_dashboard' });
		expect(await statusWith('whsec_rotated_in_dashboard')).toBe(200); // one read, then kept
		expect(await statusWith('whsec_from_dashboard')).toBe(401); // the old one is gone
		const afterEdit = manual.credentialReads;
		expect(await statusWith('whsec_rotated_in_dashboard')).toBe(200);
		expect(manual.credentialReads).toBe(afterEdit);
		expect(manual.runs).toHaveLength(4);
		expect(JSON.stringify(manual.runs)).not.toContain('whsec_');
		await manual.stop();
	});

	test('without a secret in the credential, deliveries get 503 and start nothing', async () => {
		const manual = await TriggerHarness.start(sim, {
			registration: 'manual',
			events: ['message.received'],
		});
		const result = await sim.deliver(
			{ type: 'message.received' },
			{ url: manual.productionUrl, secret: 'anything' },
		);
		expect(result.status).toBe(503);
		expect(manual.runs).toHaveLength(0);
		await manual.stop();
	});
});
