/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * One campaign in the real n8n (issue 41): N runs started by n8n's Webhook node, `concurrency` at a
 * time, each asking its own contact; once every run waits, every contact answers, `concurrency`
 * at a time, through a sender that delivers again on anything but a 2xx (as the service does).
 * Reported: the rate of starts and of answers per block of N/10, n8n's CPU, disk writes and
 * memory per phase, the lock time-outs in n8n's log, and how each run ended.
 */
import { readFileSync } from 'node:fs';

import type { IDataObject } from 'n8n-workflow';

import { receivedIn } from '../../fixtures/events';
import { deliverWithRetries } from '../../fixtures/retrying-sender';
import { inParallel } from '../inParallel';
import type { N8nClient } from '../n8nClient';
import { cpuMs, memoryMb } from '../stack/processes';
import type { SimClient } from '../simClient';
import { sleep } from '../waitUntil';
import { QUESTION, startPath, type CampaignKind } from './campaignWorkflows';

export interface CampaignTarget {
	client: N8nClient;
	n8nUrl: string;
	/** n8n's process id now (a restart changes it). */
	n8nPid: () => number;
	logFile: string;
	simulator: SimClient;
	/** The simulator account whose webhook the relay campaign's answers go to. */
	account: string;
}

export interface BlockRate {
	/** Runs in the block (N/10), and the rate at which they were answered, per second. */
	size: number;
	perSecond: number;
}

export interface PhaseCost {
	ms: number;
	cpuMs: number;
	writtenBytes: number;
	rssMbAfter: number;
}

export interface CampaignResult {
	kind: CampaignKind;
	size: number;
	concurrency: number;
	starts: BlockRate[];
	answers: BlockRate[];
	startPhase: PhaseCost;
	/** From the first answer sent to the last run ended. */
	answerPhase: PhaseCost;
	totalMs: number;
	/** Starts and answers that got no 2xx in the end. */
	startsRefused: number;
	answersRefused: number;
	/** Answers delivered more than once (the receiver asked for it again: 503, or dropped). */
	answersRedelivered: number;
	/** Executions of the campaign workflow by status, once settled. */
	statuses: Record<string, number>;
	/** Runs that resumed with their own contact's answer, once. */
	resumedOwnAnswer: number;
	/** n8n's log lines of SQLite's writer lock time-out during the campaign. */
	lockTimeouts: number;
}

const chatOf = (kind: CampaignKind, i: number) =>
	`49${kind === 'relay' ? '1763' : '1764'}${String(i).padStart(7, '0')}@c.us`;
export const answerOf = (chat: string) => `answer from ${chat}`;

/** Bytes this process has caused to be written to storage so far (/proc/<pid>/io write_bytes). */
function writtenBytes(pid: number): number {
	try {
		return Number(/write_bytes:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
	} catch {
		return 0;
	}
}

function logLength(file: string): number {
	try {
		return readFileSync(file).length;
	} catch {
		return 0;
	}
}

const LOCK_TIMEOUT = /Timeout waiting for lock|SqliteWriteConnectionMutex/g;

/** Rates per block of N/10, in the order the answers came back. */
export function blockRates(doneAt: number[], startedAt: number): BlockRate[] {
	const sorted = [...doneAt].sort((a, b) => a - b);
	const size = Math.max(1, Math.floor(sorted.length / 10));
	const blocks: BlockRate[] = [];
	let previous = startedAt;
	for (let from = 0; from + size <= sorted.length; from += size) {
		const last = sorted[from + size - 1];
		blocks.push({
			size,
			perSecond: Math.round((size / Math.max(1, last - previous)) * 10_000) / 10,
		});
		previous = last;
	}
	return blocks;
}

async function countWith(client: N8nClient, workflowId: string, status: string[]): Promise<number> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId, status }));
	const { status: code, body } = await client.rest('GET', `/executions?filter=${filter}&limit=1`);
	if (code !== 200) throw new Error(`GET /rest/executions → ${code}`);
	return Number((body.data as IDataObject).count);
}

/** Every execution of the workflow with its data, page by page (the public API, 250 a page). */
async function executionsOf(client: N8nClient, workflowId: string): Promise<IDataObject[]> {
	const all: IDataObject[] = [];
	let cursor: string | undefined;
	do {
		const page = await client.api(
			'GET',
			`/executions?workflowId=${workflowId}&includeData=true&limit=250${cursor ? `&cursor=${cursor}` : ''}`,
		);
		all.push(...((page.data as IDataObject[]) ?? []));
		cursor = (page.nextCursor as string | null | undefined) ?? undefined;
	} while (cursor);
	return all;
}

