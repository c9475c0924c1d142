/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Section 7's state (state.ts): what a published Messaging Relay Trigger keeps about its account
 * in its workflow's static data, grown to a given size. The section never writes that state in a
 * format of its own: how the trigger stores waits and paused chats is the nodes' business and
 * changes (an object per entry, or packed rows with an index), so
 *   1. a builder trigger on an account of its own receives the entries through the protocol, as
 *      the action node sends them: a signed `wait` hand-off per waiting run (the wait record of
 *      docs/design/durability-and-conversations.md §5, `{ executionId, resumePath, chat,
 *      channelId, since, until, questionId, passOn? }`, as sendAndWait.ts `recordWithTriggers`
 *      sends it) and a signed `pause` hand-off per chat (§5a, Pause Automatic Replies);
 *   2. at each size the section needs, the fields of the builder's static data that the
 *      hand-offs changed are taken as that size's state, whatever they are;
 *   3. the measured triggers get those fields written into their own static data through n8n's
 *      public API, between measurements.
 * The builder runs in one n8n only; its fields carry no host, so every setting's n8n gets the same.
 *
 * How n8n 2.41.1 takes it (~/.cache/n8n-nodes-messaging-relay/n8n-2.41.1/node_modules):
 *   - n8n keeps a node's static data under `node:<node name>` (n8n-workflow
 *     dist/cjs/workflow.js:169-191), as the e2e suites read it (test/e2e/sendAndWait.e2e.ts
 *     `recordedWait`).
 *   - The public API's `PUT /api/v1/workflows/:id` takes `staticData`
 *     (@n8n/api-types dist/dto/workflows/base-workflow-public.dto.js:113-129, :149; the handler
 *     n8n/dist/public-api/v1/controllers/workflows.public.controller.js:250-262 passes it through
 *     workflows/workflow-entity-mapper.js:5-21 to workflows/workflow.service.js:386-398, which
 *     writes it). The editor's `PATCH /rest/workflows/:id` does not: its body schema has no
 *     `staticData` (@n8n/api-types dist/dto/workflows/base-workflow.dto.js:61-85).
 *   - The PUT re-publishes a published workflow unless `publishIfActive=false`
 *     (update-workflow-query.dto.js:9 defaults it to true; workflow.service.js:407), and publishes
 *     again when the settings change (workflow.service.js:361-362, :467): `settings: {}` is merged
 *     into the stored ones (workflow.service.js:352-357) and changes nothing. With the same nodes
 *     and connections no version is saved (workflow.service.js:304-323): the published trigger is
 *     left as it is, its registration untouched.
 *   - Every delivery reads the workflow, static data included, from the database
 *     (webhooks/live-webhooks.js:105-115, :178-183 → workflow-published-data.service.js:27-33), so
 *     the next delivery sees what was written; n8n saves it back only when a node changed it
 *     (live-webhooks.js:147 → workflow-static-data.service.js:31-43).
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { deriveShareKey, proofFor, signHandoff, type ShareOp } from '../../nodes/shared/sharedWebhook/signedHandoff';
import type { N8nClient } from '../../test/support/n8nClient';
import { waitUntil } from '../../test/support/waitUntil';

/** The trigger's node name in triggerWorkflowData (test/support/workflows.ts). */
export const TRIGGER_NODE = 'Relay Trigger';

/** Where n8n keeps the static data of the node called `name` (n8n-workflow dist/cjs/workflow.js:178). */
export const nodeKey = (name: string) => `node:${name}`;

/** n8n's "wait indefinitely" (n8n-nodes-base utils/sendAndWait/configureWaitTillDate.util.js), what Send and Wait keeps without a limit. */
export const FOREVER_WAIT = Date.parse('3000-01-01T00:00:00.000Z');
const CHANNEL = 'num_main';
const pad = (n: number) => String(n).padStart(6, '0');

/**
 * n8n's signed resume path for a waiting node, as Send and Wait keeps it: `/webhook-waiting/<execution
 * id>/<node id>` (n8n-core utils/signature-helpers.js:12-14), the wait's own parameters
 * (waitingRunUrl.ts signedWaitParams) set in that order, and `signature`, an HMAC-SHA256 (hex) of
 * the path and query (node-execution-context.js:174-187); here with a key of the bench's own.
 */
export function resumePath(secret: Buffer, executionId: string, nodeId: string, wait: { chat: string; channelId: string; since: number; until: number; passOn?: boolean }): string {
	const query = new URLSearchParams({
		chat: wait.chat,
		'relay-wait': 'v1',
		channel: wait.channelId,
		since: String(wait.since),
		until: String(wait.until),
		...(wait.passOn ? { 'pass-on': '1' } : {}),
	});
	const unsigned = `/webhook-waiting/${executionId}/${encodeURIComponent(nodeId)}?${query.toString()}`;
	return `${unsigned}&signature=${createHmac('sha256', secret).update(unsigned).digest('hex')}`;
}

