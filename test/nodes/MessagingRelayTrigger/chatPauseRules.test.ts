/**
 * Pause When a Person Replies (chatPause.ts), called directly with a stand-in for n8n's context and
 * this process's clock in the test's hand: which `message.sent` pauses its chat and until when, the
 * resume keyword, which `message.received` the pause stops, the action node's pause command, and
 * the record in static data (its packed form read back, the newer word winning, ended pauses kept
 * a day). chatPause.test.ts shows the same over HTTP with the simulator.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import {
	applyChatPause,
	applyPauseCommand,
	CHAT_PAUSE_EVENTS,
	PAUSED,
	pausesInStaticData,
	personsPause,
	repairPauses,
} from '../../../nodes/MessagingRelayTrigger/chatPause';
import type { PauseSettings } from '../../../nodes/MessagingRelayTrigger/triggerSettings';
import type { WebhookState } from '../../../nodes/shared/sharedWebhook/webhookState';

const ADA = '4917610000001@c.us';
const ADA_DIGITS = '4917610000001';
const GROUP = '120363000000000001@g.us';
const T = 1_900_000_000_000;
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const FOREVER = Number.MAX_SAFE_INTEGER;

const SETTINGS: PauseSettings = { minutes: 30, keyword: '#bot', apiOrigins: ['api', 'n8n'] };

let workflows = 0;
/** One trigger (a workflow of its own) in this process; `option`: its Pause When a Person Replies. */
function trigger(option: IDataObject | undefined = { settings: { minutes: 30, keyword: '#bot' } }) {
	const workflowId = `wf-pause-${++workflows}`;
	return listener(workflowId, option);
}
function listener(workflowId: string, option?: IDataObject, nodeName = 'Trigger') {
	return {
		getWorkflow: () => ({ id: workflowId }),
		getNode: () => ({ name: nodeName }),
		getMode: () => 'webhook',
		getNodeParameter: (name: string, fallback: unknown) =>
			name === 'options.pauseWhenPersonReplies' ? (option ?? fallback) : fallback,
	} as unknown as IWebhookFunctions & { getMode(): string };
}

function sent(message: IDataObject, occurredAt?: string): IDataObject {
	return {
		type: 'message.sent',
		...(occurredAt === undefined ? {} : { occurredAt }),
		message: { chatId: ADA, origin: 'phone', text: 'I will take this one', ...message },
	};
}
const received = (message: IDataObject = {}): IDataObject => ({
	type: 'message.received',
	message: { chatId: ADA, from: ADA_DIGITS, text: 'hello', ...message },
});
const iso = (ms: number) => new Date(ms).toISOString();

describe("what a person's message from the phone says (personsPause)", () => {
	test('a message typed on the phone pauses its chat for the minutes set, from when it was sent', () => {
		expect(personsPause(sent({}, iso(T - 5_000)), SETTINGS, T)).toEqual({
			chat: ADA,
			entry: { at: T - 5_000, until: T - 5_000 + 30 * MINUTE },
		});
	});

	test('a message sent through the API (any of its origins, in any case or padding) pauses nothing', () => {
		for (const origin of ['api', 'N8N', '  Api '])
			expect(personsPause(sent({ origin }), SETTINGS, T)).toBeUndefined();
		// Another origin, even one containing an API origin, is a person's.
		expect(personsPause(sent({ origin: 'api-phone' }), SETTINGS, T)?.chat).toBe(ADA);
	});

	test('no origin says nothing about who typed it: it pauses nothing', () => {
		for (const origin of [undefined, null, 7])
			expect(personsPause(sent({ origin }), SETTINGS, T)).toBeUndefined();
	});

	test('the resume keyword (any case, padded) ends the pause; without a keyword, nothing is one', () => {
		expect(personsPause(sent({ text: '  #BOT ' }, iso(T)), SETTINGS, T)?.entry).toEqual({
			at: T,
			until: 0,
		});
		expect(personsPause(sent({ text: '#bot please' }, iso(T)), SETTINGS, T)?.entry.until).toBe(
			T + 30 * MINUTE,
		);
		const noKeyword = { ...SETTINGS, keyword: '' };
		expect(personsPause(sent({ text: '' }, iso(T)), noKeyword, T)?.entry.until).toBe(
			T + 30 * MINUTE,
		);
		expect(personsPause(sent({ text: 7 }, iso(T)), SETTINGS, T)?.entry.until).toBe(T + 30 * MINUTE);
	});

	test('when it was sent: the event time, else the message timestamp, never later than now, else now', () => {
		const at = (body: IDataObject) => personsPause(body, SETTINGS, T)?.entry.at;
		expect(at(sent({ timestamp: iso(T - 9_000) }, iso(T - 4_000)))).toBe(T - 4_000);
		expect(at(sent({ timestamp: iso(T - 9_000) }, 'not a time'))).toBe(T - 9_000);
		expect(at(sent({ timestamp: iso(T - 9_000) }))).toBe(T - 9_000);
		expect(at(sent({ timestamp: T - 9_000 }))).toBe(T);
		expect(at(sent({}, iso(T + 60_000)))).toBe(T);
		expect(at(sent({}))).toBe(T);
	});

	test('only a message.sent with a message and a chat id', () => {
		expect(personsPause({ ...sent({}), type: 'message.received' }, SETTINGS, T)).toBeUndefined();
		expect(personsPause({ type: 'message.sent' }, SETTINGS, T)).toBeUndefined();
		expect(personsPause(sent({ chatId: 42 }), SETTINGS, T)).toBeUndefined();
		expect(personsPause(sent({ chatId: '' }), SETTINGS, T)).toBeUndefined();
	});
});

