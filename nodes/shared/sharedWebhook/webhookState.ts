import type { IDataObject } from 'n8n-workflow';

/**
 * What a node keeps about the account's webhook in its workflow's static data (n8n saves it after
 * activation and after every webhook request that changed it). docs/shared-webhook.md, "What each
 * trigger keeps". Every write goes through a function of this file, except the two records of
 * deliveries, which deliveryLedger.ts writes, the paused chats, which chatPause.ts writes, and the
 * waiting runs, which waitingRuns.ts writes.
 */
export interface WebhookState extends IDataObject {
	/** Held by the holder only: the URL it registered (with the member list) and its secret. */
	webhookUrl?: string;
	webhookSecret?: string;
	/**
	 * Webhook Managed Elsewhere: the credential's webhook secret as earlier versions kept it. No
	 * longer read (managedSecret.ts keeps it in memory); removed at the next publish or n8n start.
	 */
	managedSecret?: string;
	/** Every member: the account key K derived from the API key at publish time (hex). */
	shareKey?: string;
	/** Every published member: its own production URL, for the registration check in trigger(). */
	ownUrl?: string;
	/** The holder: deliveries it answered 503 because a member could not take them yet (deliveryLedger.ts). */
	pending?: Record<string, LedgerEntry>;
	/** A member: forwarded events it ran recently (deliveryLedger.ts). */
	taken?: Record<string, LedgerEntry>;
	/** The holder: members that failed hand-offs or were set aside, by path (memberHealth.ts). */
	members?: Record<string, MemberRecord>;
	/** Runs that wait for a contact's reply, by execution id (waitingRuns.ts). */
	waits?: Record<string, IDataObject>;
	/** Pause When a Person Replies: chats where a person wrote from the phone, by chat id (chatPause.ts). */
	pausedChats?: Record<string, PauseEntry>;
}

/** One chat in the record of paused chats (chatPause.ts). */
export interface PauseEntry extends IDataObject {
	/** When the person's message was sent (ms since epoch): the newest wins. */
	at: number;
	/** Until when the chat is paused (0: the keyword ended it). */
	until: number;
}

/** One delivery in a record of deliveries (deliveryLedger.ts), under its delivery id. */
export interface LedgerEntry extends IDataObject {
	/** When it was last recorded (ms since epoch). */
	at: number;
	/** The holder's record: who already ran it (member paths; the holder itself as `self`). */
	ran?: string[];
}

/** One member in the holder's record of members (memberHealth.ts), under its path. */
export interface MemberRecord extends IDataObject {
	/** When this member's state was last written (ms since epoch): the newest write wins. */
	changedAt: number;
	/** Failed hand-offs in the current run of failures (0: taking events). */
	failures: number;
	/** The first failure of that run. */
	since?: number;
	/** When it was set aside, if it is. */
	setAsideAt?: number;
	/** Events it missed while set aside: delivery id → [event type, time]. */
	missed?: Record<string, [string, number]>;
	/** Missed events beyond `setAsideLimits.missedKept` (memberHealth.ts), counted only (the newest write's count). */
	missedUncounted?: number;
	/** Misses up to this time were reported to the member and are forgotten. */
	clearedUpTo?: number;
}

export function webhookState(context: { getWorkflowStaticData(type: string): IDataObject }): WebhookState {
	return context.getWorkflowStaticData('node') as WebhookState;
}

/** A member of the account's webhook: its account key, and (published) its own production URL. */
export function rememberMembership(state: WebhookState, shareKey: string, ownUrl: string | undefined) {
	state.shareKey = shareKey;
	if (ownUrl !== undefined) state.ownUrl = ownUrl;
}

/** This node registered `url` and the service issued `secret` for it: it holds the registration. */
export function rememberHolder(state: WebhookState, url: string, secret: string) {
	state.webhookUrl = url;
	state.webhookSecret = secret;
}

/** This node no longer holds the registration (another trigger holds it now, or none). */
export function forgetHolder(state: WebhookState) {
	delete state.webhookUrl;
	delete state.webhookSecret;
	delete state.pending;
	delete state.members;
}

/** This node left the account's webhook (unpublished, or its test listener ended). */
export function forgetMembership(state: WebhookState) {
	forgetHolder(state);
	delete state.shareKey;
	delete state.ownUrl;
}

/** Webhook Managed Elsewhere: removes the copy of the credential's secret that earlier versions kept. */
export function forgetManagedSecret(state: WebhookState) {
	if (state.managedSecret !== undefined) delete state.managedSecret;
}