/** A wait record, as the `wait` hand-off carries it (sendAndWait.ts builds the same fields). */
export function waitRecord(secret: Buffer, executionId: string, nodeId: string, fields: { chat: string; since: number; until: number; questionId: string | null; passOn: boolean }): IDataObject {
	const { chat, since, until, questionId, passOn } = fields;
	return { executionId, resumePath: resumePath(secret, executionId, nodeId, { chat, channelId: CHANNEL, since, until, passOn }), chat, channelId: CHANNEL, since, until, questionId, passOn };
}

/**
 * The i-th of `count` open waits (of runs in three workflows, the oldest asked `count` seconds
 * before `now`), as the second hand-off of its run says it, with the question's id: a quarter asked
 * a phone number (kept under its digits, chatIds.ts), the rest a chat; a third without a time
 * limit, the others until 12 hours or more from now; every fifth passes the reply on. None is for
 * the chat the bench delivers from (4917612345678, the sample event's). `token`: a string the
 * stored state holds verbatim once the trigger kept it (its question id).
 */
function openWait(run: { secret: Buffer; nodeIds: string[]; now: number }, i: number, count: number): { body: IDataObject; token: string } {
	const digits = `4917500${pad(i)}`;
	const questionId = `wamid.BENCHQ${pad(i)}`;
	const body = waitRecord(run.secret, String(200_000 + i), run.nodeIds[i % 3], {
		chat: i % 4 === 0 ? digits : `${digits}@c.us`,
		since: run.now - (count - i) * 1_000,
		until: i % 3 === 0 ? FOREVER_WAIT : run.now + 12 * 3_600_000 + i * 1_000,
		questionId,
		passOn: i % 5 === 0,
	});
	return { body, token: questionId };
}

/** The i-th paused chat: Pause Automatic Replies given in the last 10 minutes, for 12 hours (every tenth until resumed). */
function pauseOf(now: number, i: number): { body: IDataObject; token: string } {
	const chat = `4917700${pad(i)}@c.us`;
	return { body: { chat, pause: true, minutes: i % 10 === 0 ? 0 : 720, at: now - (i % 600) * 1_000 }, token: chat };
}

/** A trigger's URL as the registration names it (no query), and the account key its API key gives. */
export interface HandoffTarget {
	url: URL;
	shareKey: string;
}

export const handoffTarget = (registeredUrl: string, apiKey: string): HandoffTarget => {
	const url = new URL(registeredUrl);
	return { url: new URL(`${url.origin}${url.pathname}`), shareKey: deriveShareKey(apiKey) };
};

/**
 * One signed hand-off, as peerClient.ts `sendHandoff` sends it; the trigger's answer, which must
 * be a 200 with the proof that it holds the account key (what the action node requires).
 */
