/**
 * Property-based: random bodies and headers thrown at webhook() over real HTTP. Whatever
 * arrives, the node answers (no 500 from a throw), and a delivery without the right secret
 * never starts the workflow.
 */
import fc from 'fast-check';

import { sample, sampleEventTypes } from '../../fixtures/events';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import { TriggerHarness } from '../../support/harness/triggerRuntime';

let sim: RelaySimulator;
let harness: TriggerHarness;
beforeAll(async () => {
	sim = await startRelaySimulator();
	harness = await TriggerHarness.start(sim, { events: ['*'] });
	await harness.activate();
});
afterAll(async () => {
	await harness.stop();
	await sim.stop();
});

/** Bodies that look like events often enough to reach the schemas, and garbage otherwise. */
const eventLike = fc.oneof(
	fc.constantFrom(...sampleEventTypes).map((type) => JSON.stringify(sample(type))),
	fc
		.record({
			type: fc.oneof(fc.constantFrom(...sampleEventTypes), fc.string()),
			occurredAt: fc.oneof(fc.string(), fc.constant(undefined), fc.integer()),
			message: fc.anything(),
			chat: fc.anything(),
			number: fc.anything(),
		})
		.map((body) => JSON.stringify(body)),
	fc.json(),
	fc.string(),
	fc.constant(''),
);

const headers = fc.dictionary(
	fc.constantFrom('x-service-secret', 'content-type', 'x-other', 'X-Service-Secret'),
	fc.string({ maxLength: 80 }).filter((value) => /^[\x20-\x7e]*$/.test(value)),
);

async function post(body: string, extraHeaders: Record<string, string>) {
	const response = await fetch(harness.productionUrl, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...extraHeaders },
		body,
	});
	return { status: response.status, text: await response.text() };
}

test('random bodies with a wrong or missing secret: always 401, never a run', async () => {
	await fc.assert(
		fc.asyncProperty(eventLike, headers, async (body, extra) => {
			const secret = sim.webhook!.secret;
			const sent = { ...extra };
			for (const key of Object.keys(sent))
				if (key.toLowerCase() === 'x-service-secret' && sent[key] === secret) delete sent[key];
			const before = harness.runs.length;
			const { status } = await post(body, sent);
			expect(status).toBe(401);
			expect(harness.runs.length).toBe(before);
		}),
		{ numRuns: 300 },
	);
});

test('random bodies with the right secret: never a throw, a 2xx/4xx answer, at most one item', async () => {
	await fc.assert(
		fc.asyncProperty(eventLike, async (body) => {
			const before = harness.runs.length;
			const { status, text } = await post(body, { 'x-service-secret': sim.webhook!.secret });
			expect(text).not.toContain('webhook() threw');
			expect([200, 400, 413]).toContain(status);
			const added = harness.runs.slice(before);
			expect(added.length).toBeLessThanOrEqual(1);
			for (const run of added) expect(run.events.length + run.invalid.length).toBe(1);
			if (status !== 200) expect(added).toHaveLength(0);
		}),
		{ numRuns: 300 },
	);
});
