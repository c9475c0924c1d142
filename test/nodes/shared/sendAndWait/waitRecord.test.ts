/**
 * The record of waiting runs (waitingRuns.ts) as kept, called directly: every field read back from
 * static data as written, a row that cannot be read back skipped, two copies merged (the later
 * question id, the earliest end, the most re-asks), ended waits kept an hour, the live count and the
 * capacity, the other waits in a chat, dropping, the confirm and the repair. waitingRuns.test.ts
 * covers which waits a message goes to.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	endingsOf,
	endWaits,
	executionIdOf,
	liveWaitCount,
	liveWaits,
	mergeWaits,
	otherWaitsInChat,
	quotedId,
	recordWait,
	recordWaits,
	repairWaits,
	updateWaits,
	WAIT_CAPACITY,
	waits,
	waitsForReply,
	waitIdOf,
	waitsInStaticData as rowsInStaticData,
	waitStored,
	type WaitEntry,
} from '../../../../nodes/shared/sendAndWait/waitingRuns';
import { signedWaitParams } from '../../../../nodes/shared/protocol/waitingRunUrl';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

const NOW = 1_900_000_000_000;
const HOUR = 3_600_000;
const ADA = '4917612345678@c.us';
const NO_LIMIT = Date.parse('3000-01-01T00:00:00.000Z');

let workflows = 0;
/** One trigger in this process; `process` names another process's copy of the same workflow. */
function trigger(workflowId = `wf-record-${++workflows}`, process = 'Trigger') {
	return {
		getWorkflow: () => ({ id: workflowId }),
		getNode: () => ({ name: process }),
		getMode: () => 'webhook',
	};
}

function wait(executionId: string, changes: Partial<WaitEntry> = {}): WaitEntry {
	return {
		executionId,
		resumePath: `/webhook-waiting/${executionId}/node-1?chat=x&signature=abc`,
		chat: ADA,
		channelId: 'num_main',
		since: NOW - 10_000,
		until: NOW + HOUR,
		questionId: null,
		...changes,
	};
}
const ids = (list: WaitEntry[]) => list.map((w) => w.executionId);

/** A wait as given, without the row id static data keys it by. */
function withoutRowId(w: WaitEntry & { id?: string }): WaitEntry {
	const copy = { ...w };
	delete copy.id;
	return copy;
}

/** The waits static data holds, by execution id (one question each here), as given (without their row id). */
function waitsInStaticData(state: WebhookState): Record<string, WaitEntry> {
	return Object.fromEntries(
		Object.values(rowsInStaticData(state)).map((w) => [w.executionId, withoutRowId(w)]),
	);
}

/** Ends the wait of execution `executionId` (its one question), or an unknown row. */
function dropWait(
	t: ReturnType<typeof trigger>,
	state: WebhookState,
	executionId: string,
	now?: number,
) {
	const row = Object.values(rowsInStaticData(state)).find((w) => w.executionId === executionId);
	endWaits(t, state, [row?.id ?? waitIdOf({ executionId, since: NOW })], now);
}

