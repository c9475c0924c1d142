import type { WatchedNumber, WatchedWebhook } from './watchState';

/**
 * The sentences of the Watch node's items: each one can be forwarded to a person as is, so it
 * names the number (or the webhook), says what happened and what to do.
 */

export function numberLabel(number: Pick<WatchedNumber, 'name' | 'phone'>): string {
	return number.phone ? `"${number.name}" (${number.phone})` : `"${number.name}"`;
}

function duration(ms: number): string {
	const minutes = Math.max(0, Math.round(ms / 60_000));
	if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
	const hours = Math.floor(minutes / 60);
	const rest = minutes % 60;
	const h = `${hours} hour${hours === 1 ? '' : 's'}`;
	return rest === 0 ? h : `${h} ${rest} min`;
}

export const NEEDS_RELINK = 'CREDENTIALS';

export const alertText = {
	statusChanged(label: string, before: string | null, after: string | null): string {
		if (after === NEEDS_RELINK) {
			return `Number ${label} needs relinking: its status changed from ${before ?? 'unknown'} to ${after}. Pair the phone again in the Messaging Relay dashboard; until then it sends and receives nothing.`;
		}
		if (before === NEEDS_RELINK) {
			return `Number ${label} is linked again: its status changed from ${before} to ${after ?? 'unknown'}.`;
		}
		return `Number ${label} changed status from ${before ?? 'unknown'} to ${after ?? 'unknown'}.`;
	},
	needsRelinkAtStart(label: string): string {
		return `Number ${label} needs relinking (status ${NEEDS_RELINK}). Pair the phone again in the Messaging Relay dashboard; until then it sends and receives nothing.`;
	},
	added(label: string, status: string | null): string {
		return `Number ${label} appeared on the account (status ${status ?? 'unknown'}).`;
	},
	removed(label: string): string {
		return `Number ${label} is no longer on the account: it was removed or disconnected for good. Workflows that send from it will fail.`;
	},
	phoneOffline(label: string, offlineMs: number): string {
		return `The phone of number ${label} has been offline for ${duration(offlineMs)}. The link is intact, but nothing is sent or received until the phone is on and has signal.`;
	},
	phoneOnline(label: string, offlineMs: number | null): string {
		return `The phone of number ${label} is online again${offlineMs === null ? '' : ` after about ${duration(offlineMs)}`}.`;
	},
	silent(label: string, silentMs: number): string {
		return `Number ${label} has had no event for ${duration(silentMs)}. If that is unusual, check the phone and the link in the Messaging Relay dashboard.`;
	},
	eventsResumed(label: string): string {
		return `Number ${label} has events again.`;
	},
	webhook(after: WatchedWebhook, isTestUrl: boolean): string {
		switch (after.state) {
			case 'none':
				return "The account's webhook is gone: no pushed events (such as number.disconnected) reach n8n. Publish the Messaging Relay Trigger workflow again, or set the webhook again.";
			case 'inactive':
				return `The account's webhook (${after.url}) is inactive: the service delivers no events. Activate it in the Messaging Relay dashboard or publish the trigger workflow again.`;
			case 'elsewhere':
				return isTestUrl
					? `The account's webhook points at this n8n's test URL (${after.url}): the published trigger workflow receives nothing until it is published again.`
					: `The account's webhook now points at ${after.url}, not at this n8n: events go there. If that was not intended, publish the Messaging Relay Trigger workflow again with "Replace Existing Webhook" on.`;
			default:
				return `The account's webhook points at this n8n again (${after.url}): pushed events arrive again.`;
		}
	},
};
