import type { IDataObject } from 'n8n-workflow';

import type { RelayNumber } from '../shared/schemas/number';

/**
 * What the Watch node keeps between polls, in the workflow's static data (so a restart of n8n
 * does not alert old news again). Plain JSON: n8n stores it in the workflow row.
 */
export interface WatchedNumber extends IDataObject {
	name: string;
	phone: string | null;
	status: string | null;
	phoneOnline: boolean | null;
	/** When the phone was first seen offline (its lastSeenAt when plausible, else that poll). */
	offlineSince: string | null;
	/** An offline alert went out (or the outage was already known at start): "back" follows. */
	offlineAlerted: boolean;
	/** A no-events alert went out (or the silence was known at start): "resumed" follows. */
	silentAlerted: boolean;
}

export type WebhookState = 'ours' | 'none' | 'inactive' | 'elsewhere';

export interface WatchedWebhook extends IDataObject {
	state: WebhookState;
	url: string | null;
}

export interface WatchState extends IDataObject {
	/** Absent until the first poll after publishing has recorded the state. */
	watchVersion?: 1;
	numbers?: Record<string, WatchedNumber>;
	/** Null while the webhook is not watched. */
	webhook?: WatchedWebhook | null;
}

/** What one poll saw: the numbers, and the webhook when it is watched. */
export interface Observation {
	numbers: RelayNumber[];
	webhook?: WatchedWebhook;
	/** The time of the poll. */
	now: Date;
}

/** How the webhook's URL relates to the n8n that should receive the events. */
export function classifyWebhook(
	webhook: { url: string; active?: boolean } | undefined,
	isOurs: (url: string) => boolean,
): WatchedWebhook {
	if (!webhook) return { state: 'none', url: null };
	if (!isOurs(webhook.url)) return { state: 'elsewhere', url: webhook.url };
	if (webhook.active === false) return { state: 'inactive', url: webhook.url };
	return { state: 'ours', url: webhook.url };
}
