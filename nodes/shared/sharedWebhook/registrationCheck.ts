import type { ITriggerFunctions } from 'n8n-workflow';

import { waitFromUrl } from '../protocol/waitingRunUrl';
import { readWebhook } from '../webhookApi';
import { ping } from './peerClient';
import { allMembers, parseRegistration } from './registeredUrl';
import { accountKeyOf } from './accountKey';
import { webhookState } from './webhookState';

/** What one look at the account's webhook found, for the trigger that looked (registrationRepair.ts acts on it). */
export type RegistrationCheck =
	| { kind: 'intact' }
	| { kind: 'lost' }
	/** The service keeps this trigger's registration but marked it `active: false`: register again. */
	| { kind: 'inactive' }
	/** The account's shared webhook (same API key) no longer lists this trigger: join again. */
	| { kind: 'notListed' }
	| { kind: 'elsewhere'; url: string }
	| { kind: 'notRegisteredHere' };

/**
 * One look at the account's webhook (docs/shared-webhook.md, "Repair"), by every published trigger for itself:
 * `lost`, `inactive` and `not listed` are repaired by joining again (n8n publishes the workflow again), anything
 * that is not this n8n's shared webhook of this account key is only reported. The URL compared is the one the
 * lifecycle stored at publish time (trigger() gets none from n8n). `whenMember` is told the holder's URL when this
 * trigger is a listed member, or the holder of a shared webhook (missedReport.ts asks the holder there).
 */
export async function checkRegistration(
	this: ITriggerFunctions,
	whenMember?: (holderUrl: string) => void,
): Promise<RegistrationCheck> {
	const state = webhookState(this);
	const { ownUrl } = state;
	const shareKey = await accountKeyOf(this, state);
	// Never published by this version of the node (or its static data is gone): nothing to compare.
	if (!shareKey || !ownUrl) return { kind: 'notRegisteredHere' };
	const current = await readWebhook.call(this);
	if (!current) return { kind: 'lost' };
	const registration = parseRegistration(current.url);
	const own = new URL(ownUrl);
	// A Send and Wait run took the webhook while no trigger was listed: join again, keeping its wait.
	if (waitFromUrl(current.url) && registration?.origin === own.origin) return { kind: 'notListed' };
	// Shared only among the triggers behind one public address (one n8n); see "Two n8n instances".
	if (registration?.shared && registration.origin === own.origin) {
		const listed =
			(!registration.holderTest && registration.holderPath === own.pathname) ||
			registration.members.includes(own.pathname);
		// The holder asks too (its own URL) when it shares: its own runs can be set aside like a
		// member's (ownRuns.ts); a lone holder has no record to ask.
		const asks = registration.holderPath !== own.pathname || allMembers(registration).length > 0;
		if (listed && asks) whenMember?.(registration.holderUrl);
		// An inactive webhook gets no deliveries (a service may deactivate one after failures):
		// registering it again is the one thing a PUT is documented to do (spec, PUT /v1/webhook).
		if (listed) return current.active === false ? { kind: 'inactive' } : { kind: 'intact' };
		// Joining again only makes sense when the holder is a trigger of this account key.
		const answer = await ping(this, shareKey, registration.holderUrl);
		if (answer.kind === 'member') return { kind: 'notListed' };
	}
	return { kind: 'elsewhere', url: current.url };
}
