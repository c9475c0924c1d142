/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test): PROPERTY_RUNS, set by the mutation runs */
/**
 * Every merge of the account state is a join (docs/design/conversations-at-scale.md, "Merges are joins"):
 * commutative, associative and idempotent, over copies that conflict in every field, so that the result
 * never depends on the order in which processes merge. Checked on the merge functions and, for waits and
 * pauses, on what the packed table keeps (the encoded line two processes write must be the same).
 * On f97c44d a wait's question id and resume took the last copy merged, and two pauses at one time the first.
 */
import fc from 'fast-check';

import { mergePauses } from '../../../../nodes/MessagingRelayTrigger/chatPause';
import { mergeLedgerEntries } from '../../../../nodes/shared/sharing/deliveryLedger';
import { mergeRecord } from '../../../../nodes/shared/sharing/memberHealth';
import {
	mergeWaits,
	recordWait,
	waitsInStaticData,
	type WaitEntry,
} from '../../../../nodes/shared/sendAndWait/waitingRuns';
import type {
	LedgerEntry,
	MemberRecord,
	MissedEntry,
	PauseEntry,
	WebhookState,
} from '../../../../nodes/shared/sharedWebhook/webhookState';

/** 500 runs per law; fewer under Stryker (test/mutation/jest.config.js), where each mutant runs them again. */
const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS ?? 500) };
const T = 1_800_000_000_000;
const small = (n: number) => fc.integer({ min: 0, max: n });
/** Few distinct values, so that copies collide: equal times with different payloads are the hard case. */
const time = small(4).map((d) => T + d);
const word = fc.constantFrom('a', 'b', 'c');

const wait: fc.Arbitrary<WaitEntry> = fc
	.record({
		chat: fc.constantFrom('4917600000001@c.us', '4917600000002@c.us'),
		channelId: fc.constantFrom('num_main', 'num_sales'),
		resumePath: fc.constantFrom('/webhook-waiting/7/n?x=1', '/webhook-waiting/7/n?x=2'),
		until: time,
		questionId: fc.option(word, { nil: null }),
		passOn: fc.boolean(),
		resumed: fc.option(fc.tuple(time, word), { nil: undefined }),
		offered: fc.option(fc.tuple(time, word), { nil: undefined }),
		refused: fc.option(fc.tuple(time, word), { nil: undefined }),
		asked: small(3),
	})
	.map(({ resumed, offered, refused, passOn, asked, ...w }) => {
		const entry: WaitEntry = { executionId: '7', since: T - 1_000, ...w };
		if (passOn) entry.passOn = true;
		if (asked > 0) entry.asked = asked;
		if (resumed) [entry.resumedAt, entry.resumedBy] = resumed;
		if (offered) [entry.offeredAt, entry.offeredBy] = offered;
		if (refused) [entry.refusedAt, entry.refusedBy] = refused;
		return entry;
	});

const pause: fc.Arbitrary<PauseEntry> = fc.record({
	at: time,
	until: fc.oneof(fc.constant(0), time, fc.constant(Number.MAX_SAFE_INTEGER)),
});

const ledger: fc.Arbitrary<LedgerEntry> = fc
	.record({ at: time, ran: fc.option(fc.uniqueArray(word, { maxLength: 3 }), { nil: undefined }) })
	.map(({ at, ran }) => (ran ? { at, ran } : { at }));

const miss: fc.Arbitrary<MissedEntry> = fc.oneof(
	fc.tuple(fc.constantFrom('message.received', 'group.updated'), time),
	fc.tuple(fc.constantFrom('message.received', 'group.updated'), time, word),
);
const member: fc.Arbitrary<MemberRecord> = fc
	.record({
		changedAt: time,
		failures: small(3),
		since: fc.option(time, { nil: undefined }),
		setAsideAt: fc.option(time, { nil: undefined }),
		missed: fc.option(fc.dictionary(word, miss, { maxKeys: 3 }), { nil: undefined }),
		missedUncounted: fc.option(small(3), { nil: undefined }),
		clearedUpTo: fc.option(time, { nil: undefined }),
	})
	.map((r) => {
		const record: MemberRecord = { changedAt: r.changedAt, failures: r.failures };
		for (const key of ['since', 'setAsideAt', 'missed', 'missedUncounted', 'clearedUpTo'] as const)
			if (r[key] !== undefined) (record as Record<string, unknown>)[key] = r[key];
		return record;
	});

function laws<T>(name: string, value: fc.Arbitrary<T>, merge: (a: T, b: T) => T) {
	describe(name, () => {
		test('commutative: a ⊔ b = b ⊔ a', () => {
			fc.assert(
				fc.property(value, value, (a, b) => expect(merge(a, b)).toEqual(merge(b, a))),
				RUNS,
			);
		});
		test('associative: (a ⊔ b) ⊔ c = a ⊔ (b ⊔ c)', () => {
			fc.assert(
				fc.property(value, value, value, (a, b, c) =>
					expect(merge(merge(a, b), c)).toEqual(merge(a, merge(b, c))),
				),
				RUNS,
			);
		});
		test('idempotent: a ⊔ a = a, once merged', () => {
			fc.assert(
				fc.property(value, value, (a, b) => {
					const m = merge(a, b);
					expect(merge(m, m)).toEqual(m);
					expect(merge(m, a)).toEqual(m);
					expect(merge(m, b)).toEqual(m);
				}),
				RUNS,
			);
		});
	});
}

laws('a wait (waitingRuns.ts mergeWaits)', wait, mergeWaits);
laws('a paused chat (chatPause.ts mergePauses)', pause, mergePauses);
laws('a delivery ledger entry (deliveryLedger.ts)', ledger, (a, b) => mergeLedgerEntries(a, b)!);
laws('a member health record (memberHealth.ts)', member, (a, b) => mergeRecord(a, b)!);

describe('what the packed table keeps', () => {
	const listener = (process: string) => ({
		getWorkflow: () => ({ id: 'wf-laws' }),
		getNode: () => ({ name: process }),
		getMode: () => 'webhook',
	});

	test('two processes writing conflicting copies of one wait, in either order, keep the same row', () => {
		let n = 0;
		fc.assert(
			fc.property(wait, wait, (a, b) => {
				const kept = (first: WaitEntry, second: WaitEntry) => {
					const state: WebhookState = {};
					n++;
					recordWait(listener(`one ${n}`), state, first, T);
					recordWait(listener(`two ${n}`), state, second, T);
					return waitsInStaticData(JSON.parse(JSON.stringify(state)) as WebhookState);
				};
				expect(kept(a, b)).toEqual(kept(b, a));
			}),
			RUNS,
		);
	});

	test('a resume and a pause given at the same millisecond resume the chat, in either order', () => {
		const paused = { at: T, until: T + 60_000 };
		const resumed = { at: T, until: 0 };
		expect(mergePauses(paused, resumed)).toEqual(resumed);
		expect(mergePauses(resumed, paused)).toEqual(resumed);
	});
});
