/**
 * The holder's record of members (memberHealth.ts): the set-aside bound, and the races of n8n's
 * static data (each request saves its whole copy; the last save wins) that it must survive.
 */
import {
	failedHandoff,
	forgetMissed,
	isSetAside,
	missedEvent,
	missedSummary,
	setAsideLimits,
	tookHandoff,
} from '../../../../nodes/MessagingRelayTrigger/sharing/memberHealth';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

let nextWorkflow = 1;
function listener() {
	const id = `wf-health-${nextWorkflow++}`;
	return {
		getWorkflow: () => ({ id }),
		getNode: () => ({ name: 'Messaging Relay Trigger' }),
		getMode: () => 'webhook',
	};
}
const MEMBER = '/webhook/member/webhook';
const MINUTE = 60_000;

test('set aside only at the 3rd failed hand-off AND 2 minutes after the first; a success in between starts over', () => {
	expect(setAsideLimits).toMatchObject({ failures: 3, spanMs: 2 * MINUTE });
	const context = listener();
	const state: WebhookState = {};
	const t0 = 1_000_000;
	expect(failedHandoff(context, state, MEMBER, t0)).toEqual({ setAside: false, justNow: false });
	expect(failedHandoff(context, state, MEMBER, t0 + 10_000)).toEqual({
		setAside: false,
		justNow: false,
	});
	// Third failure, but only 20 s after the first.
	expect(failedHandoff(context, state, MEMBER, t0 + 20_000)).toEqual({
		setAside: false,
		justNow: false,
	});
	// A success: the run of failures starts over.
	tookHandoff(context, state, MEMBER, t0 + 30_000);
	expect(failedHandoff(context, state, MEMBER, t0 + 2 * MINUTE + 1)).toEqual({
		setAside: false,
		justNow: false,
	});
	expect(failedHandoff(context, state, MEMBER, t0 + 3 * MINUTE)).toEqual({
		setAside: false,
		justNow: false,
	});
	expect(isSetAside(context, state, MEMBER)).toBe(false);
	expect(failedHandoff(context, state, MEMBER, t0 + 4 * MINUTE + 2)).toEqual({
		setAside: true,
		justNow: true,
	});
	expect(isSetAside(context, state, MEMBER)).toBe(true);
	expect(failedHandoff(context, state, MEMBER, t0 + 5 * MINUTE)).toEqual({
		setAside: true,
		justNow: false,
	});
	tookHandoff(context, state, MEMBER, t0 + 6 * MINUTE);
	expect(isSetAside(context, state, MEMBER)).toBe(false);
});

test('a stale copy of static data saved after the holder forgot reported misses does not bring them back', () => {
	const context = listener();
	const database: WebhookState = {};
	missedEvent(
		context,
		database,
		MEMBER,
		'old-1',
		{ type: 'message.received', missedId: 'event-old-1' },
		1_000,
	);
	missedEvent(
		context,
		database,
		MEMBER,
		'old-2',
		{ type: 'group.updated', missedId: 'event-old-2' },
		2_000,
	);
	// Two requests load the database; the first forgets what was reported up to 2 000 and saves.
	const first: WebhookState = structuredClone(database);
	const second: WebhookState = structuredClone(database);
	expect(missedSummary(context, first, MEMBER)).toMatchObject({ count: 2, upTo: 2_000 });
	forgetMissed(context, first, MEMBER, 2_000);
	// The second one, loaded before that, records a new miss and saves last (n8n: last save wins).
	missedEvent(
		context,
		second,
		MEMBER,
		'new-1',
		{ type: 'number.disconnected', missedId: 'event-new-1' },
		3_000,
	);
	expect(Object.keys(second.members![MEMBER].missed!)).toEqual(['new-1']);
	expect(missedSummary(context, second, MEMBER)).toMatchObject({
		count: 1,
		types: { 'number.disconnected': 1 },
		firstAt: 3_000,
	});
});

test('two requests recording misses at the same time: the later save carries both', () => {
	const context = listener();
	const database: WebhookState = {};
	const first: WebhookState = structuredClone(database);
	const second: WebhookState = structuredClone(database);
	missedEvent(
		context,
		first,
		MEMBER,
		'a',
		{ type: 'message.received', missedId: 'event-a' },
		1_000,
	);
	missedEvent(
		context,
		second,
		MEMBER,
		'b',
		{ type: 'message.received', missedId: 'event-b' },
		1_001,
	);
	expect(Object.keys(second.members![MEMBER].missed!).sort()).toEqual(['a', 'b']);
	// A redelivery of one event is one miss.
	missedEvent(
		context,
		second,
		MEMBER,
		'a',
		{ type: 'message.received', missedId: 'event-a' },
		5_000,
	);
	expect(missedSummary(context, second, MEMBER)).toMatchObject({
		count: 2,
		types: { 'message.received': 2 },
	});
});

test('each kept miss carries the id its report names it by, oldest first; beyond the bound only counted; a miss recorded before ids were kept is named by the delivery id', () => {
	const kept = setAsideLimits.missedKept;
	setAsideLimits.missedKept = 3;
	try {
		const context = listener();
		// Static data written by the version before: [type, time], no id.
		const state: WebhookState = {
			members: {
				[MEMBER]: { changedAt: 500, failures: 0, missed: { 'ledger-old': ['group.updated', 500] } },
			},
		};
		missedEvent(
			context,
			state,
			MEMBER,
			'ledger-b',
			{ type: 'number.disconnected', missedId: 'dlv-b' },
			2_000,
		);
		missedEvent(
			context,
			state,
			MEMBER,
			'ledger-a',
			{ type: 'message.read', missedId: 'message 3EB0A' },
			1_000,
		);
		// A redelivery of one event is one miss, under its first id and time.
		missedEvent(
			context,
			state,
			MEMBER,
			'ledger-a',
			{ type: 'message.read', missedId: 'message 3EB0A' },
			1_500,
		);
		missedEvent(
			context,
			state,
			MEMBER,
			'ledger-c',
			{ type: 'number.disconnected', missedId: 'dlv-c' },
			3_000,
		);
		expect(missedSummary(context, state, MEMBER)).toEqual({
			count: 4,
			types: { 'group.updated': 1, 'message.read': 1, 'number.disconnected': 1 },
			uncounted: 1,
			firstAt: 500,
			lastAt: 2_000,
			upTo: 2_000,
			events: [
				{ id: 'delivery ledger-old', type: 'group.updated', at: 500 },
				{ id: 'message 3EB0A', type: 'message.read', at: 1_000 },
				{ id: 'dlv-b', type: 'number.disconnected', at: 2_000 },
			],
		});
	} finally {
		setAsideLimits.missedKept = kept;
	}
});

test('a holder that stops holding forgets its record of members', async () => {
	const { forgetHolder } = await import('../../../../nodes/shared/sharedWebhook/webhookState');
	const context = listener();
	const state: WebhookState = {
		webhookUrl: 'https://n8n.example.com/webhook/x/webhook',
		webhookSecret: 's',
	};
	failedHandoff(context, state, MEMBER, 1_000);
	expect(state.members).toBeDefined();
	forgetHolder(state);
	expect(state.members).toBeUndefined();
});
