/**
 * Under overload the trigger answers 503 with Retry-After instead of piling more on n8n's writer
 * (issue 41): a write is answered only once n8n was seen saving it, at most HELD_LIMIT requests of a
 * process wait for their save, and the next is refused before it writes anything. A save n8n fails (its
 * SQLite writer busy past its lock) is answered 503 too, never "recorded". On f97c44d a hand-off was
 * answered "recorded" after n8n's save whether that save worked or not.
 */
import type { INodeParameters } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { HELD_LIMIT } from '../../../nodes/shared/answerAfterSave';
import { saveLimits } from '../../../nodes/shared/n8n/staticDataSave';
import { waitsInStaticData } from '../../../nodes/shared/sendAndWait/waitingRuns';
import { deriveShareKey, signHandoff } from '../../../nodes/shared/sharedWebhook/signedHandoff';
import type { WebhookState } from '../../../nodes/shared/sharedWebhook/webhookState';
import type { RelaySimulator } from '../../simulator';
import {
	withSharedN8nPerTest,
	type SharedN8n,
	type SharedWorkflow,
} from '../../support/harness/sharedN8n';

const KEY = deriveShareKey('sim-key-full');
let n8n: SharedN8n;
withSharedN8nPerTest((_sim: RelaySimulator, n) => (n8n = n));

const waitWait = saveLimits.waitMs;
beforeEach(() => (saveLimits.waitMs = 1_500));
afterEach(() => (saveLimits.waitMs = waitWait));

async function recordWait(holder: SharedWorkflow, i: number) {
	const body = JSON.stringify({
		waits: [
			{
				executionId: String(i),
				resumePath: `/webhook-waiting/${i}/n?x=1`,
				chat: `49176${String(i).padStart(8, '0')}@c.us`,
				channelId: 'num_main',
				since: Date.now(),
				until: Date.now() + 60_000,
			},
		],
	});
	const response = await fetch(holder.productionUrl, {
		method: 'POST',
		headers: {
			...signHandoff(KEY, 'wait', holder.productionPath, body).headers,
			'content-type': 'application/json',
		},
		body,
	});
	return {
		status: response.status,
		retryAfter: response.headers.get('retry-after'),
		body: (await response.json()) as Record<string, unknown>,
	};
}

test('a save n8n fails is answered 503 Retry-After, and nothing is said recorded', async () => {
	const holder = n8n.addWorkflow('holder', { events: ['message.received'] } as INodeParameters);
	await holder.publish();
	holder.failSaves = 1;
	const answer = await recordWait(holder, 1);
	expect(answer).toEqual({
		status: 503,
		retryAfter: '2',
		body: { error: 'n8n did not save this change in time; send it again shortly' },
	});
	expect(
		waitsInStaticData(JSON.parse(holder.db)[`node:${holder.node.name}`] as WebhookState),
	).toEqual({});
	// n8n saves again: the same hand-off is recorded.
	expect((await recordWait(holder, 1)).status).toBe(200);
});

test(`with ${HELD_LIMIT} requests waiting for n8n's save, the next is refused at once, before it writes`, async () => {
	const holder = n8n.addWorkflow('holder', { events: ['message.received'] } as INodeParameters);
	await holder.publish();
	holder.failSaves = 1_000;
	const held = Array.from(
		{ length: HELD_LIMIT },
		async (_, i) => await recordWait(holder, 100 + i),
	);
	// Let every held request reach its write.
	for (
		let i = 0;
		i < 100 && n8n.served.filter((s) => s.handoff === 'wait').length < HELD_LIMIT;
		i++
	)
		await sleep(5);
	await sleep(200);
	const started = Date.now();
	const refused = await recordWait(holder, 999);
	expect(Date.now() - started).toBeLessThan(1_000);
	expect(refused).toEqual({
		status: 503,
		retryAfter: '2',
		body: { error: 'n8n is saving many changes at once; send this again shortly' },
	});
	expect((await Promise.all(held)).map((a) => a.status)).toEqual(Array(HELD_LIMIT).fill(503));
});
