/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * A business's volume (issue 32): one account, its published trigger workflow (the holder), and
 * MANY_WAITS runs (1,500 unless told) of it waiting at once, each with Message → Send and Wait for
 * Reply (no time limit) on its own contact. Each contact's message starts a run that asks that
 * contact; once every run waits, the holder must hold every wait (its static data), and each
 * contact's answer must resume its own run, exactly once, with that contact's text: no run left
 * waiting, no contact with a second run. n8n restarts between the questions and the answers, so
 * every answer is routed from what n8n saved, not from the trigger's memory. Reports the time to start the runs, the time to answer
 * them and the holder's static data at that many waits.
 *
 * n8n runs with lazy isolate acquisition for it, restarted before and after as soak.e2e.ts does
 * (the CI budget, docs/performance.md "The soak"; the runs use no expression). What it proves is
 * the package's; MANY_WAITS_AS_SHIPPED=1 runs it without the restarts.
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { waitsInStaticData } from '../../nodes/shared/sendAndWait/waitingRuns';
import type { WebhookState } from '../../nodes/shared/sharedWebhook/webhookState';
import { receivedIn } from '../fixtures/events';
import {
	allExecutions,
	api,
	eventually,
	type Execution,
	info,
	n8n,
	n8nMemoryMb,
	nodeItems,
	relayCredential,
	report,
	rest,
	restartN8n,
	simRequests,
	simulator,
} from '../support/e2e';
import { createWorkflow, NODE_TYPES, triggerWorkflowData } from '../support/workflows';
import { inParallel } from '../support/inParallel';
import { deliver } from '../support/deliver';

const ACCOUNT = 'acct_many_waits';
const RUNS = Number(process.env.MANY_WAITS ?? 1500);
/** Deliveries in flight at once, for the starts and for the answers. */
const CONCURRENCY = 12;
const QUESTION = 'Your order is ready: when shall we deliver it?';
const WEBHOOK_ID = '6a7b8c9d-0a01-4e5f-8a9b-7c6d5e4f3201';
/** The setting n8n runs with for this suite (n8n's @n8n/config, expression-engine.config.js:87). */
const LAZY = 'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE';
const lazy = process.env.MANY_WAITS_AS_SHIPPED !== '1' && info.n8nVersion.startsWith('2.');

/** Contact i's direct chat, and the answer only that contact gives. */
const chatOf = (i: number) => `4917630${String(i).padStart(6, '0')}@c.us`;
const answerOf = (chat: string) => `answer from ${chat}`;
const contacts = Array.from({ length: RUNS }, (_, i) => chatOf(i + 1));

let workflowId: string | undefined;

beforeAll(async () => {
	if (lazy) await restartN8n({ env: { [LAZY]: 'true' } });
}, 360_000);

afterAll(async () => {
	if (workflowId) await api('POST', `/workflows/${workflowId}/deactivate`).catch(() => undefined);
	if (lazy) await restartN8n({ env: { [LAZY]: undefined } });
}, 360_000);

/** The account's event, delivered by the simulator as the service does; the trigger's answer. */
async function deliverToAccount(event: unknown) {
	const { status, json } = await deliver(simulator, event, { account: ACCOUNT });
	return { status, body: json };
}

/** How many of the workflow's executions n8n has with these statuses: the editor's list, which counts them. */
async function countWith(...status: string[]): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId, status }));
	const { status: code, body } = await rest('GET', `/executions?filter=${filter}&limit=1`);
	if (code !== 200)
		throw new Error(`GET /rest/executions → ${code} ${JSON.stringify(body).slice(0, 200)}`);
	return Number((body.data as IDataObject).count);
}

/**
 * Resumed runs n8n has not finished yet, at most BACKLOG. The waiting node answers the holder
 * before n8n continues its run, so an answer's delivery returns while its run still has to run and
 * be saved: unbounded, the answers pile up runs in n8n faster than its one SQLite writer saves them
 * (in a first try on this 2-core machine, beside a benchmark, saves waited past n8n's 60-second
 * write lock and runs stayed "waiting": @n8n/db connection/db-connection-options.js:81).
 */
const BACKLOG = 24;
function backlogGate() {
	let unfinished = 0;
	let polling = true;
	const poller = (async () => {
		while (polling) {
			unfinished = await countWith('new', 'running');
			await sleep(250);
		}
	})();
	return {
		pass: async () => {
			while (unfinished >= BACKLOG) await sleep(50);
			unfinished++; // this answer's run, until the next poll sees it
		},
		stop: async () => {
			polling = false;
			await poller;
		},
	};
}

