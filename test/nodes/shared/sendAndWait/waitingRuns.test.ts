import type { IDataObject } from 'n8n-workflow';

import {
	endWaits,
	quotedId,
	recordWait,
	waitsForReply,
	waitIdOf,
	waitsInStaticData as rowsInStaticData,
	type WaitEntry,
} from '../../../../nodes/shared/sendAndWait/waitingRuns';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

/**
 * Which waiting run a contact's message goes to (docs/design/durability-and-conversations.md §5):
 * the rule for several waits on one chat, and what a wait matches.
 */
let workflow = 0;
const context = () => {
	const id = `wf-waits-${workflow++}`;
	return {
		getWorkflow: () => ({ id }),
		getNode: () => ({ name: 'Trigger' }),
		getMode: () => 'webhook',
	};
};

const NOW = 1_800_000_000_000;
const ADA = '4917612345678@c.us';

function wait(executionId: string, changes: Partial<WaitEntry> = {}): WaitEntry {
	return {
		executionId,
		resumePath: `/webhook-waiting/${executionId}/node?chat=x`,
		chat: ADA,
		channelId: 'num_main',
		since: NOW - 10_000,
		until: NOW + 60_000,
		questionId: null,
		...changes,
	};
}

const message = (changes: IDataObject = {}): IDataObject => ({
	chatId: ADA,
	from: '+4917612345678',
	channelId: 'num_main',
	group: null,
	replyTo: null,
	...changes,
});
const ids = (waits: WaitEntry[]) => waits.map((w) => w.executionId);
/** The waits static data holds, by execution id (one question each here). */
const waitsInStaticData = (state: WebhookState) =>
	Object.fromEntries(Object.values(rowsInStaticData(state)).map((w) => [w.executionId, w]));

describe('the waits a message may answer, in order', () => {
	test('several waits on one chat: the oldest first; one whose question is quoted goes before all', () => {
		const ctx = context();
		const state: WebhookState = {};
		recordWait(ctx, state, wait('2', { since: NOW - 5_000, questionId: 'msg_2' }), NOW);
		recordWait(ctx, state, wait('1', { since: NOW - 9_000, questionId: 'msg_1' }), NOW);
		recordWait(ctx, state, wait('3', { since: NOW - 1_000, questionId: 'msg_3' }), NOW);
		expect(ids(waitsForReply(ctx, state, message(), 'd1', NOW))).toEqual(['1', '2', '3']);
		expect(
			ids(waitsForReply(ctx, state, message({ replyTo: { id: 'msg_3' } }), 'd1', NOW)),
		).toEqual(['3', '1', '2']);
	});

	test('another chat, another number, or a wait past its time limit: not offered', () => {
		const ctx = context();
		const state: WebhookState = {};
		recordWait(ctx, state, wait('1'), NOW);
		recordWait(ctx, state, wait('2', { chat: '4915100000000@c.us' }), NOW);
		recordWait(ctx, state, wait('3', { channelId: 'num_sales' }), NOW);
		recordWait(ctx, state, wait('4', { until: NOW - 1 }), NOW);
		expect(ids(waitsForReply(ctx, state, message(), 'd1', NOW))).toEqual(['1']);
	});

	test('a wait for a phone number matches a direct chat from that phone, not a group, a broadcast or a linked id', () => {
		const ctx = context();
		const state: WebhookState = {};
		recordWait(ctx, state, wait('1', { chat: '4917612345678' }), NOW);
		expect(
			ids(waitsForReply(ctx, state, message({ chatId: '4917612345678@c.us' }), 'd1', NOW)),
		).toEqual(['1']);
		// A linked id (…@lid) names no phone: its sender's phone is not taken as the chat.
		expect(
			ids(waitsForReply(ctx, state, message({ chatId: 'some-other-id@lid' }), 'd1', NOW)),
		).toEqual([]);
		expect(
			ids(
				waitsForReply(
					ctx,
					state,
					message({ chatId: '120363025551234567@g.us', group: { id: 'g' } }),
					'd1',
					NOW,
				),
			),
		).toEqual([]);
	});

	test('a wait that took a delivery is offered only that delivery again (its redelivery), even past its time', () => {
		const ctx = context();
		const state: WebhookState = {};
		recordWait(ctx, state, wait('1', { resumedBy: 'd1', until: NOW - 1 }), NOW);
		recordWait(ctx, state, wait('2', { since: NOW - 20_000 }), NOW);
		expect(ids(waitsForReply(ctx, state, message(), 'd1', NOW))).toEqual(['1', '2']);
		expect(ids(waitsForReply(ctx, state, message(), 'd2', NOW))).toEqual(['2']);
	});

	test('kept in static data and in this process: the question id sent later joins the first record; a dropped wait is ended in both, and gone an hour later', () => {
		const ctx = context();
		const state: WebhookState = {};
		recordWait(ctx, state, wait('1'), NOW);
		recordWait(ctx, { ...state }, wait('1', { questionId: 'msg_9' }), NOW); // another request's copy
		expect(waitsForReply(ctx, state, message({ replyTo: 'msg_9' }), 'd1', NOW)[0].questionId).toBe(
			'msg_9',
		);
		expect(waitsInStaticData(state)['1'].resumePath).toContain('/webhook-waiting/1/');
		endWaits(ctx, state, [waitIdOf(wait('1'))], NOW);
		expect(waitsForReply(ctx, state, message(), 'd1', NOW)).toEqual([]);
		// Ended, not deleted: a live copy in another process's memory cannot bring it back (docs/design/account-state.md).
		expect(waitsInStaticData(state)['1'].until).toBe(NOW);
		recordWait(ctx, state, wait('2', { until: NOW + 3 * 3_600_000 }), NOW + 3_600_001);
		expect(Object.keys(waitsInStaticData(state))).toEqual(['2']);
	});

	test('the quoted message id is read wherever the service may put it', () => {
		expect(quotedId({ replyTo: 'msg_1' })).toBe('msg_1');
		expect(quotedId({ replyTo: { id: 'msg_2' } })).toBe('msg_2');
		expect(quotedId({ replyTo: { messageId: 'msg_3', text: 'x' } })).toBe('msg_3');
		expect(quotedId({ replyTo: null })).toBeUndefined();
		expect(quotedId({})).toBeUndefined();
	});
});