describe('as static data holds it', () => {
	test('every field reads back as written, the end "wait indefinitely" included', () => {
		const t = trigger();
		const state: WebhookState = {};
		const full = wait('1', {
			until: NO_LIMIT,
			questionId: 'msg_7',
			passOn: true,
			offeredBy: 'd1',
			offeredAt: NOW - 2_000,
			asked: 3,
		});
		recordWait(t, state, full, NOW);
		const bare = wait('2');
		recordWait(t, state, bare, NOW);
		const stored = waitsInStaticData(state);
		expect(stored['1']).toEqual(full);
		expect(stored['2']).toEqual(bare);
		// Nothing that was not given: no passOn, re-asks, resume.
		expect(Object.keys(stored['2']).sort()).toEqual(Object.keys(bare).sort());
		// The end counts from the start: another start, the same end.
		recordWait(t, state, wait('3', { since: NOW - 99_999, until: NOW + 5 }), NOW);
		expect(waitsInStaticData(state)['3']).toMatchObject({ since: NOW - 99_999, until: NOW + 5 });
	});

	test('once resumed, only what recognises its answer is written: about a third of the row', () => {
		const t = trigger();
		const state: WebhookState = {};
		const delivery = 'ab'.repeat(16);
		recordWait(t, state, wait('1', { until: NO_LIMIT, questionId: 'msg_7', asked: 2 }), NOW);
		const liveText = state.waitRows!;
		const live = liveText.length;
		recordWait(t, state, wait('1', { resumedBy: delivery, resumedAt: NOW - 2_000 }), NOW);
		// Appended to what the process wrote last, after one separator.
		expect(state.waitRows!.startsWith(`${liveText};`)).toBe(true);
		expect(state.waitRows!.length - live - 1).toBeLessThan(live / 2);
		// Read back, the resumed line joins onto the live one: resumed, it waits no more.
		expect(waitsInStaticData(state)['1']).toMatchObject({
			executionId: '1',
			since: NOW - 10_000,
			until: NOW - 2_000,
			resumedBy: delivery,
			resumedAt: NOW - 2_000,
		});
		// Its redelivery is recognised, by the delivery, whatever chat the message names.
		expect(
			ids(waitsForReply(t, state, { chatId: 'any@c.us', channelId: 'num_main' }, delivery, NOW)),
		).toEqual(['1']);
	});

	test('what a process writes grows by the rows it changed, and is written anew before twice the rows and 64 lines', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1'), NOW);
		recordWait(t, state, wait('2'), NOW);
		const lines = () => state.waitRows!.split(';').length;
		const seen: number[] = [];
		for (let asked = 1; asked <= 150; asked++) {
			const before = state.waitRows!;
			recordWait(t, state, wait('1', { asked }), NOW);
			seen.push(lines());
			// Either the string before with one line appended, or the two rows anew.
			if (lines() > 2) expect(state.waitRows!.startsWith(`${before};`)).toBe(true);
			expect(lines()).toBeLessThanOrEqual(2 * 2 + 64);
			expect(waitsInStaticData(state)['1']).toMatchObject({ asked });
		}
		expect(Math.max(...seen)).toBe(2 * 2 + 64);
		expect(seen.filter((n) => n === 2).length).toBeGreaterThanOrEqual(2);
	});

	test("n8n's signed resume path, kept packed, reads back byte for byte, with and without Pass the Reply On", () => {
		const t = trigger();
		const state: WebhookState = {};
		const node = '0b7c3e2a-1f4d-4c8e-9a6b-2d5e8f1a3c7b';
		const signed = (id: string, changes: Partial<WaitEntry>) => {
			const w = wait(id, changes);
			const query = new URLSearchParams(signedWaitParams(w)).toString();
			return {
				...w,
				resumePath: `/webhook-waiting/${id}/${node}?${query}&signature=${'ab'.repeat(32)}`,
			};
		};
		const passing = signed('p', { passOn: true });
		const keeping = signed('k', {});
		recordWait(t, state, passing, NOW);
		recordWait(t, state, keeping, NOW);
		// Packed: the row does not repeat the path's query.
		expect(state.waitRows!.length).toBeLessThan(
			passing.resumePath.length + keeping.resumePath.length,
		);
		expect(waitsInStaticData(state)).toEqual({ p: passing, k: keeping });
	});

	test('kept under waitRows and waitsRev, where earlier versions saved them', () => {
		const state: WebhookState = {};
		recordWait(trigger(), state, wait('1'), NOW);
		expect(Object.keys(state).sort()).toEqual(['waitRows', 'waitsRev']);
	});

	test('a wait missing its chat, channel or resume path, or with a time that is not one, is not read back', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('ok'), NOW);
		recordWait(t, state, wait('a', { chat: '' }), NOW);
		recordWait(t, state, wait('b', { channelId: '' }), NOW);
		recordWait(t, state, wait('c', { resumePath: '' }), NOW);
		recordWait(t, state, wait('d', { since: Number.NaN }), NOW);
		recordWait(t, state, wait('e', { until: Number.POSITIVE_INFINITY }), NOW);
		expect(Object.keys(waitsInStaticData(state))).toEqual(['ok']);
	});

	test('the record is empty until a wait is recorded, in this process and in what it loaded', () => {
		const t = trigger();
		const state: WebhookState = {};
		expect(waits.isEmpty(t, state)).toBe(true);
		recordWait(t, state, wait('1'), NOW);
		expect(waits.isEmpty(t, state)).toBe(false);
		expect(waits.isEmpty(trigger(), state)).toBe(false);
	});
});

