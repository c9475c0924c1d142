/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Queue mode with TWO webhook processes behind the balancer, which sends each request to the next
 * (issue 32; docs/design/account-state.md, "Two webhook processes"): deliveries, hand-offs between
 * the account's triggers and Send and Wait's records all reach either process, and each process
 * saves the workflow's whole static data (the last save wins). Three workflows share one account:
 *   - "ask" (published first: it holds the account's webhook): each contact's message starts a run
 *     that asks that contact with Send and Wait for Reply and waits, then asks a follow-up question
 *     (a second Send and Wait node, issue 41) and waits again; Pause When a Person Replies on;
 *   - "logger": every event;
 *   - "alerts": number.disconnected.
 * CONTACTS contacts write (their runs ask and wait, on the worker), a person writes from the phone
 * in one more chat (that chat is paused for "ask"), that chat's contact writes, numbers disconnect,
 * then every contact answers in rounds of ROUND, each round with a person pausing a chat of its own
 * amid the answers' saves (checked once each process has served a request), and answers the
 * follow-up. Lost 0: every run resumes with its own contact's answer at each question, every event
 * runs in each workflow that selects it; run twice 0; no paused chat starts anything in "ask".
 *
 * The second test builds, step by step, the one race that Send and Wait's confirm is for: the save
 * that recorded a wait is overwritten by the other process's save of an older copy, and the answer
 * comes at once, to that other process (heldSave.ts holds the first save in Postgres until the
 * second waits behind it; the balancer is steered through HAProxy's runtime API).
 */
import type { IDataObject } from 'n8n-workflow';

import { receivedIn, sample, sentIn } from '../../fixtures/events';
import { N8nClient } from '../../support/n8nClient';
import { report } from '../../support/report';
import { SimClient } from '../../support/simClient';
import {
	balancerRoutesTo,
	deployment,
	enqueuedBy,
	executions,
	readLog,
	sql,
	type ExecutionRow,
} from '../../support/stack/queue/running';
import { holdSaves } from './heldSave';
import { waitUntil } from '../../support/waitUntil';
import {
	createWorkflow,
	NODE_TYPES,
	relayCredential,
	triggerWorkflowData,
} from '../../support/workflows';
import { inParallel } from '../../support/inParallel';
import { deliver, postEvent } from '../../support/deliver';

const info = deployment();
const ACCOUNT = 'acct_two_webhooks';
const CONTACTS = Number(process.env.TWO_WEBHOOKS_CONTACTS ?? 30);
/** Deliveries in flight at once. */
const CONCURRENCY = 6;
/** Answers per round of step 4 (each round with a pause of its own). */
const ROUND = 6;
const QUESTION = 'Your order is ready: when shall we deliver it?';
const FOLLOW_UP = 'And at what time?';

const simulator = new SimClient(info.simUrl);
const mainApi = new N8nClient(info.mainUrl, { apiKey: info.apiKey });

const chatOf = (i: number) => `4917640${String(i).padStart(6, '0')}@c.us`;
const answerOf = (chat: string) => `answer from ${chat}`;
const secondAnswerOf = (chat: string) => `time from ${chat}`;
const contacts = Array.from({ length: CONTACTS }, (_, i) => chatOf(i + 1));
const PAUSED_CHAT = chatOf(900);

let deliveryNumber = 0;
/** Each event carries its own `deliveryId` (qd-N): the executions' data names the event they ran. */
function tagged<T extends object>(event: T): T & { deliveryId: string } {
	return { ...event, deliveryId: `qd-${++deliveryNumber}` };
}

const deliverToAccount = (event: object) => deliver(simulator, event, { account: ACCOUNT });

/**
 * A number.disconnected posted as the service does (its secret) straight to one webhook process, past the balancer:
 * a request that starts no run in "ask", after which that process has repaired what another
 * process's save dropped (accountTable.ts `repair`).
 */
async function deliverPastTheBalancer(port: number) {
	const event = tagged(sample('number.disconnected') as IDataObject);
	expect((await postPastTheBalancer(port, event)).status).toBe(200);
	return event;
}

/** An event posted as the service does (its secret) straight to one webhook process; its answer. */
async function postPastTheBalancer(port: number, event: object) {
	const hook = (await simulator.webhooks())[ACCOUNT];
	if (!hook) throw new Error(`no webhook registered for ${ACCOUNT}`);
	const url = new URL(hook.url);
	url.host = `127.0.0.1:${port}`;
	return await postEvent(url.toString(), JSON.stringify(event), { secret: hook.secret });
}

/**
 * "ask": the trigger (Pause When a Person Replies on) asks each contact with Send and Wait for Reply,
 * then each follow-up in turn; `nodes` gives the trigger's webhook id and the first node's, then
 * each follow-up's webhook id and question.
 */
function askWorkflowData(
	credential: Parameters<typeof triggerWorkflowData>[0]['credential'],
	name: string,
	[[triggerId, askId], ...followUps]: [[string, string], ...Array<[string, string]>],
) {
	const data = triggerWorkflowData({
		name,
		credential,
		webhookId: triggerId,
		events: ['message.received'],
		options: {
			pauseWhenPersonReplies: { settings: { minutes: 30, keyword: '#bot', apiOrigins: 'api' } },
		},
		typeVersion: 3,
	});
	// "To" left empty: the chat of the trigger item, the same contact.
	const asks: Array<[string, string, string]> = [
		['Ask', askId, QUESTION],
		...followUps.map(([id, question], i): [string, string, string] => [
			i === 0 ? 'Ask again' : `Ask again ${i + 1}`,
			id,
			question,
		]),
	];
	let previous = 'Relay Trigger';
	asks.forEach(([nodeName, webhookId, message], i) => {
		data.nodes.push({
			id: nodeName.toLowerCase().replace(/ /g, '-'),
			name: nodeName,
			type: NODE_TYPES.action,
			typeVersion: 1,
			position: [240 * (i + 1), 0],
			webhookId,
			parameters: {
				resource: 'message',
				operation: 'sendAndWait',
				message,
				responseType: 'freeText',
			},
			credentials: { messagingRelayApi: credential },
		});
		data.connections[previous] = { main: [[{ node: nodeName, type: 'main', index: 0 }]] };
		previous = nodeName;
	});
	return data;
}

/** Delivery ids run more than once by one workflow. */
function ranTwice(rows: ExecutionRow[]): string[] {
	const seen = new Map<string, number>();
	for (const row of rows)
		if (row.deliveryId) seen.set(row.deliveryId, (seen.get(row.deliveryId) ?? 0) + 1);
	return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}

/** The contact whose answer to the first question an execution's data holds, if any. */
function answerIn(executionId: string): string | null {
	const [row] = sql(
		`select substring(data from 'answer from ([0-9]+@c.us)') from execution_data where "executionId" = ${Number(executionId)}`,
	);
	return row?.[0] ? row[0] : null;
}

/**
 * What the webhook processes logged about lost saves (at debug level, globalSetup.ts): a table's
 * rows that this process wrote missing from the static data a later request loaded (accountTable.ts,
 * then written again), and waits a Send and Wait's confirm did not find (receiveWaits.ts, written
 * again). The run must meet some: otherwise it did not test the defences against them.
 */
function lostSaves() {
	const logs = ['webhook', 'webhook2'].map((name) => readLog(name)).join('\n');
	const count = (pattern: RegExp) =>
		[...logs.matchAll(pattern)].reduce((n, m) => n + Number(m[1] ?? 1), 0);
	return {
		tableRowsMissing: count(/Messaging Relay: static data this request loaded lacks/g),
		waitsNotConfirmed: count(
			/Messaging Relay Trigger: (\d+) recorded wait\(s\) were not in the static data/g,
		),
	};
}

/** The contact whose answer to the follow-up question an execution's data holds, if any. */
function secondAnswerIn(executionId: string): string | null {
	const [row] = sql(
		`select substring(data from 'time from ([0-9]+@c.us)') from execution_data where "executionId" = ${Number(executionId)}`,
	);
	return row?.[0] ? row[0] : null;
}

test(`two webhook processes, three workflows on one account: ${CONTACTS} runs waiting resume each with its own answer, every event runs once in each workflow that selects it, a paused chat starts nothing`, async () => {
	const credential = await relayCredential(mainApi, 'two webhook processes account', {
		baseUrl: info.simUrl,
		apiKey: 'sim-key-two-webhooks',
	});
	const askData = askWorkflowData(credential, 'two webhooks: ask', [
		['7b8c9d0e-0a01-4e5f-8a9b-7c6d5e4f3301', '7b8c9d0e-0a01-4e5f-8a9b-7c6d5e4f3302'],
		['7b8c9d0e-0a01-4e5f-8a9b-7c6d5e4f3305', FOLLOW_UP],
	]);
	const ask = await createWorkflow(mainApi, askData);
	const logger = await createWorkflow(
		mainApi,
		triggerWorkflowData({
			name: 'two webhooks: logger',
			credential,
			webhookId: '7b8c9d0e-0a01-4e5f-8a9b-7c6d5e4f3303',
			events: ['*'],
		}),
	);
	const alerts = await createWorkflow(
		mainApi,
		triggerWorkflowData({
			name: 'two webhooks: alerts',
			credential,
			webhookId: '7b8c9d0e-0a01-4e5f-8a9b-7c6d5e4f3304',
			events: ['number.disconnected'],
		}),
	);
	for (const id of [ask, logger, alerts]) await mainApi.api('POST', `/workflows/${id}/activate`);
	const started = Date.now();
	/** Until `asked` follow-up questions went out and every run waits again (nothing in flight). */
	const followUpsWaiting = (asked: number) =>
		waitUntil(
			`${asked} follow-up questions asked, every run waiting`,
			async () =>
				(await simulator.requests(started)).filter(
					(r) =>
						r.path === '/v1/messages' &&
						r.account === ACCOUNT &&
						(r.body as { text?: unknown } | undefined)?.text === FOLLOW_UP,
				).length >= asked &&
				executions([ask]).filter((r) => r.status === 'waiting').length >= CONTACTS
					? true
					: undefined,
			{ timeoutMs: 300_000, intervalMs: 250 },
		);

	try {
		// 1. Every contact writes: each message starts an "ask" run that asks that contact and waits.
		const firsts = contacts.map((chat) =>
			tagged(receivedIn(chat, { text: `Hi, this is ${chat}` })),
		);
		const firstAnswers = await inParallel(firsts, CONCURRENCY, deliverToAccount);
		expect(firstAnswers.filter((a) => a.status !== 200)).toEqual([]);
		await waitUntil(
			`${CONTACTS} runs waiting`,
			() =>
				executions([ask]).filter((r) => r.status === 'waiting').length >= CONTACTS
					? true
					: undefined,
			{
				timeoutMs: 300_000,
				intervalMs: 1_000,
			},
		);
		const askedAt = Date.now();

		// 2. A person writes from the phone in another chat: "ask" pauses it; its contact's message then starts nothing there.
		const person = tagged(sentIn(PAUSED_CHAT, 'phone', 'I will take this one'));
		expect((await deliverToAccount(person)).status).toBe(200);
		const pausedContact = tagged(receivedIn(PAUSED_CHAT, { text: 'hello, anyone?' }));
		expect((await deliverToAccount(pausedContact)).status).toBe(200);

		// 3. Numbers disconnect.
		const disconnects = [1, 2, 3].map(() => tagged(sample('number.disconnected') as IDataObject));
		for (const event of disconnects) expect((await deliverToAccount(event)).status).toBe(200);

		// 4. Every contact answers in their own chat, in rounds; each run then asks again and waits
		//    again. In each round a person also writes from the phone in a chat of its own while the
		//    answers' saves overlap: "ask" pauses that chat, and a save of the other process can drop
		//    the pause. No other pause is written in the round, so only the repair of the process that
		//    wrote it brings it back (the no-repair variant fails here: scripts/variants.mjs). Once the
		//    round's follow-ups wait (nothing in flight), one event reaches each process past the
		//    balancer (each repairs), then the paused chat's contact writes: it must start nothing.
		const roundPauses: Array<IDataObject & { deliveryId: string }> = [];
		const roundPausedContacts: typeof roundPauses = [];
		for (let from = 0; from < CONTACTS; from += ROUND) {
			const round = contacts
				.slice(from, from + ROUND)
				.map((chat) => tagged(receivedIn(chat, { text: answerOf(chat) }) as IDataObject));
			const pausedChat = chatOf(901 + from / ROUND);
			const person = tagged(sentIn(pausedChat, 'phone', 'I will take this one') as IDataObject);
			roundPauses.push(person);
			const half = Math.ceil(round.length / 2);
			const sent = [...round.slice(0, half), person, ...round.slice(half)];
			const results = await inParallel(sent, CONCURRENCY + 1, deliverToAccount);
			expect(results.filter((a) => a.status !== 200)).toEqual([]);
			await followUpsWaiting(from + round.length);
			for (const port of [info.ports.webhookProcess, info.ports.webhookProcess2])
				disconnects.push(await deliverPastTheBalancer(port));
			const contact = tagged(receivedIn(pausedChat, { text: 'hello, anyone?' }) as IDataObject);
			roundPausedContacts.push(contact);
			expect((await deliverToAccount(contact)).status).toBe(200);
		}

		// 5. Every contact answers the follow-up.
		const seconds = contacts.map((chat) =>
			tagged(receivedIn(chat, { text: secondAnswerOf(chat) })),
		);
		const secondResults = await inParallel(seconds, CONCURRENCY, deliverToAccount);
		expect(secondResults.filter((a) => a.status !== 200)).toEqual([]);

		const expected = {
			ask: CONTACTS,
			logger: CONTACTS + 2 + disconnects.length + roundPauses.length + roundPausedContacts.length,
			alerts: disconnects.length,
		};
		await waitUntil(
			'every run to end',
			() => {
				const rows = executions([ask, logger, alerts]);
				const done = (id: string, n: number) =>
					rows.filter((r) => r.workflowId === id && r.status === 'success').length >= n;
				return done(ask, expected.ask) &&
					done(logger, expected.logger) &&
					done(alerts, expected.alerts)
					? true
					: undefined;
			},
			{ timeoutMs: 300_000, intervalMs: 1_000 },
		).catch(() => undefined);

		const rows = executions([ask, logger, alerts]);
		const of = (id: string) => rows.filter((r) => r.workflowId === id);
		const askRuns = of(ask);
		const wrongAnswer = askRuns.filter((r) => {
			const first = firsts.find((f) => f.deliveryId === r.deliveryId);
			const chat = first?.message.chatId;
			return !chat || answerIn(r.id) !== chat || secondAnswerIn(r.id) !== chat;
		});
		const loggerIds = new Set(of(logger).map((r) => r.deliveryId));
		const loggerExpected = [
			...[...firsts, person, pausedContact, ...disconnects],
			...[...roundPauses, ...roundPausedContacts],
		].map((e) => e.deliveryId);
		const alertIds = new Set(of(alerts).map((r) => r.deliveryId));
		const figures = {
			contacts: CONTACTS,
			runsByWorkflow: { ask: askRuns.length, logger: of(logger).length, alerts: of(alerts).length },
			expected,
			notSucceeded: rows
				.filter((r) => r.status !== 'success')
				.map((r) => ({ id: r.id, status: r.status, problem: r.problem })),
			askWithoutItsOwnAnswer: wrongAnswer.map((r) => r.id),
			lostInLogger: loggerExpected.filter((id) => !loggerIds.has(id)),
			lostInAlerts: disconnects.map((e) => e.deliveryId).filter((id) => !alertIds.has(id)),
			pausedChatsThatStartedARun: roundPausedContacts
				.filter((c) => askRuns.some((r) => r.deliveryId === c.deliveryId))
				.map((c) => (c as { message?: { chatId?: string } }).message?.chatId),
			ranTwice: {
				ask: ranTwice(askRuns),
				logger: ranTwice(of(logger)),
				alerts: ranTwice(of(alerts)),
			},
			enqueuedByProcess: {
				webhook: enqueuedBy('webhook').length,
				webhook2: enqueuedBy('webhook2').length,
			},
			lostSaves: lostSaves(),
			answersTookMs: Date.now() - askedAt,
			totalMs: Date.now() - started,
		};
		report('two webhook processes', figures);

		// Both webhook processes took part (each enqueued runs), and the run met lost saves.
		expect(figures.enqueuedByProcess.webhook).toBeGreaterThan(0);
		expect(
			figures.lostSaves.tableRowsMissing + figures.lostSaves.waitsNotConfirmed,
		).toBeGreaterThan(0);
		expect(figures.enqueuedByProcess.webhook2).toBeGreaterThan(0);
		// Lost 0, run twice 0.
		expect(figures.notSucceeded).toEqual([]);
		expect(askRuns).toHaveLength(CONTACTS);
		expect(figures.askWithoutItsOwnAnswer).toEqual([]);
		expect(askRuns.map((r) => r.deliveryId)).not.toContain(pausedContact.deliveryId);
		expect(figures.pausedChatsThatStartedARun).toEqual([]);
		expect(figures.lostInLogger).toEqual([]);
		expect(figures.lostInAlerts).toEqual([]);
		expect(figures.ranTwice).toEqual({ ask: [], logger: [], alerts: [] });
		// The answers went to the waiting runs, not to the triggers as new messages.
		expect(of(logger)).toHaveLength(expected.logger);
		expect(of(alerts)).toHaveLength(expected.alerts);
		// Every question was asked once: the first and the follow-up, to each contact.
		const questions = (await simulator.requests(started)).filter(
			(r) => r.path === '/v1/messages' && r.account === ACCOUNT,
		);
		expect(questions).toHaveLength(2 * CONTACTS);
	} finally {
		for (const id of [ask, logger, alerts])
			await mainApi.api('POST', `/workflows/${id}/deactivate`).catch(() => undefined);
	}
});

test('an answer that comes at once, to the process whose stale save dropped the wait, resumes the run: Send and Wait asks only once its wait is in the database', async () => {
	const credential = await relayCredential(mainApi, 'two webhook processes, answer at once', {
		baseUrl: info.simUrl,
		apiKey: 'sim-key-two-webhooks',
	});
	const askData = askWorkflowData(credential, 'two webhooks: ask, answered at once', [
		['7b8c9d0e-0a01-4e5f-8a9b-7c6d5e4f3311', '7b8c9d0e-0a01-4e5f-8a9b-7c6d5e4f3312'],
	]);
	const ask = await createWorkflow(mainApi, askData);
	await mainApi.api('POST', `/workflows/${ask}/activate`);
	const chat = chatOf(950);
	const personChat = chatOf(951);
	const second = info.ports.webhookProcess2;
	// A save that first writes the wait of `chat` waits in Postgres until `release`.
	const saves = await holdSaves(ask, chat);
	const askedSince = Date.now();
	try {
		// 1. Requests go to the first process only. The contact writes: the run starts there, and
		//    Send and Wait's record of its wait reaches it; that save is held.
		await balancerRoutesTo(['webhook']);
		const hello = tagged(receivedIn(chat, { text: `Hi, this is ${chat}` }));
		// Answered once the run waits (Acknowledge Events' default), so after the held save.
		const helloAnswer = deliverToAccount(hello);
		await saves.held();
		// 2. The second process, which has not seen the wait, writes a pause from the static data it
		//    loaded now: its save waits behind the held one, and will overwrite it.
		const person = postPastTheBalancer(
			second,
			tagged(sentIn(personChat, 'phone', 'I will take this one') as IDataObject),
		);
		await saves.queuedBehind();
		// 3. Requests go to the second process only; the held save lands, then the stale one.
		await balancerRoutesTo(['webhook2']);
		saves.release();
		expect((await person).status).toBe(200);
		expect((await helloAnswer).status).toBe(200);
		// 4. As soon as the question is out, the contact answers, and the answer reaches the
		//    process whose save dropped the wait.
		const question = await waitUntil(
			'the question to be asked',
			async () =>
				(await simulator.requests(askedSince)).find(
					(r) =>
						r.path === '/v1/messages' &&
						r.account === ACCOUNT &&
						(r.body as { text?: unknown } | undefined)?.text === QUESTION &&
						JSON.stringify(r.body).includes(chat.split('@')[0]),
				),
			{ timeoutMs: 60_000, intervalMs: 20 },
		);
		const answer = tagged(receivedIn(chat, { text: answerOf(chat) }) as IDataObject);
		const answeredAfterMs = Date.now() - question.at;
		expect((await postPastTheBalancer(second, answer)).status).toBe(200);
		await balancerRoutesTo(['webhook', 'webhook2']);

		await waitUntil(
			'the run to end',
			() => (executions([ask]).some((r) => r.status === 'success') ? true : undefined),
			{ timeoutMs: 30_000, intervalMs: 500 },
		).catch(() => undefined);
		const runs = executions([ask]);
		const history = saves.history();
		const figures = {
			savesOfTheWorkflow: history,
			answeredAfterMs,
			runs: runs.map((r) => ({ id: r.id, status: r.status, deliveryId: r.deliveryId })),
			answerIn: runs.map((r) => answerIn(r.id)),
		};
		report('an answer at once', figures);
		// The race happened: a save carried the wait, and the next save, of the older copy, lacked it.
		const dropped = history.findIndex(
			(save, i) => i > 0 && !save.hasWait && history[i - 1].hasWait,
		);
		expect(dropped).toBeGreaterThan(0);
		// One run: it resumed with the answer; the answer started nothing of its own.
		expect(runs.map((r) => [r.deliveryId, r.status])).toEqual([[hello.deliveryId, 'success']]);
		expect(answerIn(runs[0].id)).toBe(chat);
	} finally {
		saves.release();
		await saves.remove();
		await balancerRoutesTo(['webhook', 'webhook2']).catch(() => undefined);
		await mainApi.api('POST', `/workflows/${ask}/deactivate`).catch(() => undefined);
	}
});