describe('an offered delivery', () => {
	test('the wait offered this very delivery comes first, before an older one and a quoted one', () => {
		const ctx = context();
		const state: WebhookState = {};
		recordWait(ctx, state, wait('1', { since: NOW - 9_000 }), NOW);
		recordWait(ctx, state, wait('2', { since: NOW - 5_000, questionId: 'msg_2' }), NOW);
		recordWait(ctx, state, wait('3', { since: NOW - 1_000, offeredBy: 'd7', offeredAt: NOW }), NOW);
		const quoting = message({ replyTo: { id: 'msg_2' } });
		expect(ids(waitsForReply(ctx, state, quoting, 'd7', NOW))).toEqual(['3', '2', '1']);
		// Another delivery: the offer counts for nothing.
		expect(ids(waitsForReply(ctx, state, quoting, 'd8', NOW))).toEqual(['2', '1', '3']);
	});

	test('a redelivery finds the wait it was offered to by the delivery, whatever chat or number it names now', () => {
		const ctx = context();
		const state: WebhookState = {};
		recordWait(ctx, state, wait('1', { offeredBy: 'd7', offeredAt: NOW }), NOW);
		const elsewhere = message({
			chatId: '4915100000000@c.us',
			from: '+4915100000000',
			channelId: 'num_sales',
		});
		expect(ids(waitsForReply(ctx, state, elsewhere, 'd7', NOW))).toEqual(['1']);
		expect(ids(waitsForReply(ctx, state, elsewhere, 'd8', NOW))).toEqual([]);
		// Not once the wait has ended.
		endWaits(ctx, state, [waitIdOf(wait('1'))], NOW);
		expect(ids(waitsForReply(ctx, state, elsewhere, 'd7', NOW))).toEqual([]);
	});
});
