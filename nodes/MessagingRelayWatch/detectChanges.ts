import type { IDataObject } from 'n8n-workflow';

import type { RelayNumber } from '../shared/schemas/number';
import { NEEDS_RELINK, alertText, numberLabel } from './alertText';
import type { WatchSettings } from './WatchDescription';
import type { Observation, WatchState, WatchedNumber, WatchedWebhook } from './watchState';

export type ChangeKind =
	| 'number.status_changed'
	| 'number.added'
	| 'number.removed'
	| 'number.phone_offline'
	| 'number.phone_online'
	| 'number.silent'
	| 'number.events_resumed'
	| 'webhook.lost'
	| 'webhook.inactive'
	| 'webhook.moved'
	| 'webhook.restored';

/** One output item of the Watch node. */
export interface WatchChange extends IDataObject {
	change: ChangeKind;
	/** True while something is wrong (forward it); false for a recovery or a neutral change. */
	problem: boolean;
	/** A sentence a person can read as an alert. */
	message: string;
	numberId: string | null;
	numberName: string | null;
	before: IDataObject | null;
	after: IDataObject | null;
	/** The number as the service returned it at this poll (null for webhook changes and removals). */
	number: IDataObject | null;
	detectedAt: string;
}

const MINUTE = 60_000;

function parseTime(value: unknown): number | undefined {
	if (typeof value !== 'string') return undefined;
	const ms = Date.parse(value);
	return Number.isNaN(ms) ? undefined : ms;
}

/** Since when a phone seen offline now has been offline: its lastSeenAt if plausible, else now. */
function offlineSinceEstimate(number: RelayNumber, now: number): string {
	const lastSeen = parseTime(number.health?.lastSeenAt);
	return new Date(lastSeen !== undefined && lastSeen <= now ? lastSeen : now).toISOString();
}

function numberView(number: WatchedNumber | undefined): IDataObject | null {
	if (!number) return null;
	return {
		status: number.status,
		phoneOnline: number.phoneOnline,
		offlineSince: number.offlineSince,
	};
}

function webhookView(webhook: WatchedWebhook | null | undefined): IDataObject | null {
	return webhook ? { state: webhook.state, url: webhook.url } : null;
}

/**
 * Compares what a poll saw with the state kept from the poll before; returns the changes to emit and the
 * state to keep. Pure: the node does the requests and the storing. The first poll (no state yet) marks the
 * problems that exist already as known, not news (emitted only with `emitAtStart`). Recoveries ("back
 * online", "events again", "webhook back") follow only a known problem.
 */