describe('two copies of one wait (two requests, two processes)', () => {
	test('merged: the most re-asks, the earliest end, the earliest resume with its delivery, the question id one of them has', () => {
		const id = `wf-record-merge-${++workflows}`;
		const mine = trigger(id, 'Trigger');
		const other = trigger(id, 'Trigger (another process)');
		const state: WebhookState = {};
		recordWait(
			mine,
			state,
			wait('1', { asked: 2, until: NOW + HOUR, resumedBy: 'd8', resumedAt: NOW - 50 }),
			NOW,
		);
		recordWait(
			other,
			state,
			wait('1', {
				asked: 1,
				until: NOW + 10,
				questionId: 'msg_1',
				resumedBy: 'd9',
				resumedAt: NOW - 10,
			}),
			NOW,
		);
		// Resumed: kept short, with the earliest end and the earliest resume and its delivery.
		expect(waitsInStaticData(state)['1']).toMatchObject({
			until: NOW - 50,
			resumedBy: 'd8',
			resumedAt: NOW - 50,
		});
		// A live copy of it (another process that missed the resume) keeps it resumed.
		recordWait(mine, state, wait('1', { asked: 0 }), NOW);
		expect(waitsInStaticData(state)['1']).toMatchObject({ resumedBy: 'd8', resumedAt: NOW - 50 });
		// Not resumed, two copies: the most re-asks, the earliest end, the question id one has.
		const other2 = trigger(id, 'Trigger (a third process)');
		const state2: WebhookState = {};
		recordWait(mine, state2, wait('2', { asked: 2, until: NOW + HOUR }), NOW);
		recordWait(other2, state2, wait('2', { asked: 1, until: NOW + 10, questionId: 'msg_1' }), NOW);
		expect(waitsInStaticData(state2)['2']).toEqual(
			wait('2', { asked: 2, until: NOW + 10, questionId: 'msg_1' }),
		);
	});

	test('two question ids: the smaller, in any order (a join); a resume is its delivery and time together', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1', { questionId: 'msg_b' }), NOW);
		recordWait(t, state, wait('1', { questionId: 'msg_a' }), NOW);
		expect(waitsInStaticData(state)['1'].questionId).toBe('msg_a');
		recordWait(t, state, wait('1', { questionId: 'msg_b' }), NOW);
		expect(waitsInStaticData(state)['1'].questionId).toBe('msg_a');
		// A resume is taken whole: the earlier one, its delivery with it.
		recordWait(t, state, wait('1', { resumedBy: 'd2', resumedAt: NOW - 5 }), NOW);
		recordWait(t, state, wait('1', { resumedBy: 'd1', resumedAt: NOW - 9 }), NOW);
		recordWait(t, state, wait('1', { resumedBy: 'd0', resumedAt: NOW - 1 }), NOW);
		expect(waitsInStaticData(state)['1']).toMatchObject({ resumedBy: 'd1', resumedAt: NOW - 9 });
	});
});

describe('ended waits', () => {
	test('kept an hour after their end or their resume, whichever came first, to the millisecond', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('ended', { until: NOW }), NOW);
		recordWait(
			t,
			state,
			wait('resumed', { until: NOW + 10 * HOUR, resumedBy: 'd1', resumedAt: NOW }),
			NOW,
		);
		recordWait(t, state, wait('live', { until: NOW + 10 * HOUR }), NOW);
		recordWait(t, state, wait('edge', { until: NOW + 60_000 }), NOW);
		recordWait(t, state, wait('past', { until: NOW + 59_999 }), NOW);
		// Expired waits go at a write, at most once a minute: here an hour after the first end.
		recordWait(t, state, wait('x1', { until: NOW + 10 * HOUR }), NOW + HOUR);
		expect(Object.keys(waitsInStaticData(state)).sort()).toEqual(
			['edge', 'ended', 'live', 'past', 'resumed', 'x1'].sort(),
		);
		recordWait(t, state, wait('x2', { until: NOW + 10 * HOUR }), NOW + HOUR + 60_000);
		expect(Object.keys(waitsInStaticData(state)).sort()).toEqual(['edge', 'live', 'x1', 'x2']);
	});

	test('dropping ends a live wait now, in both copies; an unknown or ended one is left as it is', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1', { until: NOW + HOUR }), NOW);
		dropWait(t, state, '1', NOW + 5);
		expect(waitsInStaticData(state)['1'].until).toBe(NOW + 5);
		// Dropped again later: it keeps its first end.
		dropWait(t, state, '1', NOW + 50);
		expect(waitsInStaticData(state)['1'].until).toBe(NOW + 5);
		// Ended at exactly now: nothing to end.
		recordWait(t, state, wait('2', { until: NOW + 7 }), NOW);
		const before = state.waitRows;
		dropWait(t, state, '2', NOW + 7);
		expect(state.waitRows).toBe(before);
		dropWait(t, state, 'unknown', NOW);
		expect(state.waitRows).toBe(before);
	});

	test('without a time given, now', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1', { since: Date.now() - 1_000, until: Date.now() + HOUR }));
		expect(liveWaitCount(t, state)).toBe(1);
		expect(otherWaitsInChat(t, state, wait('2'))).toBe(1);
		dropWait(t, state, '1');
		expect(liveWaitCount(t, state)).toBe(0);
		expect(repairWaits(t, state)).toBe(false);
	});
});

