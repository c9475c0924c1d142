import type { IDataObject } from 'n8n-workflow';

/**
 * What the trigger keeps in its workflow's static data (n8n saves it after activation and after
 * every webhook request that changed it). docs/shared-webhook.md, "What each trigger keeps".
 */
export interface TriggerState extends IDataObject {
	/** Held by the holder only: the URL it registered (with the member list) and its secret. */
	webhookUrl?: string;
	webhookSecret?: string;
	/** Webhook Managed Elsewhere: the credential's webhook secret, kept at publish (managedSecret.ts). */
	managedSecret?: string;
	/** Every member: the account key K derived from the API key at publish time (hex). */
	shareKey?: string;
	/** Every published member: its own production URL, for the registration check in trigger(). */
	ownUrl?: string;
	/** The holder: deliveries it answered 503 because a member could not take them yet (deliveryLedger.ts). */
	pending?: Record<string, LedgerEntry>;
	/** A member: forwarded events it ran recently (deliveryLedger.ts). */
	taken?: Record<string, LedgerEntry>;
}

/** One delivery in a record of deliveries (deliveryLedger.ts), under its delivery id. */
export interface LedgerEntry extends IDataObject {
	/** When it was last recorded (ms since epoch). */
	at: number;
	/** The holder's record: who already ran it (member paths; the holder itself as `self`). */
	ran?: string[];
}

export function triggerState(context: { getWorkflowStaticData(type: string): IDataObject }): TriggerState {
	return context.getWorkflowStaticData('node') as TriggerState;
}

/** Forgets that this node holds the registration (another trigger holds it now, or none). */
export function clearHolderState(state: TriggerState) {
	delete state.webhookUrl;
	delete state.webhookSecret;
	delete state.pending;
}