describe('which deliveries the pause stops (applyChatPause)', () => {
	test("a person's message pauses the chat: its contact's messages start nothing until the end, to the millisecond", () => {
		const t = trigger();
		const state: WebhookState = {};
		expect(applyChatPause(t, state, sent({}, iso(T)), SETTINGS, T)).toBeUndefined();
		expect(applyChatPause(t, state, received(), SETTINGS, T)).toBe(PAUSED);
		expect(applyChatPause(t, state, received(), SETTINGS, T + 30 * MINUTE - 1)).toBe(PAUSED);
		expect(applyChatPause(t, state, received(), SETTINGS, T + 30 * MINUTE)).toBeUndefined();
		expect(PAUSED).toBe('chat paused: a person replied from the phone');
	});

	test('another chat, another event type, or a message without a chat id is not stopped', () => {
		const t = trigger();
		const state: WebhookState = {};
		applyChatPause(t, state, sent({}, iso(T)), SETTINGS, T);
		expect(
			applyChatPause(t, state, received({ chatId: '4917610000002@c.us' }), SETTINGS, T),
		).toBeUndefined();
		expect(
			applyChatPause(t, state, { ...received(), type: 'message.reaction' }, SETTINGS, T),
		).toBeUndefined();
		expect(applyChatPause(t, state, { type: 'message.received' }, SETTINGS, T)).toBeUndefined();
		expect(applyChatPause(t, state, received({ chatId: 5 }), SETTINGS, T)).toBeUndefined();
		expect([...CHAT_PAUSE_EVENTS].sort()).toEqual(['message.received', 'message.sent']);
	});

	test('only a message.sent is noted: a received message with an origin pauses nothing', () => {
		const t = trigger();
		const state: WebhookState = {};
		expect(applyChatPause(t, state, received({ origin: 'phone' }), SETTINGS, T)).toBeUndefined();
		expect(pausesInStaticData(state)).toEqual({});
		// A message.sent through the API records nothing either.
		applyChatPause(t, state, sent({ origin: 'api' }), SETTINGS, T);
		expect(pausesInStaticData(state)).toEqual({});
	});

	test("a pause kept under a phone's digits stops its direct chat, not a group message from that phone", () => {
		const t = trigger();
		const state: WebhookState = {};
		applyPauseCommand(
			t,
			state,
			JSON.stringify({ chat: '+49 176 10000001', pause: true, at: T }),
			T,
		);
		expect(Object.keys(pausesInStaticData(state))).toEqual([ADA_DIGITS]);
		expect(applyChatPause(t, state, received(), SETTINGS, T)).toBe(PAUSED);
		expect(applyChatPause(t, state, received({ group: null }), SETTINGS, T)).toBe(PAUSED);
		expect(
			applyChatPause(
				t,
				state,
				received({ chatId: ADA_DIGITS + '@g.us', group: { id: 'g' } }),
				SETTINGS,
				T,
			),
		).toBeUndefined();
		// A group chat's own pause stops it, whatever is in `group`.
		applyPauseCommand(t, state, JSON.stringify({ chat: GROUP, pause: true, at: T }), T);
		expect(applyChatPause(t, state, received({ chatId: GROUP, group: {} }), SETTINGS, T)).toBe(
			PAUSED,
		);
		expect(applyChatPause(t, state, received({ chatId: GROUP, group: null }), SETTINGS, T)).toBe(
			PAUSED,
		);
	});

	test('the keyword resumes at once; a later message pauses again; an earlier one sent late changes nothing', () => {
		const t = trigger();
		const state: WebhookState = {};
		applyChatPause(t, state, sent({}, iso(T)), SETTINGS, T);
		applyChatPause(t, state, sent({ text: '#bot' }, iso(T + MINUTE)), SETTINGS, T + MINUTE);
		expect(applyChatPause(t, state, received(), SETTINGS, T + MINUTE)).toBeUndefined();
		// A redelivery of the first message (sent before the keyword) does not pause again.
		applyChatPause(t, state, sent({}, iso(T)), SETTINGS, T + 2 * MINUTE);
		expect(applyChatPause(t, state, received(), SETTINGS, T + 2 * MINUTE)).toBeUndefined();
		applyChatPause(t, state, sent({}, iso(T + 3 * MINUTE)), SETTINGS, T + 3 * MINUTE);
		expect(applyChatPause(t, state, received(), SETTINGS, T + 3 * MINUTE)).toBe(PAUSED);
	});
});