/** The output of a node's last run (a resumed node's output is its run after the wait). */
function lastRunOutput(execution: IDataObject, node: string): IDataObject | undefined {
	const runData = (
		(execution.data as IDataObject | undefined)?.resultData as IDataObject | undefined
	)?.runData as
		| Record<string, Array<{ data?: { main: Array<Array<{ json: IDataObject }>> } }>>
		| undefined;
	const runs = runData?.[node] ?? [];
	return runs[runs.length - 1]?.data?.main[0]?.[0]?.json;
}

function startItem(execution: IDataObject): IDataObject | undefined {
	const runData = (
		(execution.data as IDataObject | undefined)?.resultData as IDataObject | undefined
	)?.runData as
		| Record<string, Array<{ data?: { main: Array<Array<{ json: IDataObject }>> } }>>
		| undefined;
	return runData?.Start?.[0]?.data?.main[0]?.[0]?.json;
}

export interface CampaignOptions {
	kind: CampaignKind;
	workflowId: string;
	size: number;
	concurrency: number;
	/** How long the runs may take to end once every answer was acknowledged. */
	settleMs?: number;
	say?: (line: string) => void;
	/** Between the questions and the answers (an n8n restart: every answer is then routed from what n8n saved). */
	beforeAnswers?: () => Promise<void>;
}

export async function runCampaign(
	target: CampaignTarget,
	{
		kind,
		workflowId,
		size,
		concurrency,
		settleMs = 300_000,
		say = () => undefined,
		beforeAnswers: betweenPhases,
	}: CampaignOptions,
): Promise<CampaignResult> {
	const { client } = target;
	const contacts = Array.from({ length: size }, (_, i) => chatOf(kind, i + 1));
	const logBefore = logLength(target.logFile);
	const cost = () => ({
		at: Date.now(),
		cpu: cpuMs(target.n8nPid()),
		written: writtenBytes(target.n8nPid()),
	});
	const phase = (from: ReturnType<typeof cost>): PhaseCost => {
		const to = cost();
		return {
			ms: to.at - from.at,
			cpuMs: to.cpu - from.cpu,
			writtenBytes: to.written - from.written,
			rssMbAfter: memoryMb(target.n8nPid()).rssMb,
		};
	};

	// Starts: the Webhook node answers once the run has started; a run has started the campaign
	// when its question reached the service, and is ready for the answer once n8n says it waits.
	const startUrl = `${target.n8nUrl}/webhook/${startPath(kind)}`;
	const since = Date.now();
	const beforeStarts = cost();
	let startsRefused = 0;
	await inParallel(contacts, concurrency, async (chat) => {
		const result = await deliverWithRetries(startUrl, JSON.stringify({ chat }), '', {
			deadlineMs: 600_000,
		});
		if (result.status === null || result.status >= 300) startsRefused++;
	});
	say(`${kind}: ${size} starts answered in ${Math.round((Date.now() - since) / 1000)} s`);
	const asked = await questionsAsked(target, kind, contacts, since, settleMs, say);
	await untilWaiting(client, workflowId, size - startsRefused, settleMs, say, kind);
	const startPhase = phase(beforeStarts);
	const startDone = [...asked.values()].map((q) => q.at);
	if (betweenPhases) {
		await betweenPhases();
		await untilWaiting(client, workflowId, size - startsRefused, settleMs, say, kind);
	}

	// Answers: the relay campaign's go to the account's webhook as the service delivers them; the
	// Wait node's to each run's resume URL, read from the message its run sent.
	const deliveries = answerTargets(target, kind, asked, await target.simulator.webhooks());
	const beforeAnswers = cost();
	const answerDone: number[] = [];
	let answersRefused = 0;
	let answersRedelivered = 0;
	let progress = 0;
	const answeredAt = Date.now();
	await inParallel(contacts, concurrency, async (chat) => {
		const { url, body, secret } = deliveries(chat);
		const result = await deliverWithRetries(url, body, secret, { deadlineMs: 600_000 });
		if (result.status === null || result.status >= 300) answersRefused++;
		if (result.attempts.length > 1) answersRedelivered++;
		answerDone.push(Date.now());
		if (++progress % Math.max(1, Math.floor(size / 10)) === 0)
			say(`${kind}: ${progress} answered, ${Math.round((Date.now() - answeredAt) / 1000)} s`);
	});

	// Settled: every run ended, or nothing running and the same count twice.
	const settleBy = Date.now() + settleMs;
	let lastEnded = -1;
	for (;;) {
		const ended = await countWith(client, workflowId, ['success', 'error', 'crashed', 'canceled']);
		const running = await countWith(client, workflowId, ['new', 'running']);
		if (ended >= size || (running === 0 && ended === lastEnded) || Date.now() > settleBy) break;
		lastEnded = ended;
		await sleep(1_000);
	}
	const answerPhase = phase(beforeAnswers);
	const totalMs = Date.now() - since;

	const statuses: Record<string, number> = {};
	let resumedOwnAnswer = 0;
	const seen = new Map<string, number>();
	for (const execution of await executionsOf(client, workflowId)) {
		const status = String(execution.status);
		statuses[status] = (statuses[status] ?? 0) + 1;
		const chat = String((startItem(execution)?.body as IDataObject | undefined)?.chat ?? '');
		seen.set(chat, (seen.get(chat) ?? 0) + 1);
		const out = lastRunOutput(execution, kind === 'relay' ? 'Ask' : 'Wait');
		const text = kind === 'relay' ? out?.text : (out?.body as IDataObject | undefined)?.text;
		if (status === 'success' && text === answerOf(chat)) resumedOwnAnswer++;
	}
	// The list leaves running runs out: count them too.
	for (const status of ['running', 'new', 'waiting'])
		if (statuses[status] === undefined) {
			const n = await countWith(client, workflowId, [status]);
			if (n > 0) statuses[status] = n;
		}
	const log = readFileSync(target.logFile).subarray(logBefore).toString('utf8');
	return {
		kind,
		size,
		concurrency,
		starts: blockRates(startDone, since),
		answers: blockRates(answerDone, answeredAt),
		startPhase,
		answerPhase,
		totalMs,
		startsRefused,
		answersRefused,
		answersRedelivered,
		statuses,
		resumedOwnAnswer,
		lockTimeouts: (log.match(LOCK_TIMEOUT) ?? []).length,
	};
}

