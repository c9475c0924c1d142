import type { IDataObject } from 'n8n-workflow';

import { keepSecretDigest, type HeldSecretFields } from '../serviceSecret';

/**
 * What a node keeps about the account's webhook in its workflow's static data (n8n saves it after
 * activation and after every webhook request that changed it). docs/shared-webhook.md, "What each
 * trigger keeps". Every write goes through a function of this file, except the two records of
 * deliveries, which deliveryLedger.ts writes, the paused chats, which chatPause.ts writes, and the
 * waiting runs, which waitingRuns.ts writes (those two as accountTable.ts packs them).
 */
export interface WebhookState extends IDataObject, HeldSecretFields {
	/** Held by the holder only: the URL it registered (with the member list). */
	webhookUrl?: string;
	/**
	 * Held by the holder only: the SHA-256 (hex) of the secret the service issued, and its length.
	 * Never the secret itself: n8n shows a workflow's static data to whoever reads the workflow,
	 * and n8n 1.123's public API returns it inside every execution it lists with `includeData`
	 * (docs/compatibility.md). A digest is enough to check a delivery (serviceSecret.ts).
	 */
	webhookSecretDigest?: string;
	webhookSecretLength?: number;
	/** The secret itself, as versions before 0.1.0's release kept it: moved to the digest when read. */
	webhookSecret?: string;
	/**
	 * Webhook Managed Elsewhere: the credential's webhook secret as earlier versions kept it. No
	 * longer read (managedSecret.ts keeps it in memory); removed at the next publish or n8n start.
	 */
	managedSecret?: string;
	/**
	 * Every member: an HMAC of a fixed label with the account key K (accountKey.ts). K itself is derived
	 * from the credential in each process and never kept here: a reader of static data could sign with it.
	 */
	shareKeyCheck?: string;
	/** K itself, as triggers published before 0.1.0's issue 41 kept it: moved to the check when read. */
	shareKey?: string;
	/** Every published member: its own production URL, for the registration check in trigger(). */
	ownUrl?: string;
	/** The holder: deliveries it answered 503 because a member could not take them yet (deliveryLedger.ts). */
	pending?: Record<string, LedgerEntry>;
	/** A member: forwarded events it ran recently (deliveryLedger.ts). */
	taken?: Record<string, LedgerEntry>;
	/** The holder: members that failed hand-offs or were set aside, by path (memberHealth.ts). */
	members?: Record<string, MemberRecord>;
	/** Runs that wait for a contact's reply, packed in one string (waitingRuns.ts, accountTable.ts). */
	waitRows?: string;
	/** A new token at every write of `waitRows`: a process parses them again only when it changed. */
	waitsRev?: string;
	/** Pause When a Person Replies: chats where a person wrote from the phone, packed (chatPause.ts). */
	pauseRows?: string;
	pausesRev?: string;
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

/** One missed event in a member's record: [event type, time, its id for the report]. */
export type MissedEntry = [string, number] | [string, number, string];

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
	/**
	 * Events it missed while set aside: ledger id (deliveryLedger.ts) → [event type, time, the id
	 * its report names it by (missedEventId.ts)]. Written before that id was kept: [type, time].
	 */
	missed?: Record<string, MissedEntry>;
	/** Missed events beyond `setAsideLimits.missedKept` (memberHealth.ts), counted only (the newest write's count). */
	missedUncounted?: number;
	/** Misses up to this time were reported to the member and are forgotten. */
	clearedUpTo?: number;
}

export function webhookState(context: {
	getWorkflowStaticData(type: string): IDataObject;
}): WebhookState {
	return context.getWorkflowStaticData('node') as WebhookState;
}

/** This node registered `url` and the service issued `secret` for it: it holds the registration. */
export function rememberHolder(state: WebhookState, url: string, secret: string) {
	state.webhookUrl = url;
	keepSecretDigest(state, secret);
}

/** This node no longer holds the registration (another trigger holds it now, or none). */
export function forgetHolder(state: WebhookState) {
	delete state.webhookUrl;
	delete state.webhookSecret;
	delete state.webhookSecretDigest;
	delete state.webhookSecretLength;
	delete state.pending;
	delete state.members;
}

/** This node left the account's webhook (unpublished, or its test listener ended). */
export function forgetMembership(state: WebhookState) {
	forgetHolder(state);
	delete state.shareKey;
	delete state.shareKeyCheck;
	delete state.ownUrl;
}

/** Webhook Managed Elsewhere: removes the copy of the credential's secret that earlier versions kept. */
export function forgetManagedSecret(state: WebhookState) {
	if (state.managedSecret !== undefined) delete state.managedSecret;
}