describe('counting live waits, and the capacity', () => {
	test('live: not resumed and before its end (the end itself is not live)', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1'), NOW);
		recordWait(t, state, wait('2', { until: NOW }), NOW);
		recordWait(t, state, wait('3', { resumedBy: 'd1' }), NOW);
		recordWait(t, state, wait('4', { until: NOW + 1 }), NOW);
		expect(liveWaitCount(t, state, NOW)).toBe(2);
	});

	test('a new wait beyond the capacity is refused, with why; a known one is updated, an ended one makes room', () => {
		expect(WAIT_CAPACITY).toBe(10_000);
		const t = trigger();
		const state: WebhookState = {};
		expect(recordWait(t, state, wait('1'), NOW, 2)).toEqual({ recorded: true });
		expect(recordWait(t, state, wait('2'), NOW, 2)).toEqual({ recorded: true });
		expect(recordWait(t, state, wait('3'), NOW, 2)).toEqual({
			recorded: false,
			reason: 'this account already has 2 runs waiting for a reply',
		});
		expect(Object.keys(waitsInStaticData(state)).sort()).toEqual(['1', '2']);
		expect(recordWait(t, state, wait('2', { questionId: 'q' }), NOW, 2)).toEqual({
			recorded: true,
		});
		expect(recordWait(t, state, wait('3'), NOW)).toEqual({ recorded: true });
		dropWait(t, state, '1', NOW);
		expect(recordWait(t, state, wait('4'), NOW, 3)).toEqual({ recorded: true });
	});
});

describe('other waits in a chat', () => {
	test('live waits in the same chat, other than this one', () => {
		const t = trigger();
		const state: WebhookState = {};
		const mine = wait('1');
		recordWait(t, state, mine, NOW);
		expect(otherWaitsInChat(t, state, mine, NOW)).toBe(0);
		recordWait(t, state, wait('2'), NOW);
		recordWait(t, state, wait('3', { chat: '4915100000000@c.us' }), NOW);
		recordWait(t, state, wait('4', { resumedBy: 'd1' }), NOW);
		recordWait(t, state, wait('5', { until: NOW }), NOW);
		expect(otherWaitsInChat(t, state, mine, NOW)).toBe(1);
	});
});

describe("Send and Wait's confirm, and the repair", () => {
	test('stored: the static data this request loaded holds the wait as given (or later), not merely this process', () => {
		const t = trigger();
		const state: WebhookState = {};
		const given = wait('1', { questionId: 'q1' });
		expect(waitStored(t, state, given)).toBe(false);
		recordWait(t, state, given, NOW);
		expect(waitStored(t, state, given)).toBe(true);
		expect(waitStored(t, {}, given)).toBe(false);
		// A later form (ended earlier) is not held; another question id joins to the one held.
		expect(waitStored(t, state, wait('1', { questionId: 'q1', until: NOW + 5 }))).toBe(false);
		expect(waitStored(t, state, wait('1', { questionId: 'q2' }))).toBe(true);
	});

	test("repair writes back what another process's save dropped, once", () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1'), NOW);
		const dropped: WebhookState = {};
		expect(repairWaits(t, dropped, NOW)).toBe(true);
		expect(Object.keys(waitsInStaticData(dropped))).toEqual(['1']);
		expect(repairWaits(t, dropped, NOW)).toBe(false);
	});
});