/** The question each run sent (the Wait node's carries its resume URL), and when the service got it. */
async function questionsAsked(
	target: CampaignTarget,
	kind: CampaignKind,
	contacts: string[],
	since: number,
	timeoutMs: number,
	say: (line: string) => void,
): Promise<Map<string, { at: number; text: string }>> {
	const wanted = new Set(contacts);
	const asked = new Map<string, { at: number; text: string }>();
	const by = Date.now() + timeoutMs;
	let from = since;
	while (asked.size < wanted.size && Date.now() < by) {
		const requests = await target.simulator.requests(from);
		for (const request of requests) {
			from = Math.max(from, request.at);
			const body = (request.body ?? {}) as IDataObject;
			const text = String(body.text);
			const question = kind === 'relay' ? text === QUESTION : text.includes('/webhook-waiting/');
			if (
				request.method === 'POST' &&
				request.path === '/v1/messages' &&
				question &&
				wanted.has(String(body.to))
			)
				if (!asked.has(String(body.to))) asked.set(String(body.to), { at: request.at, text });
		}
		if (asked.size < wanted.size) await sleep(2_000);
	}
	say(
		`${kind}: ${asked.size} of ${contacts.length} asked, ${Math.round((Date.now() - since) / 1000)} s`,
	);
	return asked;
}

async function untilWaiting(
	client: N8nClient,
	workflowId: string,
	expected: number,
	timeoutMs: number,
	say: (line: string) => void,
	kind: CampaignKind,
) {
	const by = Date.now() + timeoutMs;
	let waiting = 0;
	while (Date.now() < by) {
		waiting = await countWith(client, workflowId, ['waiting']);
		if (waiting >= expected) break;
		await sleep(1_000);
	}
	say(`${kind}: ${waiting} waiting`);
}

/** Where each contact's answer goes, and with which body and secret. */
function answerTargets(
	target: CampaignTarget,
	kind: CampaignKind,
	asked: Map<string, { text: string }>,
	webhooks: Record<string, { url: string; secret: string } | null>,
): (chat: string) => { url: string; body: string; secret: string } {
	if (kind === 'relay') {
		const webhook = webhooks[target.account];
		if (!webhook) throw new Error(`campaign: the account ${target.account} has no webhook`);
		return (chat) => ({
			url: webhook.url,
			secret: webhook.secret,
			body: JSON.stringify(receivedIn(chat, { text: answerOf(chat) })),
		});
	}
	return (chat) => {
		const question = asked.get(chat);
		// A run that never asked: its answer goes nowhere (counted as refused).
		const url = new URL(question?.text ?? `${target.n8nUrl}/webhook-waiting/none`);
		return {
			url: `${target.n8nUrl}${url.pathname}${url.search}`,
			secret: '',
			body: JSON.stringify({ text: answerOf(chat) }),
		};
	};
}