describe("the action node's pause command (applyPauseCommand)", () => {
	const command = (fields: IDataObject) =>
		JSON.stringify({ chat: ADA, pause: true, at: T, ...fields });

	test('with the option off: not applied, and why', () => {
		const t = trigger({});
		const state: WebhookState = {};
		expect(applyPauseCommand(t, state, command({}), T)).toEqual({
			applied: false,
			reason: 'Pause When a Person Replies is off in this trigger',
		});
		expect(pausesInStaticData(state)).toEqual({});
	});

	test('a body that is not a pause command: not applied', () => {
		const t = trigger();
		for (const body of ['{', '{}', JSON.stringify({ chat: '', pause: true, at: T })])
			expect(applyPauseCommand(t, {}, body, T)).toEqual({
				applied: false,
				reason: 'not a pause command',
			});
	});

	test("a pause lasts the command's minutes, else the trigger's; 0 until resumed; a resume ends it", () => {
		const t = trigger({ settings: { minutes: 45 } });
		const state: WebhookState = {};
		expect(applyPauseCommand(t, state, command({ minutes: 10 }), T)).toEqual({ applied: true });
		expect(pausesInStaticData(state)[ADA]).toEqual({ at: T, until: T + 10 * MINUTE });
		applyPauseCommand(t, state, command({ at: T + 1 }), T + 1);
		expect(pausesInStaticData(state)[ADA]).toEqual({ at: T + 1, until: T + 1 + 45 * MINUTE });
		applyPauseCommand(t, state, command({ at: T + 2, minutes: 0 }), T + 2);
		expect(pausesInStaticData(state)[ADA]).toEqual({ at: T + 2, until: FOREVER });
		expect(applyChatPause(t, state, received(), SETTINGS, T + 365 * DAY)).toBe(PAUSED);
		applyPauseCommand(t, state, command({ at: T + 3, pause: false }), T + 3);
		expect(pausesInStaticData(state)[ADA]).toEqual({ at: T + 3, until: 0 });
		expect(applyChatPause(t, state, received(), SETTINGS, T + 3)).toBeUndefined();
	});

	test("a command's time is never later than now; an exact end (a trigger's own hand-off) is kept as given", () => {
		const t = trigger();
		const state: WebhookState = {};
		applyPauseCommand(t, state, command({ at: T + 60_000 }), T);
		expect(pausesInStaticData(state)[ADA]).toEqual({ at: T, until: T + 30 * MINUTE });
		applyPauseCommand(t, state, command({ at: T + 5, until: T + 7 * MINUTE }), T + 5);
		expect(pausesInStaticData(state)[ADA]).toEqual({ at: T + 5, until: T + 7 * MINUTE });
		applyPauseCommand(t, state, command({ at: T + 6, pause: true, until: 0 }), T + 6);
		expect(pausesInStaticData(state)[ADA]).toEqual({ at: T + 6, until: 0 });
	});
});

