import { createHmac } from 'node:crypto';

import type { IHookFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import { memorySlot } from '../processMemory';
import { processKey } from '../processKey';
import { CREDENTIAL_NAME } from '../scopes';
import { deriveShareKey, hexEquals } from './signedHandoff';
import type { WebhookState } from './webhookState';

/**
 * K, the account's hand-off key, is never kept in static data (docs/design/conversations-at-scale.md, "K, the
 * account's hand-off key"): a reader of the workflow could sign hand-offs and resume runs with it. Each process
 * derives it from the trigger's credential when it first needs it and keeps it in memory; static data keeps
 * `shareKeyCheck`, which tells whether the key in memory is the one the trigger was published with.
 */
type KeyContext = IWebhookFunctions | ITriggerFunctions | IHookFunctions;

const LABEL = 'messaging-relay/shared-webhook/key-check/v1';

/** What static data keeps of K: an HMAC of a fixed label with it (it reveals nothing that signs). */
export function keyCheckOf(key: string): string {
	return createHmac('sha256', Buffer.from(key, 'hex')).update(LABEL).digest('hex');
}

const keys = memorySlot<string>('account keys', {
	holds: "K of each listener's credential: read once per process, again after a restart",
	maxEntries: 10_000,
	forgottenWith: 'membership',
});

/** This trigger is a member of the account's webhook with key K: static data keeps its check only. */
export function rememberKey(state: WebhookState, key: string) {
	const check = keyCheckOf(key);
	if (state.shareKeyCheck !== check) state.shareKeyCheck = check;
	if (state.shareKey !== undefined) delete state.shareKey;
}

/** A member of the account's webhook: its account key, and (published) its own production URL. */
export function rememberMembership(
	state: WebhookState,
	shareKey: string,
	ownUrl: string | undefined,
) {
	rememberKey(state, shareKey);
	if (ownUrl !== undefined && state.ownUrl !== ownUrl) state.ownUrl = ownUrl;
}

/**
 * K for this trigger: undefined while it is not a member (not published, or published a moment ago and
 * not saved yet). It writes nothing: a trigger published before K left static data has `shareKey` there,
 * used as it is until upgradeStoredKey keeps its check instead (every delivery), no re-publish needed.
 */
export async function accountKeyOf(
	context: KeyContext,
	state: WebhookState,
): Promise<string | undefined> {
	const listener = processKey(context);
	const legacy = legacyKey(state);
	if (legacy) {
		keys.set(listener, legacy);
		return legacy;
	}
	const check = state.shareKeyCheck;
	if (typeof check !== 'string') return undefined;
	const known = keys.get(listener);
	if (known && hexEquals(check, keyCheckOf(known))) return known;
	const { apiKey } = (await context.getCredentials(CREDENTIAL_NAME)) as { apiKey?: unknown };
	const key = deriveShareKey(String(apiKey ?? ''));
	// A credential changed since publishing signs with its own key (peers on it verify it); the
	// check is the publish's until the trigger is published again.
	keys.set(listener, key);
	return key;
}

/** K kept in static data by an earlier version: its check kept instead, K in this process's memory. */
export function upgradeStoredKey(context: KeyContext, state: WebhookState) {
	const legacy = legacyKey(state);
	if (!legacy) return;
	rememberKey(state, legacy);
	keys.set(processKey(context), legacy);
}

const legacyKey = (state: WebhookState) =>
	typeof state.shareKey === 'string' && /^[0-9a-f]{64}$/.test(state.shareKey)
		? state.shareKey
		: undefined;