describe('which waits a message may answer: the remaining conditions', () => {
	const message = (changes: IDataObject = {}): IDataObject => ({
		chatId: ADA,
		from: '+49 176 12345678',
		channelId: 'num_main',
		...changes,
	});

	test('a message with no channel matches every channel; one with no chat id matches by its sender only', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1', { channelId: 'num_sales' }), NOW);
		recordWait(t, state, wait('2', { chat: '4917612345678' }), NOW);
		expect(ids(waitsForReply(t, state, message({ channelId: undefined }), 'd1', NOW))).toEqual([
			'1',
			'2',
		]);
		expect(
			ids(waitsForReply(t, state, message({ chatId: 42, channelId: 'num_main' }), 'd1', NOW)),
		).toEqual(['2']);
	});

	test('a group, broadcast or linked-id chat does not match by its sender, with a `group` or without', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1', { chat: '4917612345678' }), NOW);
		const group = message({ chatId: '120363025551234567@g.us' });
		expect(ids(waitsForReply(t, state, { ...group, group: {} }, 'd1', NOW))).toEqual([]);
		expect(ids(waitsForReply(t, state, { ...group, group: null }, 'd1', NOW))).toEqual([]);
		expect(ids(waitsForReply(t, state, group, 'd1', NOW))).toEqual([]);
		for (const chatId of ['status@broadcast', '4917612345678@lid'])
			expect(ids(waitsForReply(t, state, message({ chatId }), 'd1', NOW))).toEqual([]);
		expect(
			ids(waitsForReply(t, state, message({ chatId: '4917612345678@c.us' }), 'd1', NOW)),
		).toEqual(['1']);
	});

	test('a wait at its end is not offered; a millisecond before it is', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1', { until: NOW }), NOW - 1);
		expect(ids(waitsForReply(t, state, message(), 'd1', NOW - 1))).toEqual(['1']);
		expect(ids(waitsForReply(t, state, message(), 'd1', NOW))).toEqual([]);
	});

	test('the order: the redelivered one, then the quoted one, then by age; no quote quotes nothing', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('old', { since: NOW - 9_000, questionId: 'q-old' }), NOW);
		recordWait(t, state, wait('quoted', { since: NOW - 5_000, questionId: 'q-quoted' }), NOW);
		recordWait(t, state, wait('took', { since: NOW - 1_000, resumedBy: 'd1' }), NOW);
		recordWait(t, state, wait('none', { since: NOW - 7_000 }), NOW);
		expect(
			ids(waitsForReply(t, state, message({ replyTo: { id: 'q-quoted' } }), 'd1', NOW)),
		).toEqual(['took', 'quoted', 'old', 'none']);
		expect(ids(waitsForReply(t, state, message(), 'd2', NOW))).toEqual(['old', 'none', 'quoted']);
		// A wait recorded without a question id (it is optional) is not taken as quoted by a message that quotes nothing.
		const t2 = trigger();
		const s2: WebhookState = {};
		recordWait(t2, s2, wait('older', { since: NOW - 9_000 }), NOW);
		recordWait(t2, s2, { ...wait('newer', { since: NOW - 1_000 }), questionId: undefined }, NOW);
		expect(ids(waitsForReply(t2, s2, message(), 'd3', NOW))).toEqual(['older', 'newer']);
		// As this process alone knows it (another request's static data, without either).
		expect(ids(waitsForReply(t2, {}, message(), 'd3', NOW))).toEqual(['older', 'newer']);
	});

	test('a quoted id is a non-empty string, in `replyTo` or its id, messageId or message_id', () => {
		expect(quotedId({ replyTo: '' })).toBeUndefined();
		expect(quotedId({ replyTo: { message_id: 'm4' } })).toBe('m4');
		expect(quotedId({ replyTo: { id: '', messageId: 'm5' } })).toBe('m5');
		expect(quotedId({ replyTo: { id: 7, message_id: 'm6' } })).toBe('m6');
		expect(quotedId({ replyTo: { text: 'no id' } })).toBeUndefined();
		expect(quotedId({ replyTo: 42 })).toBeUndefined();
	});
});