export async function sendSigned(target: HandoffTarget, op: ShareOp, body: string): Promise<{ answer: IDataObject; ms: number }> {
	const { headers, nonce } = signHandoff(target.shareKey, op, target.url.pathname, body);
	const t0 = process.hrtime.bigint();
	const response = await fetch(target.url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
	const answer = (await response.json().catch(() => ({}))) as IDataObject;
	const ms = Number(process.hrtime.bigint() - t0) / 1e6;
	if (response.status !== 200 || answer.proof !== proofFor(target.shareKey, nonce, target.url.pathname)) {
		throw new Error(`bench: the ${op} hand-off got ${response.status} ${JSON.stringify(answer).slice(0, 200)}`);
	}
	return { answer, ms };
}

/** The trigger's own static data (under its node key) as n8n has it in its database now. */
export async function nodeState(client: N8nClient, workflowId: string): Promise<IDataObject> {
	const workflow = await client.api('GET', `/workflows/${workflowId}`);
	return ((workflow.staticData as Record<string, IDataObject> | null | undefined)?.[nodeKey(TRIGGER_NODE)] ?? {}) as IDataObject;
}

/** The fields of `after` that are new or other than in `before`. */
function changed(after: IDataObject, before: IDataObject): IDataObject {
	return Object.fromEntries(Object.entries(after).filter(([key, value]) => JSON.stringify(value) !== JSON.stringify(before[key])));
}

/** `work(i)` for i in [from, to), at most `limit` at once. */
async function inParallel(from: number, to: number, limit: number, work: (i: number) => Promise<void>) {
	let next = from;
	await Promise.all(Array.from({ length: Math.min(limit, Math.max(0, to - from)) }, async () => {
		while (next < to) await work(next++);
	}));
}

/** What the builder's hand-offs made of its static data, by size. */
export interface BuiltStates {
	/** The fields of `n` open waits, by n. */
	waits: Map<number, IDataObject>;
	/** The newest wait of each size, as its run's second hand-off (with the question's id) says it. */
	newest: Map<number, IDataObject>;
	/** The fields of the paused chats (with no wait). */
	paused: IDataObject;
	/** Every field any of them uses: what a measured trigger's state is cleared of before it gets one. */
	keys: string[];
	/** Hand-offs the trigger answered with something other than "recorded" / "applied" (e.g. at its capacity). */
	refused: { waits: number; paused: number };
	seconds: number;
}

/**
 * Sends the builder (a published trigger with "Pause When a Person Replies" on) `max(waitCounts)`
 * open waits, taking the state at each of `waitCounts`, then `paused` pause commands, `concurrency`
 * at a time. A state is taken once n8n saved the last hand-offs (their tokens are in it: n8n saves
 * static data after the trigger has answered, webhook-helpers.js:590-594, live-webhooks.js:144-147).
 */
export async function buildStates(client: N8nClient, builderId: string, target: HandoffTarget, waitCounts: number[], paused: number, concurrency: number): Promise<BuiltStates> {
	const started = Date.now();
	const run = { secret: randomBytes(32), nodeIds: [randomUUID(), randomUUID(), randomUUID()], now: Date.now() };
	const most = Math.max(0, ...waitCounts);
	const baseline = await nodeState(client, builderId);
	const refused = { waits: 0, paused: 0 };
	const settled = async (tokens: string[]) =>
		await waitUntil('n8n to save the builder\'s state', async () => {
			const state = await nodeState(client, builderId);
			const text = JSON.stringify(state);
			return tokens.every((t) => text.includes(t)) ? state : undefined;
		}, { timeoutMs: 60_000, intervalMs: 200 });

	const waits = new Map<number, IDataObject>();
	const newest = new Map<number, IDataObject>();
	let latest = baseline;
	let sent = 0;
	for (const count of [...new Set(waitCounts)].filter((n) => n > 0).sort((a, b) => a - b)) {
		const accepted: number[] = [];
		await inParallel(sent, count, concurrency, async (i) => {
			const wait = openWait(run, i, most);
			const { answer } = await sendSigned(target, 'wait', JSON.stringify(wait.body));
			if (answer.recorded === true) accepted.push(i);
			else refused.waits++;
		});
		sent = count;
		latest = await settled(accepted.sort((a, b) => a - b).slice(-concurrency).map((i) => openWait(run, i, most).token));
		waits.set(count, changed(latest, baseline));
		newest.set(count, openWait(run, count - 1, most).body);
	}
	const pauseTokens: string[] = [];
	await inParallel(0, paused, concurrency, async (i) => {
		const pause = pauseOf(run.now, i);
		const { answer } = await sendSigned(target, 'pause', JSON.stringify(pause.body));
		if (answer.applied === true) pauseTokens.push(pause.token);
		else refused.paused++;
	});
	const pausedFields = paused > 0 ? changed(await settled(pauseTokens.slice(-concurrency)), latest) : {};
	const keys = [...new Set([...[...waits.values()].flatMap((f) => Object.keys(f)), ...Object.keys(pausedFields)])];
	return { waits, newest, paused: pausedFields, keys, refused, seconds: (Date.now() - started) / 1000 };
}

/**
 * Gives the trigger `fields` as its state: its static data cleared of every field in `keys`, then
 * `fields` set, everything else it keeps (its registration, its account key) as it is. Throws
 * unless n8n then holds exactly that and the published version did not change.
 */
export async function writeState(client: N8nClient, workflowId: string, fields: IDataObject, keys: string[]): Promise<void> {
	const workflow = await client.api('GET', `/workflows/${workflowId}`);
	const staticData = (workflow.staticData ?? {}) as Record<string, IDataObject>;
	const own: IDataObject = { ...(staticData[nodeKey(TRIGGER_NODE)] ?? {}) };
	if (!own.webhookUrl || !own.shareKey) throw new Error(`bench: the trigger of workflow ${workflowId} does not hold its account's webhook (no webhookUrl or shareKey in its static data)`);
	for (const key of keys) delete own[key];
	Object.assign(own, fields);
	const updated = await client.api('PUT', `/workflows/${workflowId}?publishIfActive=false`, {
		name: workflow.name,
		nodes: workflow.nodes,
		connections: workflow.connections,
		settings: {},
		staticData: { ...staticData, [nodeKey(TRIGGER_NODE)]: own },
	});
	const written = ((updated.staticData as Record<string, IDataObject> | null | undefined)?.[nodeKey(TRIGGER_NODE)] ?? {}) as IDataObject;
	if (JSON.stringify(written) !== JSON.stringify(own) || updated.activeVersionId !== workflow.activeVersionId) {
		throw new Error(`bench: n8n did not keep the state written to workflow ${workflowId} (published version ${String(updated.activeVersionId)}, was ${String(workflow.activeVersionId)})`);
	}
}
