/**
 * The one way the suites, the benchmark and `npm run deliver` list n8n's executions: its public
 * API, GET /api/v1/executions (n8n 2.41.1, public-api/v1/controllers/executions.public.controller.js:64-95),
 * newest first, at most 250 a page, a cursor to the next. It leaves running executions out unless
 * `status: 'running'` is asked for (excludeRunning, :78).
 */
import type { IDataObject } from 'n8n-workflow';

import type { N8nClient } from './n8nClient';
import { waitUntil } from './waitUntil';

export interface Execution {
	id: string;
	status: string;
	finished: boolean;
	mode?: string;
	workflowId?: string;
	startedAt?: string | null;
	stoppedAt?: string | null;
	data?: {
		resultData: {
			runData: Record<string, Array<{ data?: { main: Array<Array<{ json: IDataObject }>> } }>>;
			error?: IDataObject;
			lastNodeExecuted?: string;
		};
	};
}

export interface ExecutionQuery {
	workflowId?: string;
	/** One of n8n's execution statuses; 'running' is the only way to see running ones. */
	status?: string;
	includeData?: boolean;
	/** ISO time: only executions that started after it. */
	startedAfter?: string;
	/** Per page, at most 250 (n8n's limit). */
	limit?: number;
}

function queryString(query: ExecutionQuery, cursor?: string): string {
	const parameters = new URLSearchParams();
	if (query.workflowId) parameters.set('workflowId', query.workflowId);
	if (query.status) parameters.set('status', query.status);
	if (query.includeData) parameters.set('includeData', 'true');
	if (query.startedAfter) parameters.set('startedAfter', query.startedAfter);
	parameters.set('limit', String(query.limit ?? 250));
	if (cursor) parameters.set('cursor', cursor);
	return parameters.toString();
}

/** One page: the newest executions that match, and the cursor to the next page (undefined at the end). */
export async function executionsPage(
	client: N8nClient,
	query: ExecutionQuery,
	cursor?: string,
): Promise<{ data: Execution[]; nextCursor?: string }> {
	const page = await client
		.api('GET', `/executions?${queryString(query, cursor)}`)
		.catch((error: unknown) => {
			if (query.startedAfter && String(error).includes("Unknown query parameter 'startedAfter'"))
				return undefined;
			return Promise.reject(error);
		});
	if (!page)
		return await startedAfterOn1x(
			client,
			{ ...query, startedAfter: query.startedAfter as string },
			cursor,
		);
	return {
		data: (page.data as unknown as Execution[] | undefined) ?? [],
		nextCursor: (page.nextCursor as string | null | undefined) ?? undefined,
	};
}

/**
 * n8n 1.x's public API has no startedAfter filter (1.123.81's public-api has no such parameter and
 * answers 400 "Unknown query parameter 'startedAfter'"; 2.41.1 has it): the page without it, newest
 * first, keeping the executions that started after it, and no next page once older ones appear.
 */
async function startedAfterOn1x(
	client: N8nClient,
	query: ExecutionQuery & { startedAfter: string },
	cursor?: string,
) {
	const after = Date.parse(query.startedAfter);
	const page = await executionsPage(client, { ...query, startedAfter: undefined }, cursor);
	const newer = page.data.filter((e) => Date.parse(e.startedAt ?? '') > after);
	return { data: newer, nextCursor: newer.length < page.data.length ? undefined : page.nextCursor };
}

/** Every execution that matches, page after page. */
export async function allExecutions(
	client: N8nClient,
	query: ExecutionQuery,
): Promise<Execution[]> {
	const all: Execution[] = [];
	let cursor: string | undefined;
	do {
		const page = await executionsPage(client, query, cursor);
		all.push(...page.data);
		cursor = page.nextCursor;
	} while (cursor);
	return all;
}

const isFinished = (execution: Execution) =>
	execution.status !== 'running' && execution.status !== 'new';

/** Waits until the workflow has at least `count` finished executions (the newest 250 are looked at) and returns them. */
export async function finishedExecutions(
	client: N8nClient,
	workflowId: string,
	count: number,
	timeoutMs = 90_000,
): Promise<Execution[]> {
	return await waitUntil(
		`${count} finished executions of workflow ${workflowId}`,
		async () => {
			const list = (await executionsPage(client, { workflowId, includeData: true })).data.filter(
				isFinished,
			);
			return list.length >= count ? list : undefined;
		},
		{ timeoutMs, intervalMs: 200 },
	);
}

/** Whether n8n is running an execution (of the workflow, or of any). */
export async function anyRunning(client: N8nClient, workflowId?: string): Promise<boolean> {
	return (
		(await executionsPage(client, { workflowId, status: 'running', limit: 1 })).data.length > 0
	);
}

/** Items a node output in an execution (output 0 unless told). */
export function nodeItems(execution: Execution, nodeName: string, output = 0): IDataObject[] {
	const run = execution.data?.resultData.runData[nodeName]?.[0];
	return (run?.data?.main[output] ?? []).map((item) => item.json);
}

/**
 * The executions that started at or after `since`, once they have settled: none of them running
 * or new, and the same list twice in a row (a run that starts a moment after the delivery was
 * answered is still seen). After `timeoutMs` the list as it is then, running ones included.
 */
export async function executionsSince(
	client: N8nClient,
	since: Date,
	timeoutMs = 20_000,
): Promise<Execution[]> {
	const startedAfter = since.toISOString();
	const list = async () => [
		...(await executionsPage(client, { status: 'running', startedAfter })).data,
		...(await allExecutions(client, { startedAfter })),
	];
	let previous = '';
	const settled = await waitUntil(
		'the executions of the delivery to finish',
		async () => {
			const now = await list();
			const ids = now
				.map((e) => `${e.id}:${e.status}`)
				.sort()
				.join(',');
			const stable = ids === previous && now.every(isFinished);
			previous = ids;
			return stable ? now : undefined;
		},
		{ timeoutMs, intervalMs: 400 },
	).catch(() => undefined);
	return settled ?? (await list());
}