export function detectChanges(
	previous: WatchState,
	seen: Observation,
	settings: WatchSettings,
	isTestUrl: (url: string) => boolean,
): { changes: WatchChange[]; next: WatchState } {
	const baseline = previous.watchVersion === undefined;
	const now = seen.now.getTime();
	const detectedAt = seen.now.toISOString();
	const changes: WatchChange[] = [];
	const nextNumbers: Record<string, WatchedNumber> = {};
	const before = previous.numbers ?? {};

	const add = (
		change: ChangeKind,
		problem: boolean,
		message: string,
		id: string | null,
		name: string | null,
		beforeView: IDataObject | null,
		afterView: IDataObject | null,
		number: RelayNumber | null,
	) =>
		changes.push({
			change,
			problem,
			message,
			numberId: id,
			numberName: name,
			before: beforeView,
			after: afterView,
			number: number as IDataObject | null,
			detectedAt,
		});

	for (const number of seen.numbers) {
		const prior = before[number.id] as WatchedNumber | undefined;
		const current: WatchedNumber = {
			name: number.displayName || number.id,
			phone: number.pairedNumber ?? number.declaredNumber ?? null,
			status: number.status ?? null,
			phoneOnline:
				typeof number.health?.phoneOnline === 'boolean' ? number.health.phoneOnline : null,
			offlineSince: prior?.offlineSince ?? null,
			offlineAlerted: prior?.offlineAlerted ?? false,
			silentAlerted: prior?.silentAlerted ?? false,
		};
		const label = numberLabel(current);
		const report = (change: ChangeKind, problem: boolean, message: string) =>
			add(
				change,
				problem,
				message,
				number.id,
				current.name,
				numberView(prior),
				numberView(current),
				number,
			);

		// Status: a new value is always news; at start only the one that needs action.
		if (baseline) {
			if (current.status === NEEDS_RELINK)
				report('number.status_changed', true, alertText.needsRelinkAtStart(label));
		} else if (!prior) {
			report(
				'number.added',
				current.status === NEEDS_RELINK,
				alertText.added(label, current.status),
			);
		} else if (prior.status !== current.status) {
			report(
				'number.status_changed',
				current.status === NEEDS_RELINK,
				alertText.statusChanged(label, prior.status, current.status),
			);
		}

		// Phone offline: not for a number that needs relinking (its status says more), and not
		// for a short outage. The alert goes out once; "online again" follows it.
		if (current.status === NEEDS_RELINK || settings.offlineMinutes <= 0) {
			current.offlineSince = null;
			current.offlineAlerted = false;
		} else if (current.phoneOnline === false) {
			current.offlineSince ??= offlineSinceEstimate(number, now);
			const offlineMs = now - Date.parse(current.offlineSince);
			if (!current.offlineAlerted && offlineMs >= settings.offlineMinutes * MINUTE) {
				current.offlineAlerted = true;
				report('number.phone_offline', true, alertText.phoneOffline(label, offlineMs));
			}
		} else if (current.phoneOnline === true) {
			if (prior?.offlineAlerted) {
				const since = parseTime(prior.offlineSince);
				report(
					'number.phone_online',
					false,
					alertText.phoneOnline(label, since === undefined ? null : now - since),
				);
			}
			current.offlineSince = null;
			current.offlineAlerted = false;
		}

		// No events: off by default; needs health.lastEventAt.
		const lastEvent = parseTime(number.health?.lastEventAt);
		if (settings.silenceMinutes <= 0) {
			current.silentAlerted = false;
		} else if (lastEvent !== undefined) {
			const silentMs = now - lastEvent;
			if (silentMs >= settings.silenceMinutes * MINUTE) {
				if (!current.silentAlerted)
					report('number.silent', true, alertText.silent(label, silentMs));
				current.silentAlerted = true;
			} else {
				if (current.silentAlerted)
					report('number.events_resumed', false, alertText.eventsResumed(label));
				current.silentAlerted = false;
			}
		}

		nextNumbers[number.id] = current;
	}

	if (!baseline) {
		for (const [id, gone] of Object.entries(before)) {
			if (nextNumbers[id]) continue;
			add(
				'number.removed',
				true,
				alertText.removed(numberLabel(gone)),
				id,
				gone.name,
				numberView(gone),
				null,
				null,
			);
		}
	}

	let nextWebhook: WatchedWebhook | null = null;
	if (seen.webhook) {
		const prior = previous.webhook;
		const current = seen.webhook;
		nextWebhook = current;
		const moved = prior && (prior.state !== current.state || prior.url !== current.url);
		const reportWebhook = (change: ChangeKind, problem: boolean) =>
			add(
				change,
				problem,
				alertText.webhook(current, current.url !== null && isTestUrl(current.url)),
				null,
				null,
				webhookView(prior),
				webhookView(current),
				null,
			);
		if (baseline || !prior) {
			// Watching starts here: a webhook that is not ours is a problem at start.
			if (baseline && current.state !== 'ours') reportWebhook(kindOf(current), true);
		} else if (moved) {
			if (current.state === 'ours') {
				if (prior.state !== 'ours') reportWebhook('webhook.restored', false);
			} else {
				reportWebhook(kindOf(current), true);
			}
		}
	}

	const next: WatchState = { watchVersion: 1, numbers: nextNumbers, webhook: nextWebhook };
	if (baseline && !settings.emitAtStart) return { changes: [], next };
	return { changes, next };
}

function kindOf(webhook: WatchedWebhook): ChangeKind {
	if (webhook.state === 'none') return 'webhook.lost';
	if (webhook.state === 'inactive') return 'webhook.inactive';
	return 'webhook.moved';
}
