import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { contextMemory } from '../processMemory';

/**
 * Whether n8n saved the static data a webhook request changed (docs/design/n8n-internals.md, "Whether n8n saved
 * static data"; contract test on n8n 2.41.1 and 1.123.81). After `webhook()` n8n saves it when `__dataChanged` is
 * true and sets that back to false once the save succeeded; a failed save is only logged. The Workflow is the
 * `workflow` field of n8n-core's node contexts. A request that starts a run (2.41.1 clears the flag unsaved) is
 * marked and reported unsaved.
 */

/**
 * How long a request waits for n8n's save before it answers "retry later" (n8n's SQLite lock waits 60 s).
 * An object, so that a test can shorten it.
 */
export const saveLimits = { waitMs: 20_000 };
const POLL_MS = [2, 5, 10, 20, 25];

interface Observable {
	__dataChanged?: boolean;
}

interface Watch {
	saved: Promise<boolean | undefined>;
	settled: boolean;
}

const watches = contextMemory<Watch>('save watches', "each request's wait for n8n's save");
const startingRuns = contextMemory<true>('requests starting runs', 'requests that start a run');

/** The static data n8n will save after this request, or undefined when this n8n keeps it elsewhere. */
function savedObject(context: IWebhookFunctions): Observable | undefined {
	const workflow = (context as unknown as { workflow?: { staticData?: Observable } }).workflow;
	const data = workflow?.staticData;
	return data && typeof data === 'object' && '__dataChanged' in data ? data : undefined;
}

/**
 * Whether n8n saves this context's static data when its request has been answered: a webhook call's
 * context (it has the request's response), not an activation's or a poll's.
 */
export function isWebhookRequest(context: object): context is IWebhookFunctions {
	return typeof (context as Partial<IWebhookFunctions>).getResponseObject === 'function';
}

/** Whether this n8n lets the package see its saves (the bet holds). */
export function canSeeSaves(context: IWebhookFunctions): boolean {
	return savedObject(context) !== undefined;
}

/**
 * Whether n8n leaves unsaved what this request wrote to static data: a published request that
 * starts a run (n8n 2.41.1 saves nothing webhook() wrote then; a test listener's data is never
 * saved, so there is nothing to save it for). docs/design/account-state.md has n8n's lines.
 */
export function runLeavesWritesUnsaved(
	context: Pick<IWebhookFunctions, 'getMode'>,
	response: { workflowData?: unknown },
): boolean {
	return response.workflowData !== undefined && context.getMode() !== 'manual';
}

/** This request starts a run: what it wrote is not saved by n8n 2.41.1, whatever the flag says. */
export function markRunStarting(context: object) {
	startingRuns.set(context, true);
}

async function poll(context: IWebhookFunctions, data: Observable, timeoutMs: number) {
	const by = Date.now() + timeoutMs;
	for (let i = 0; data.__dataChanged === true; i++) {
		if (Date.now() >= by || startingRuns.has(context)) return false;
		await sleep(POLL_MS[Math.min(i, POLL_MS.length - 1)]);
	}
	return !startingRuns.has(context);
}

/**
 * One watch per request: resolves once n8n saved what it wrote (`true`); `false` when no save was seen
 * within `timeoutMs` (n8n failed it) or the request started a run; `undefined` when this n8n does not let
 * the package see its saves. A test listener's data is never saved: `true`.
 */
export function watchSave(context: IWebhookFunctions, timeoutMs = saveLimits.waitMs): Watch {
	const known = watches.get(context);
	if (known) return known;
	const data = context.getMode() === 'manual' ? undefined : savedObject(context);
	const watch: Watch = { saved: Promise.resolve(undefined), settled: false };
	watch.saved = (
		context.getMode() === 'manual'
			? Promise.resolve(true)
			: data
				? poll(context, data, timeoutMs)
				: Promise.resolve(undefined)
	).finally(() => {
		watch.settled = true;
	});
	watches.set(context, watch);
	return watch;
}

/** Resolves once n8n saved what this request wrote (watchSave). */
export async function staticDataSaved(
	context: IWebhookFunctions,
	timeoutMs = saveLimits.waitMs,
): Promise<boolean | undefined> {
	return await watchSave(context, timeoutMs).saved;
}