/** The items of a node's last run (a resumed node's output is its run after the wait). */
function lastRunItems(execution: Execution, nodeName: string): IDataObject[] {
	const runs = execution.data?.resultData.runData[nodeName] ?? [];
	return (runs[runs.length - 1]?.data?.main[0] ?? []).map((item) => item.json);
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

test(`${RUNS} runs waiting at once for their contacts' replies: each resumes once, with its own contact's answer`, async () => {
	const credential = await relayCredential(
		'Messaging Relay many-waits account',
		'sim-key-many-waits',
	);
	const holder = triggerWorkflowData({
		name: 'e2e: many waits',
		credential,
		webhookId: WEBHOOK_ID,
		events: ['message.received'],
		options: { chatType: 'direct' },
		typeVersion: 3,
	});
	holder.nodes.push({
		id: 'ask',
		name: 'Ask',
		type: NODE_TYPES.action,
		typeVersion: 1,
		position: [240, 0],
		webhookId: '6a7b8c9d-0a01-4e5f-8a9b-7c6d5e4f3202',
		// To left empty: the question goes to the trigger item's chat; no Limit Wait Time.
		parameters: {
			resource: 'message',
			operation: 'sendAndWait',
			message: QUESTION,
			responseType: 'freeText',
		},
		credentials: { messagingRelayApi: credential },
	});
	holder.connections['Relay Trigger'] = { main: [[{ node: 'Ask', type: 'main', index: 0 }]] };
	workflowId = await createWorkflow(n8n, holder);
	await api('POST', `/workflows/${workflowId}/activate`);
	const since = Date.now();
	const memoryStartMb = n8nMemoryMb();

	// Every contact writes; each message starts a run that asks that contact and waits. Version 3
	// answers the service when the run has begun to wait.
	const startedAt = Date.now();
	const starts = await inParallel(
		contacts,
		CONCURRENCY,
		async (chat) => await deliverToAccount(receivedIn(chat, { text: `Hi, this is ${chat}` })),
	);
	const startsAnsweredMs = Date.now() - startedAt;
	expect(starts.filter((s) => s.status !== 200)).toEqual([]);
	const waitingBefore = await eventually(async () => {
		const waiting = await countWith('waiting');
		return waiting >= RUNS ? waiting : undefined;
	}, 120_000);
	const startMs = Date.now() - startedAt;

	// What the holder holds right before the answers: its static data, as n8n saved it.
	const workflow = (await api('GET', `/workflows/${workflowId}`)) as {
		staticData?: Record<string, WebhookState> | null;
	};
	const staticDataBytes = Buffer.byteLength(JSON.stringify(workflow.staticData ?? {}));
	const waits = waitsInStaticData(Object.values(workflow.staticData ?? {})[0] ?? {});
	const liveWaits = Object.values(waits).filter((w) => !w.resumedBy && w.until > Date.now());
	const chatsHeld = new Set(liveWaits.map((w) => w.chat));
	const memoryWaitingMb = n8nMemoryMb();

	// n8n restarts while every run waits: the trigger's memory is gone, the waits are what n8n saved.
	const restartStarted = Date.now();
	await restartN8n();
	const restartMs = Date.now() - restartStarted;
	const waitingAfterRestart = await countWith('waiting');

	// Every contact answers in their own chat.
	const answeredAt = Date.now();
	const gate = backlogGate();
	const answers = await inParallel(contacts, CONCURRENCY, async (chat) => {
		await gate.pass();
		return await deliverToAccount(receivedIn(chat, { text: answerOf(chat) }));
	}).finally(gate.stop);
	const answersAnsweredMs = Date.now() - answeredAt;
	// Settled: every run succeeded, or none running and the count of successful ones the same twice
	// (the figures below then say what is missing).
	let lastSuccess = -1;
	const settled = await eventually(async () => {
		const success = await countWith('success');
		const done =
			success >= RUNS || (success === lastSuccess && (await countWith('new', 'running')) === 0);
		lastSuccess = success;
		return done ? true : undefined;
	}, 120_000).catch(() => false);
	const answerMs = Date.now() - answeredAt;

	// n8n's public list leaves out a run it still counts among its running ones, a moment after the
	// run was saved as ended (execution.service.js findManyAndCount, excludeRunning): until it has them all.
	const total = await countWith(
		'success',
		'error',
		'waiting',
		'running',
		'new',
		'canceled',
		'crashed',
	);
	const listAll = () => allExecutions(workflowId!);
	const runs = await eventually(async () => {
		const list = await listAll();
		return list.length >= total ? list : undefined;
	}, 60_000).catch(listAll);
	const staticDataBytesAfter = Buffer.byteLength(
		JSON.stringify(
			((await api('GET', `/workflows/${workflowId}`)) as { staticData?: unknown }).staticData ?? {},
		),
	);
	const runsByStatus: Record<string, number> = {};
	for (const run of runs) runsByStatus[run.status] = (runsByStatus[run.status] ?? 0) + 1;
	const runsByContact = new Map<string, Execution[]>();
	for (const run of runs) {
		const chat = String(nodeItems(run, 'Relay Trigger')[0]?.chatId);
		runsByContact.set(chat, [...(runsByContact.get(chat) ?? []), run]);
	}
	/** A run that ended with its own contact's answer as the Ask node's output. */
	const resumedWithOwnAnswer = (run: Execution, chat: string) => {
		const reply = lastRunItems(run, 'Ask')[0];
		return (
			run.status === 'success' &&
			reply?.answered === true &&
			reply.chatId === chat &&
			reply.text === answerOf(chat)
		);
	};
	const questions = (await simRequests(since)).filter(
		(r) =>
			r.method === 'POST' &&
			r.path === '/v1/messages' &&
			r.account === ACCOUNT &&
			r.body.text === QUESTION,
	);
	const questionsTo = new Map<string, number>();
	for (const question of questions)
		questionsTo.set(String(question.body.to), (questionsTo.get(String(question.body.to)) ?? 0) + 1);

	const figures = {
		settled,
		runsWaitingInN8n: waitingBefore,
		runsWaitingAfterRestart: waitingAfterRestart,
		waitsHeldAtOnce: liveWaits.length,
		contactsHeld: contacts.filter((chat) => chatsHeld.has(chat)).length,
		answersTakenByAWaitingRun: answers.filter(
			(a) => a.status === 200 && a.body.answered === 'a waiting run',
		).length,
		resumedWithOwnAnswer: contacts.filter((chat) =>
			(runsByContact.get(chat) ?? []).some((run) => resumedWithOwnAnswer(run, chat)),
		).length,
		stillWaiting: runs.filter((run) => run.status === 'waiting').length,
		contactsWithMoreThanOneRun: contacts.filter(
			(chat) => (runsByContact.get(chat)?.length ?? 0) > 1,
		).length,
		contactsAskedMoreThanOnce: contacts.filter((chat) => (questionsTo.get(chat) ?? 0) > 1).length,
		executions: runs.length,
	};
	/** What the trigger answered the service for the answers, tallied (a 200 that started a run instead is not "a waiting run"). */
	const answerOutcomes: Record<string, number> = {};
	for (const { status, body } of answers) {
		const outcome = `${status} ${String(body.answered ?? body.ignored ?? JSON.stringify(body).slice(0, 80))}`;
		answerOutcomes[outcome] = (answerOutcomes[outcome] ?? 0) + 1;
	}
	report('many-waits', {
		runs: RUNS,
		concurrency: CONCURRENCY,
		n8n: lazy ? `${LAZY}=true` : 'as shipped',
		startSeconds: seconds(startMs),
		startsAnsweredSeconds: seconds(startsAnsweredMs),
		restartSeconds: seconds(restartMs),
		runsStartedPerSecond: Math.round((RUNS / (startMs / 1000)) * 10) / 10,
		staticDataBytes,
		staticDataBytesPerWait: liveWaits.length
			? Math.round(staticDataBytes / liveWaits.length)
			: null,
		staticDataBytesAfterAnswers: staticDataBytesAfter,
		answerSeconds: seconds(answerMs),
		answersAnsweredSeconds: seconds(answersAnsweredMs),
		answersPerSecond: Math.round((RUNS / (answerMs / 1000)) * 10) / 10,
		n8nMemoryStartMb: memoryStartMb,
		n8nMemoryWaitingMb: memoryWaitingMb,
		n8nMemoryEndMb: n8nMemoryMb(),
		...figures,
		answerOutcomes,
		runsByStatus,
	});

	// All at once, so that a failure shows every figure.
	expect(figures).toEqual({
		settled: true,
		runsWaitingInN8n: RUNS,
		runsWaitingAfterRestart: RUNS,
		waitsHeldAtOnce: RUNS,
		contactsHeld: RUNS,
		answersTakenByAWaitingRun: RUNS,
		resumedWithOwnAnswer: RUNS,
		stillWaiting: 0,
		contactsWithMoreThanOneRun: 0,
		contactsAskedMoreThanOnce: 0,
		executions: RUNS,
	});
	// Every contact: one run, resumed with that contact's own answer.
	for (const chat of contacts) {
		const own = runsByContact.get(chat) ?? [];
		expect({
			chat,
			runs: own.length,
			resumedWithOwnAnswer: own.length === 1 && resumedWithOwnAnswer(own[0], chat),
		}).toEqual({ chat, runs: 1, resumedWithOwnAnswer: true });
	}
}, 900_000);