describe('row ids and packed fields, read back as written', () => {
	test('a row id is the execution id and the start; a start that is not whole keeps one dot', () => {
		expect(waitIdOf({ executionId: '7', since: 1.5 }).split('.')).toHaveLength(2);
		// Two starts that differ only in where their point is: two rows.
		expect(waitIdOf({ executionId: '7', since: 1.05 })).not.toBe(
			waitIdOf({ executionId: '7', since: 10.5 }),
		);
		expect(executionIdOf(waitIdOf({ executionId: '7.2', since: NOW }))).toBe('7.2');
		// A row of 0.1.0's first versions: the execution id alone.
		expect(executionIdOf('123')).toBe('123');
		expect(executionIdOf('.x')).toBe('.x');
	});

	test.each([
		['32 hex digits, kept packed short', 'ab'.repeat(16)],
		['more than 32 hex digits', `${'ab'.repeat(16)}0`],
		['32 hex digits after a prefix', `x${'ab'.repeat(16)}`],
		['any other id', 'delivery-7'],
	])('a delivery id of %s reads back exactly, offered and resumed', (_what, delivery) => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1', { offeredBy: delivery, offeredAt: NOW - 3_000 }), NOW);
		expect(waitsInStaticData(state)['1']).toMatchObject({
			offeredBy: delivery,
			offeredAt: NOW - 3_000,
		});
		const resumed = { resumedBy: delivery, resumedAt: NOW - 2_000 };
		recordWait(t, state, wait('2', resumed), NOW);
		// Read by another process: the compact resumed row alone.
		expect(waitsInStaticData({ waitRows: state.waitRows!.split(';').pop() })['2']).toEqual({
			executionId: '2',
			resumePath: '',
			chat: '',
			channelId: '',
			since: NOW - 10_000,
			until: NOW - 2_000,
			questionId: null,
			...resumed,
		});
	});

	test.each([
		['32 hex digits', 'ab'.repeat(16)],
		['any other id', 'delivery-7'],
	])(
		'a refused offer (delivery id of %s) reads back exactly, in two columns of its own at the end',
		(_what, delivery) => {
			const t = trigger();
			const state: WebhookState = {};
			const offered = { offeredBy: delivery, offeredAt: NOW - 3_000 };
			recordWait(t, state, wait('1', offered), NOW);
			const plain = state.waitRows!;
			recordWait(
				t,
				state,
				wait('1', { ...offered, refusedBy: delivery, refusedAt: NOW - 3_000 }),
				NOW,
			);
			expect(waitsInStaticData(state)['1']).toMatchObject({
				...offered,
				refusedBy: delivery,
				refusedAt: NOW - 3_000,
			});
			// The row as it was, two columns longer: older versions read it as the offer alone.
			const refused = state.waitRows!.split(';').pop()!;
			expect(refused.startsWith(plain)).toBe(true);
			expect(refused.split(' ')).toHaveLength(plain.split(' ').length + 2);
			expect(waitsInStaticData({ waitRows: refused })['1']).toMatchObject({ refusedBy: delivery });
		},
	);

	test('a row without a refusal keeps its 12 columns; rows of 10 or 12 columns read with no refusal, one with half of it too', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1', { offeredBy: 'd1', offeredAt: NOW - 3_000 }), NOW);
		const row = state.waitRows!;
		expect(row.split(' ')).toHaveLength(13);
		const read = (text: string) => waitsInStaticData({ waitRows: text })['1'];
		expect(read(row)).toMatchObject({ offeredBy: 'd1' });
		expect(read(row).refusedBy).toBeUndefined();
		const tenColumns = row.split(' ').slice(0, 11).join(' ');
		expect(read(tenColumns)).toMatchObject({ chat: ADA });
		expect(read(tenColumns).offeredBy).toBeUndefined();
		for (const half of [`${row} d1`, `${row}  0`]) {
			expect(read(half).refusedBy).toBeUndefined();
			expect(read(half).refusedAt).toBeUndefined();
		}
	});

	test('the start is left out of a row when its id says it; a start the id does not say is kept', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1'), NOW);
		// id, chat, number, start (left out: the id says it), end, ...
		expect(state.waitRows!.split(' ').slice(1, 4)).toEqual([ADA, 'num_main', '']);
		const short = state.waitRows!.length;
		const id = waitIdOf(wait('2'));
		// A row keyed by an id whose start differs (a row of an earlier version): its own start is kept.
		updateWaits(t, state, [[id, wait('2', { since: NOW - 20_000 })]], NOW);
		expect(rowsInStaticData(state)[id]).toMatchObject({ since: NOW - 20_000 });
		expect(state.waitRows!.length).toBeGreaterThan(2 * short - 10);
		expect(rowsInStaticData(state)[waitIdOf(wait('1'))]).toMatchObject({ since: NOW - 10_000 });
	});

	test('a compact resumed row with a field missing or not a number is skipped', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1', { resumedBy: 'd1', resumedAt: NOW - 2_000 }), NOW);
		const good = state.waitRows!;
		const [id, ...fields] = good.split(' ');
		expect(waitsInStaticData({ waitRows: good })['1']).toMatchObject({ resumedBy: 'd1' });
		expect(fields).toHaveLength(5); // the resumed mark, the start (in the id), end, resumed at, by
		const without = (i: number, value: string) =>
			rowsInStaticData({
				waitRows: [id, ...fields.map((f, at) => (at === i ? value : f))].join(' '),
			});
		// A start, an end or a time that is not a number; an end, a time or a delivery missing.
		for (const i of [1, 2, 3]) expect(without(i, 'x!')).toEqual({});
		for (const i of [2, 3, 4]) expect(without(i, '')).toEqual({});
	});

	test('a wait with no time limit reads back with none', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1', { until: NO_LIMIT }), NOW);
		expect(waitsInStaticData(state)['1'].until).toBe(NO_LIMIT);
		expect(state.waitRows!.split(' ')).toContain('F');
	});
});

