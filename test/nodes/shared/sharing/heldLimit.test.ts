/**
 * At most HELD_LIMIT requests of a process wait for n8n's save (answerAfterSave.ts). A `wait` hand-off
 * that meets the account's capacity asks the oldest waits whether their runs still wait before it
 * refuses anything (receiveWaits.ts); other requests can fill the held answers meanwhile. Before
 * 2026-11-29 it went on to write and hold one more (docs/design/process-memory.md listed it): now it
 * is refused with OVERLOADED, and writes nothing of its batch. The pings are stood in for (they are
 * signed HTTP requests to n8n's resume paths); the held answers are the real counter, held by requests
 * whose save n8n has not made yet.
 */
import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { receiveWaits } from '../../../../nodes/shared/sharing/receiveWaits';
import {
	answerAfterSave,
	HELD_LIMIT,
	mayWrite,
	OVERLOADED,
} from '../../../../nodes/shared/answerAfterSave';
import { saveLimits } from '../../../../nodes/shared/n8n/staticDataSave';
import {
	liveWaits,
	recordWaits,
	WAIT_CAPACITY,
	type WaitEntry,
} from '../../../../nodes/shared/sendAndWait/waitingRuns';
import { sendHandoff } from '../../../../nodes/shared/sharedWebhook/peerClient';
import { deriveShareKey } from '../../../../nodes/shared/sharedWebhook/signedHandoff';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

jest.mock('../../../../nodes/shared/sharedWebhook/peerClient', () => ({
	sendHandoff: jest.fn(),
}));
const pings = sendHandoff as jest.MockedFunction<typeof sendHandoff>;

const KEY = deriveShareKey('sim-key-full');
const HOLDER_URL = 'https://n8n.example.com/webhook/abc/webhook';
const HOUR = 3_600_000;

/** A request to the holder: its static data flag stays "changed" until `saved()` (n8n's save). */
function request() {
	const staticData = { __dataChanged: true };
	const response = {
		headersSent: false,
		writableFinished: false,
		statusCode: 200,
		status: jest.fn().mockReturnThis(),
		setHeader: jest.fn(),
		json: jest.fn(),
		once: jest.fn(),
	};
	const context = {
		workflow: { staticData },
		getWorkflow: () => ({ id: 'wf-held' }),
		getNode: () => ({ name: 'Trigger' }),
		getMode: () => 'webhook',
		getWebhookResourceUrl: () => HOLDER_URL,
		getResponseObject: () => response,
		logger: { debug: jest.fn(), warn: jest.fn(), error: jest.fn(), info: jest.fn() },
	} as unknown as IWebhookFunctions;
	return { context, saved: () => (staticData.__dataChanged = false) };
}

function wait(i: number, since: number): WaitEntry {
	return {
		executionId: String(i),
		resumePath: `/webhook-waiting/${i}/node-1?signature=s${i}`,
		chat: `49176${String(i).padStart(8, '0')}@c.us`,
		channelId: 'num_main',
		since,
		until: since + 24 * HOUR,
		questionId: null,
	};
}

const limit = saveLimits.waitMs;
afterEach(() => (saveLimits.waitMs = limit));

test(`a wait hand-off at capacity is refused once ${HELD_LIMIT} requests came to wait for their save while it asked the oldest waits`, async () => {
	const now = Date.now();
	const holder = request();
	const state: WebhookState = { webhookUrl: HOLDER_URL };
	const full = Array.from({ length: WAIT_CAPACITY }, (_, i) => wait(i, now - 2 * HOUR));
	recordWaits(holder.context, state, full, now);
	expect(liveWaits(holder.context, state, now)).toHaveLength(WAIT_CAPACITY);

	// The oldest waits are asked; their answers come only once the held answers are full.
	let answerPings!: () => void;
	const asked = new Promise<void>((resolve) => (answerPings = resolve));
	pings.mockImplementation(async () => {
		await asked;
		return { kind: 'member', body: {} } as never;
	});
	const newcomer = wait(WAIT_CAPACITY + 1, now);
	const body = JSON.stringify({ waits: [newcomer], confirm: [], ends: [] });
	const answer = receiveWaits(holder.context, state, body, 'proof', KEY);

	saveLimits.waitMs = 60_000;
	const others = Array.from({ length: HELD_LIMIT }, () => request());
	for (const other of others) answerAfterSave(other.context, () => ({ status: 200, body: {} }));
	expect(mayWrite()).toBe(false);
	answerPings();

	expect(await answer).toEqual(OVERLOADED);
	expect(pings).toHaveBeenCalled();
	expect(liveWaits(holder.context, state, now).map((w) => w.executionId)).not.toContain(
		newcomer.executionId,
	);

	// n8n saves the others: their answers go out, and the process takes writes again.
	for (const other of others) other.saved();
	for (let i = 0; i < 200 && !mayWrite(); i++) await sleep(10);
	expect(mayWrite()).toBe(true);
});