describe('the record in static data', () => {
	test('read back by another process as written: ended, until resumed, and a time', () => {
		const t = trigger();
		const state: WebhookState = {};
		applyPauseCommand(t, state, JSON.stringify({ chat: 'a@c.us', pause: false, at: T }), T);
		applyPauseCommand(
			t,
			state,
			JSON.stringify({ chat: 'b@c.us', pause: true, minutes: 0, at: T }),
			T,
		);
		applyPauseCommand(
			t,
			state,
			JSON.stringify({ chat: 'c@c.us', pause: true, minutes: 5, at: T }),
			T,
		);
		expect(pausesInStaticData(state)).toEqual({
			'a@c.us': { at: T, until: 0 },
			'b@c.us': { at: T, until: FOREVER },
			'c@c.us': { at: T, until: T + 5 * MINUTE },
		});
		// Another process (nothing in its memory) finds the same pauses in what n8n saved.
		const other = listener(t.getWorkflow().id!, undefined, 'Trigger in another process');
		const copy = structuredClone(state);
		const stops = (chatId: string) =>
			applyChatPause(other, copy, received({ chatId }), SETTINGS, T + MINUTE);
		expect([stops('a@c.us'), stops('b@c.us'), stops('c@c.us')]).toEqual([
			undefined,
			PAUSED,
			PAUSED,
		]);
	});

	test('kept under pauseRows and pausesRev, where earlier versions saved them', () => {
		const t = trigger();
		const state: WebhookState = {};
		applyChatPause(t, state, sent({}, iso(T)), SETTINGS, T);
		expect(Object.keys(state).sort()).toEqual(['pauseRows', 'pausesRev']);
	});

	test('a row whose time does not read back is skipped, the others kept', () => {
		const other = trigger();
		const at = T.toString(36);
		for (const rows of [`x@c.us zz! F;y@c.us ${at} F`, `x@c.us ${at} zz!;y@c.us ${at} F`]) {
			const state = { pauseRows: rows, pausesRev: `r-${rows}` } as unknown as WebhookState;
			const stops = (chatId: string) =>
				applyChatPause(other, state, received({ chatId }), SETTINGS, T);
			expect([stops('x@c.us'), stops('y@c.us')]).toEqual([undefined, PAUSED]);
		}
	});

	test('two copies of one chat: the newer word wins, whichever copy holds it', () => {
		const t = trigger();
		const state: WebhookState = {};
		applyChatPause(t, state, sent({}, iso(T)), SETTINGS, T);
		// Another process saw the keyword later and saved first; this one's copy is older.
		const other = listener(t.getWorkflow().id!, undefined, 'Trigger in another process');
		applyChatPause(other, state, sent({ text: '#bot' }, iso(T + MINUTE)), SETTINGS, T + MINUTE);
		expect(applyChatPause(t, state, received(), SETTINGS, T + MINUTE)).toBeUndefined();
		expect(pausesInStaticData(state)[ADA]).toEqual({ at: T + MINUTE, until: 0 });
	});

	test('an ended pause is kept a day after its word, then goes; one that has not ended is never dropped', () => {
		const t = trigger();
		const state: WebhookState = {};
		const pause = (chat: string, fields: IDataObject, now: number) =>
			applyPauseCommand(t, state, JSON.stringify({ chat, at: T, ...fields }), now);
		pause('ended@c.us', { pause: false }, T);
		pause('forever@c.us', { pause: true, minutes: 0 }, T);
		pause('long@c.us', { pause: true, minutes: 24 * 60 + 1 }, T);
		pause('day@c.us', { pause: true, minutes: 24 * 60 }, T);
		// A write a minute before the day is out keeps them all (expired rows are dropped at most once a minute).
		pause('other@c.us', { pause: true, at: T + DAY - MINUTE }, T + DAY - MINUTE);
		expect(Object.keys(pausesInStaticData(state)).sort()).toEqual(
			['day@c.us', 'ended@c.us', 'forever@c.us', 'long@c.us', 'other@c.us'].sort(),
		);
		// The first write at the day's end drops the two that ended: at its word, and at the day's end.
		pause('another@c.us', { pause: true, at: T + DAY }, T + DAY);
		expect(Object.keys(pausesInStaticData(state)).sort()).toEqual(
			['another@c.us', 'forever@c.us', 'long@c.us', 'other@c.us'].sort(),
		);
	});

	test("repair writes back what another process's save dropped", () => {
		const t = trigger();
		const state: WebhookState = {};
		applyChatPause(t, state, sent({}, iso(T)), SETTINGS, T);
		// Another process saved its own copy of static data, without this pause.
		const dropped: WebhookState = {};
		expect(repairPauses(t, dropped, T)).toBe(true);
		expect(pausesInStaticData(dropped)[ADA]).toEqual({ at: T, until: T + 30 * MINUTE });
		expect(repairPauses(t, dropped, T)).toBe(false);
	});
});
