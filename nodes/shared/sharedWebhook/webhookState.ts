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
	/** The holder: deliveries it answered 503 because a member could not take them yet. */
	pending?: Record<string, PendingDelivery>;
	/** A member: forwarded events it ran recently, delivery id → time (takenHandoffs.ts). */
	taken?: Record<string, number>;
}

export interface PendingDelivery extends IDataObject {
	/** Paths that already ran it; `self` is the holder itself. */
	ran: string[];
	at: number;
}

export const SELF = 'self';

export function triggerState(context: { getWorkflowStaticData(type: string): IDataObject }): TriggerState {
	return context.getWorkflowStaticData('node') as TriggerState;
}

/** Forgets that this node holds the registration (another trigger holds it now, or none). */
export function clearHolderState(state: TriggerState) {
	delete state.webhookUrl;
	delete state.webhookSecret;
	delete state.pending;
}