describe('the capacity and the live waits', () => {
	test('a batch is counted as it is planned: the waits beyond the capacity are refused, a known one is not counted again', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1'), NOW);
		const outcomes = recordWaits(t, state, [wait('2'), wait('2'), wait('3'), wait('1')], NOW, 2);
		expect(outcomes.map((o) => o.recorded)).toEqual([true, true, false, true]);
		expect(liveWaitCount(t, state, NOW)).toBe(2);
		expect(ids(liveWaits(t, state, NOW)).sort()).toEqual(['1', '2']);
		// Without a capacity, nothing is refused.
		expect(recordWaits(t, state, [wait('4'), wait('5')], NOW).map((o) => o.recorded)).toEqual([
			true,
			true,
		]);
		// A wait that is not live does not count against it.
		expect(recordWait(t, state, wait('6', { until: NOW - 1 }), NOW, 1)).toEqual({ recorded: true });
		expect(ids(liveWaits(t, state, NOW)).sort()).toEqual(['1', '2', '4', '5']);
		expect(liveWaitCount(t, state, NOW + HOUR)).toBe(0);
	});

	test('no change writes nothing; ending a wait already ended changes nothing', () => {
		const t = trigger();
		const state: WebhookState = {};
		recordWait(t, state, wait('1', { until: NOW - 5 }), NOW);
		const before = { ...state };
		updateWaits(t, state, [], NOW);
		expect(state).toEqual(before);
		expect(endingsOf(t, state, [waitIdOf(wait('1'))], NOW)).toEqual([]);
		expect(endingsOf(t, state, [waitIdOf(wait('1'))], NOW - 5)).toEqual([]);
		expect(endingsOf(t, state, [waitIdOf(wait('1'))], NOW - 6)).toHaveLength(1);
	});
});

describe('two copies of a wait, merged', () => {
	const base = wait('1');
	test('the later offer wins, the earlier resume, the earlier end and start, the first question id in order', () => {
		const early = { ...base, offeredBy: 'd1', offeredAt: NOW - 5_000, questionId: 'q-b' };
		const late = {
			...base,
			offeredBy: 'd2',
			offeredAt: NOW - 1_000,
			questionId: 'q-a',
			since: NOW - 9_000,
		};
		for (const merged of [mergeWaits(early, late), mergeWaits(late, early)])
			expect(merged).toMatchObject({
				offeredBy: 'd2',
				offeredAt: NOW - 1_000,
				questionId: 'q-a',
				since: NOW - 10_000,
			});
		const first = { ...base, resumedBy: 'd1', resumedAt: NOW - 5_000 };
		const second = { ...base, resumedBy: 'd2', resumedAt: NOW - 1_000, until: NOW };
		for (const merged of [mergeWaits(first, second), mergeWaits(second, first)])
			expect(merged).toMatchObject({ resumedBy: 'd1', resumedAt: NOW - 5_000, until: NOW });
	});

	test('what neither copy has, the merge does not have either: no empty resume, offer or re-ask count', () => {
		expect(Object.keys(mergeWaits(base, { ...base })).sort()).toEqual(
			['executionId', 'resumePath', 'chat', 'channelId', 'since', 'until', 'questionId'].sort(),
		);
	});
});
