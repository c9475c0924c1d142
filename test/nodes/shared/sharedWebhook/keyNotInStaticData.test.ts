/**
 * Issue 41, item 8: nothing in a trigger's static data lets a reader act. The account key K (from which every
 * hand-off's signature and every proof derive) is derived from the credential in each process and never kept
 * there; static data keeps a check of it. On f97c44d the holder kept K in clear, next to every waiting run's
 * signed resume path, so that a reader of the workflow could resume a pending Approval and silence a chat. A
 * trigger published before keeps working after the upgrade, without a re-publish: its first request moves K
 * to the check.
 */
import type { INodeParameters } from 'n8n-workflow';

import { keyCheckOf } from '../../../../nodes/shared/sharedWebhook/accountKey';
import { deriveShareKey, signHandoff } from '../../../../nodes/shared/sharedWebhook/signedHandoff';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';
import { ADA_CHAT } from '../../../fixtures/events';
import type { RelaySimulator } from '../../../simulator';
import { withSharedN8nPerTest, type SharedN8n } from '../../../support/harness/sharedN8n';

const KEY = deriveShareKey('sim-key-full');
let n8n: SharedN8n;
withSharedN8nPerTest((_sim: RelaySimulator, n) => (n8n = n));

const pauseOption = {
	pauseWhenPersonReplies: { settings: { minutes: 30, keyword: '#bot', apiOrigins: 'api' } },
};

/** Every string in a JSON value, at any depth. */
function stringsIn(value: unknown): string[] {
	if (typeof value === 'string') return [value];
	if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
	return [];
}

async function pause(url: string, path: string, key: string) {
	const body = JSON.stringify({ chat: ADA_CHAT, pause: true, at: Date.now() });
	return await fetch(url, {
		method: 'POST',
		headers: {
			...signHandoff(key, 'pause', path, body).headers,
			'content-type': 'application/json',
		},
		body,
	});
}

test('published and used, the holder keeps a check of K, never K; no string of its static data signs a hand-off it takes', async () => {
	const holder = n8n.addWorkflow('assistant', {
		events: ['message.received'],
		options: pauseOption,
	} as INodeParameters);
	await holder.publish();
	// K works: a pause signed with it is taken.
	expect((await pause(holder.productionUrl, holder.productionPath, KEY)).status).toBe(200);

	const saved = JSON.parse(holder.db) as Record<string, WebhookState>;
	const state = Object.values(saved)[0];
	expect(state.shareKey).toBeUndefined();
	expect(state.shareKeyCheck).toBe(keyCheckOf(KEY));
	expect(holder.db).not.toContain(KEY);
	// A reader who tries every string it can read as the key (or as hex bytes of one) is refused.
	for (const candidate of stringsIn(saved).filter(
		(s) => /^[0-9a-f]+$/i.test(s) && s.length % 2 === 0,
	))
		expect((await pause(holder.productionUrl, holder.productionPath, candidate)).status).toBe(401);
});

test('a trigger published before the change, with K in its static data, keeps working and loses K at its first request', async () => {
	const holder = n8n.addWorkflow('assistant', {
		events: ['message.received'],
		options: pauseOption,
	} as INodeParameters);
	await holder.publish();
	// As f97c44d saved it: K in clear, no check.
	const saved = JSON.parse(holder.db) as Record<string, WebhookState>;
	const node = Object.keys(saved)[0];
	delete saved[node].shareKeyCheck;
	saved[node].shareKey = KEY;
	holder.db = JSON.stringify(saved);

	expect((await pause(holder.productionUrl, holder.productionPath, KEY)).status).toBe(200);
	const after = (JSON.parse(holder.db) as Record<string, WebhookState>)[node];
	expect(after.shareKey).toBeUndefined();
	expect(after.shareKeyCheck).toBe(keyCheckOf(KEY));
	expect(holder.db).not.toContain(KEY);
	// And from then on, with the key gone from static data.
	expect((await pause(holder.productionUrl, holder.productionPath, KEY)).status).toBe(200);
});
