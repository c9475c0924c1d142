/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Section 7's state (state.ts): what a published Messaging Relay Trigger keeps about its account
 * in its workflow's static data, grown to a given size. The section never writes that state in a
 * format of its own: how the trigger stores waits and paused chats is the nodes' business and
 * changes (an object per entry, or packed rows with an index), so
 *   1. the state is built in this process by the nodes' own code, as the trigger runs it on the
 *      signed hand-offs the action node sends: per waiting run, the `wait` hand-off's body (the wait
 *      record of docs/design/durability-and-conversations.md §5, `{ executionId, resumePath, chat,
 *      channelId, since, until, questionId, passOn? }`, as sendAndWait.ts `recordWithTriggers`
 *      sends it) parsed with waitingRuns.ts `waitSchema` and given to `recordWait` at the account's
 *      capacity, as receiveHandoff.ts `answerWait` does for the holder; per chat, the `pause`
 *      hand-off's body (§5a, Pause Automatic Replies) given to chatPause.ts `applyPauseCommand`,
 *      as whoIsCalling.ts does. The calls get a stand-in of the trigger's context (its workflow, its
 *      node, mode `webhook`, and its "Pause When a Person Replies" option, the measured triggers'
 *      own) and a static data object that starts empty; at each size the section needs, that
 *      object's fields, whatever the code wrote, saved and loaded as JSON as n8n does, are that
 *      size's state (`buildInProcess`);
 *   2. the measured triggers get those fields written into their own static data through n8n's
 *      public API, between measurements (`writeState`);
 *   3. a cross-check, at a small size (state.ts, BENCH_STATE_CHECK): the same waits and pauses sent
 *      to a builder trigger in a real n8n as signed hand-offs (`buildStates`), and the fields its
 *      static data then holds must be the same fields as the in-process build's and decode to the
 *      same waits and paused chats (`sameStates`, through waitingRuns.ts `waitsInStaticData` and
 *      chatPause.ts `pausesInStaticData`).
 * Why not build every size through the hand-offs, as the section did first: each hand-off makes n8n
 * save the trigger's whole static data, so 10,000 waits and 10,000 pauses are 20,000 saves of a
 * blob that grows to about 3.5 MB. n8n's SQLite writer could not keep up: in the default run of
 * 2026-11-26, 12,945 saves timed out ("Timeout waiting for lock SqliteWriteConnectionMutex") and
 * n8n dropped the bench's connection after 29 minutes, before 10,000 was reached. Built in this
 * process, the same code writes the same fields with no save at all; what n8n's save of that state
 * costs is what the section's recording row measures, through a real hand-off (stateRecording.ts).
 * The fields carry no host, so every setting's n8n gets the same.
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
import { isDeepStrictEqual } from 'node:util';

import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { applyPauseCommand, pausesInStaticData } from '../../nodes/MessagingRelayTrigger/chatPause';
import type { ListenerContext } from '../../nodes/shared/processKey';
import {
	deriveShareKey,
	proofFor,
	signHandoff,
	type ShareOp,
} from '../../nodes/shared/sharedWebhook/signedHandoff';
import { waitSchema } from '../../nodes/shared/sendAndWait/wait';
import {
	recordWait,
	WAIT_CAPACITY,
	waitsInStaticData,
} from '../../nodes/shared/sendAndWait/waitingRuns';
import type { WebhookState } from '../../nodes/shared/sharedWebhook/webhookState';
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
export function resumePath(
	secret: Buffer,
	executionId: string,
	nodeId: string,
	wait: { chat: string; channelId: string; since: number; until: number; passOn?: boolean },
): string {
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
export function waitRecord(
	secret: Buffer,
	executionId: string,
	nodeId: string,
	fields: {
		chat: string;
		since: number;
		until: number;
		questionId: string | null;
		passOn: boolean;
	},
): IDataObject {
	const { chat, since, until, questionId, passOn } = fields;
	return {
		executionId,
		resumePath: resumePath(secret, executionId, nodeId, {
			chat,
			channelId: CHANNEL,
			since,
			until,
			passOn,
		}),
		chat,
		channelId: CHANNEL,
		since,
		until,
		questionId,
		passOn,
	};
}

/**
 * What the waits and pauses of one build are drawn from: the key n8n would sign their resume paths
 * with, the waiting nodes' ids, the time they are relative to and `most`, the count of waits the
 * oldest is that many seconds older than `now` for. Two builds of one plan (in this process and
 * through the hand-offs: the cross-check) get the very same waits and pauses.
 */
export interface StatePlan {
	secret: Buffer;
	nodeIds: string[];
	now: number;
	most: number;
}

export const newPlan = (most: number): StatePlan => ({
	secret: randomBytes(32),
	nodeIds: [randomUUID(), randomUUID(), randomUUID()],
	now: Date.now(),
	most,
});

/**
 * The i-th open wait (of runs in three workflows, the oldest asked `plan.most` seconds before
 * `plan.now`), as the second hand-off of its run says it, with the question's id: a quarter asked
 * a phone number (kept under its digits, chatIds.ts), the rest a chat; a third without a time
 * limit, the others until 12 hours or more from now; every fifth passes the reply on. None is for
 * the chat the bench delivers from (4917612345678, the sample event's). `token`: a string the
 * stored state holds verbatim once the trigger kept it (its question id).
 */
function openWait(plan: StatePlan, i: number): { body: IDataObject; token: string } {
	const digits = `4917500${pad(i)}`;
	const questionId = `wamid.BENCHQ${pad(i)}`;
	const body = waitRecord(plan.secret, String(200_000 + i), plan.nodeIds[i % 3], {
		chat: i % 4 === 0 ? digits : `${digits}@c.us`,
		since: plan.now - (plan.most - i) * 1_000,
		until: i % 3 === 0 ? FOREVER_WAIT : plan.now + 12 * 3_600_000 + i * 1_000,
		questionId,
		passOn: i % 5 === 0,
	});
	return { body, token: questionId };
}

/** The i-th paused chat: Pause Automatic Replies given in the last 10 minutes, for 12 hours (every tenth until resumed). */
function pauseOf(plan: StatePlan, i: number): { body: IDataObject; token: string } {
	const chat = `4917700${pad(i)}@c.us`;
	return {
		body: { chat, pause: true, minutes: i % 10 === 0 ? 0 : 720, at: plan.now - (i % 600) * 1_000 },
		token: chat,
	};
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
export async function sendSigned(
	target: HandoffTarget,
	op: ShareOp,
	body: string,
): Promise<{ answer: IDataObject; ms: number }> {
	const { headers, nonce } = signHandoff(target.shareKey, op, target.url.pathname, body);
	const t0 = process.hrtime.bigint();
	const response = await fetch(target.url, {
		method: 'POST',
		headers: { ...headers, 'content-type': 'application/json' },
		body,
	});
	const answer = (await response.json().catch(() => ({}))) as IDataObject;
	const ms = Number(process.hrtime.bigint() - t0) / 1e6;
	if (
		response.status !== 200 ||
		answer.proof !== proofFor(target.shareKey, nonce, target.url.pathname)
	) {
		throw new Error(
			`bench: the ${op} hand-off got ${response.status} ${JSON.stringify(answer).slice(0, 200)}`,
		);
	}
	return { answer, ms };
}

/** The trigger's own static data (under its node key) as n8n has it in its database now. */
export async function nodeState(client: N8nClient, workflowId: string): Promise<IDataObject> {
	const workflow = await client.api('GET', `/workflows/${workflowId}`);
	return ((workflow.staticData as Record<string, IDataObject> | null | undefined)?.[
		nodeKey(TRIGGER_NODE)
	] ?? {}) as IDataObject;
}

/** The fields of `after` that are new or other than in `before`. */
function changed(after: IDataObject, before: IDataObject): IDataObject {
	return Object.fromEntries(
		Object.entries(after).filter(
			([key, value]) => JSON.stringify(value) !== JSON.stringify(before[key]),
		),
	);
}

/** `work(i)` for i in [from, to), at most `limit` at once. */
async function inParallel(
	from: number,
	to: number,
	limit: number,
	work: (i: number) => Promise<void>,
) {
	let next = from;
	await Promise.all(
		Array.from({ length: Math.min(limit, Math.max(0, to - from)) }, async () => {
			while (next < to) await work(next++);
		}),
	);
}

/** A build's states, by size: fields of a trigger's static data, as the trigger wrote them. */
export interface BuiltStates {
	/** The fields of `n` open waits, by n. */
	waits: Map<number, IDataObject>;
	/** The newest wait of each size, as its run's second hand-off (with the question's id) says it. */
	newest: Map<number, IDataObject>;
	/** The fields of `n` paused chats (with no wait), by n. */
	paused: Map<number, IDataObject>;
	/** Every field any of them uses: what a measured trigger's state is cleared of before it gets one. */
	keys: string[];
	/** Waits and pauses the trigger's code refused (a wait beyond the account's capacity; a pause with the option off). */
	refused: { waits: number; paused: number };
	seconds: number;
}

const ascending = (counts: number[]) =>
	[...new Set(counts)].filter((n) => n > 0).sort((a, b) => a - b);
const fieldsOf = (states: Iterable<IDataObject>) => [
	...new Set([...states].flatMap((f) => Object.keys(f))),
];

/**
 * The trigger as the nodes' code sees it when it takes a hand-off, for the calls it makes then: the
 * listener (workflow, node, mode: processKey.ts) and the one parameter they read, "Pause When a
 * Person Replies" (chatPause.ts `pauseSettings`). Any other parameter throws: the stand-in would
 * not have it as the measured trigger has it.
 */
function standInTrigger(
	workflowId: string,
	pauseOption: IDataObject,
): IWebhookFunctions & ListenerContext {
	const context: ListenerContext & { getNodeParameter(name: string): unknown } = {
		getWorkflow: () => ({ id: workflowId }),
		getNode: () => ({ name: TRIGGER_NODE }),
		getMode: () => 'webhook',
		getNodeParameter: (name: string) => {
			if (name === 'options.pauseWhenPersonReplies') return pauseOption;
			throw new Error(
				`bench: the nodes' code asked the in-process trigger for its parameter ${name}; give the stand-in (accountState.ts) that parameter as the measured trigger has it`,
			);
		},
	};
	return context as unknown as IWebhookFunctions & ListenerContext;
}

/** The state as n8n saves it and gives the next request: a JSON copy. */
const savedAndLoaded = (state: WebhookState): WebhookState =>
	JSON.parse(JSON.stringify(state)) as WebhookState;

/**
 * Builds the states in this process with the nodes' own code, as a trigger holding the account's
 * webhook, with `pauseOption` as its "Pause When a Person Replies", takes them (see the top): the
 * waits of `plan` one by one, taking the state at each of `waitCounts`, and, in a state of their
 * own, the pauses one by one, taking it at each of `pausedCounts`. Each state is taken as n8n would
 * save it (a JSON copy), and the build goes on from that copy, as the next request would.
 */
export function buildInProcess(
	plan: StatePlan,
	waitCounts: number[],
	pausedCounts: number[],
	pauseOption: IDataObject,
): BuiltStates {
	const started = Date.now();
	const refused = { waits: 0, paused: 0 };
	const waits = new Map<number, IDataObject>();
	const newest = new Map<number, IDataObject>();
	// Workflow ids of their own: the code's memory of each (accountTable.ts) is this build's only.
	const waitTrigger = standInTrigger(`bench-state-waits-${randomUUID()}`, pauseOption);
	let state: WebhookState = {};
	let sent = 0;
	for (const count of ascending(waitCounts)) {
		for (; sent < count; sent++) {
			// What the trigger does with a `wait` hand-off's body as the holder (receiveHandoff.ts `answerWait`).
			const wait = waitSchema.parse(JSON.parse(JSON.stringify(openWait(plan, sent).body)));
			if (!recordWait(waitTrigger, state, wait, Date.now(), WAIT_CAPACITY).recorded)
				refused.waits++;
			// Saved and loaded every 500, as the unit test of 10,000 waits does (n8n does it every request).
			if (sent % 500 === 499) state = savedAndLoaded(state);
		}
		state = savedAndLoaded(state);
		waits.set(count, savedAndLoaded(state));
		newest.set(count, openWait(plan, count - 1).body);
	}
	const paused = new Map<number, IDataObject>();
	const pauseTrigger = standInTrigger(`bench-state-pauses-${randomUUID()}`, pauseOption);
	let pauses: WebhookState = {};
	let given = 0;
	for (const count of ascending(pausedCounts)) {
		for (; given < count; given++) {
			// What the trigger does with a `pause` hand-off's body (whoIsCalling.ts).
			if (
				applyPauseCommand(
					pauseTrigger,
					pauses,
					JSON.stringify(pauseOf(plan, given).body),
					Date.now(),
				).applied !== true
			)
				refused.paused++;
			if (given % 500 === 499) pauses = savedAndLoaded(pauses);
		}
		pauses = savedAndLoaded(pauses);
		paused.set(count, savedAndLoaded(pauses));
	}
	const keys = fieldsOf([...waits.values(), ...paused.values()]);
	return { waits, newest, paused, keys, refused, seconds: (Date.now() - started) / 1000 };
}

/**
 * Sends the builder (a published trigger with "Pause When a Person Replies" on, holding its
 * account's webhook) the waits of `plan`, taking the fields its static data changed at each of
 * `waitCounts`, then its pauses, taking them at each of `pausedCounts`, `concurrency` at a time:
 * the cross-check of `buildInProcess` (see the top). A state is taken once n8n saved the last
 * hand-offs (their tokens are in it: n8n saves static data after the trigger has answered,
 * webhook-helpers.js:590-594, live-webhooks.js:144-147).
 */
export async function buildStates(
	client: N8nClient,
	builderId: string,
	target: HandoffTarget,
	plan: StatePlan,
	waitCounts: number[],
	pausedCounts: number[],
	concurrency: number,
): Promise<BuiltStates> {
	const started = Date.now();
	const baseline = await nodeState(client, builderId);
	const refused = { waits: 0, paused: 0 };
	const settled = async (tokens: string[]) =>
		await waitUntil(
			"n8n to save the builder's state",
			async () => {
				const state = await nodeState(client, builderId);
				const text = JSON.stringify(state);
				return tokens.every((t) => text.includes(t)) ? state : undefined;
			},
			{ timeoutMs: 60_000, intervalMs: 200 },
		);

	const waits = new Map<number, IDataObject>();
	const newest = new Map<number, IDataObject>();
	let latest = baseline;
	let sent = 0;
	for (const count of ascending(waitCounts)) {
		const accepted: number[] = [];
		await inParallel(sent, count, concurrency, async (i) => {
			const { answer } = await sendSigned(target, 'wait', JSON.stringify(openWait(plan, i).body));
			if (answer.recorded === true) accepted.push(i);
			else refused.waits++;
		});
		sent = count;
		latest = await settled(
			accepted
				.sort((a, b) => a - b)
				.slice(-concurrency)
				.map((i) => openWait(plan, i).token),
		);
		waits.set(count, changed(latest, baseline));
		newest.set(count, openWait(plan, count - 1).body);
	}
	const paused = new Map<number, IDataObject>();
	let given = 0;
	for (const count of ascending(pausedCounts)) {
		const applied: number[] = [];
		await inParallel(given, count, concurrency, async (i) => {
			const { answer } = await sendSigned(target, 'pause', JSON.stringify(pauseOf(plan, i).body));
			if (answer.applied === true) applied.push(i);
			else refused.paused++;
		});
		given = count;
		paused.set(
			count,
			changed(
				await settled(
					applied
						.sort((a, b) => a - b)
						.slice(-concurrency)
						.map((i) => pauseOf(plan, i).token),
				),
				latest,
			),
		);
	}
	const keys = fieldsOf([...waits.values(), ...paused.values()]);
	return { waits, newest, paused, keys, refused, seconds: (Date.now() - started) / 1000 };
}

/**
 * Throws unless `built` (in this process) is what `sent` (the hand-offs to a trigger in n8n) made,
 * at every size `sent` has: the same fields of static data, decoding to the same waits and the same
 * paused chats as static data holds them (waitsInStaticData, pausesInStaticData), and the same
 * refusals. Returns the sizes compared.
 */
export function sameStates(built: BuiltStates, sent: BuiltStates): string {
	const differ = (what: string, detail: string) =>
		new Error(
			`bench: the state built in this process is not what the hand-offs to a trigger in n8n made, at ${what}: ${detail}`,
		);
	const compare = <T>(
		what: string,
		ours: IDataObject | undefined,
		theirs: IDataObject,
		decode: (state: WebhookState) => Record<string, T>,
	) => {
		if (!ours) throw differ(what, 'the in-process build has no such size');
		const [a, b] = [Object.keys(ours).sort(), Object.keys(theirs).sort()];
		if (!isDeepStrictEqual(a, b)) throw differ(what, `fields ${a.join(', ')} vs ${b.join(', ')}`);
		const [rowsA, rowsB] = [decode(ours as WebhookState), decode(theirs as WebhookState)];
		const ids = [...new Set([...Object.keys(rowsA), ...Object.keys(rowsB)])];
		const other = ids.filter((id) => !isDeepStrictEqual(rowsA[id], rowsB[id]));
		if (other.length)
			throw differ(
				what,
				`${other.length} of ${ids.length} entries differ, e.g. ${other[0]}: ${JSON.stringify(rowsA[other[0]])} vs ${JSON.stringify(rowsB[other[0]])}`,
			);
		return `${what} (${ids.length} entries)`;
	};
	const compared = [
		...[...sent.waits].map(([n, theirs]) =>
			compare(`${n} waits`, built.waits.get(n), theirs, waitsInStaticData),
		),
		...[...sent.paused].map(([n, theirs]) =>
			compare(`${n} paused chats`, built.paused.get(n), theirs, pausesInStaticData),
		),
	];
	if (!isDeepStrictEqual(built.refused, sent.refused))
		throw differ(
			'the refusals',
			`${JSON.stringify(built.refused)} vs ${JSON.stringify(sent.refused)}`,
		);
	return compared.join(', ');
}

/**
 * Gives the trigger `fields` as its state: its static data cleared of every field in `keys`, then
 * `fields` set, everything else it keeps (its registration, its account key) as it is. Throws
 * unless n8n then holds exactly that and the published version did not change.
 */
export async function writeState(
	client: N8nClient,
	workflowId: string,
	fields: IDataObject,
	keys: string[],
): Promise<void> {
	const workflow = await client.api('GET', `/workflows/${workflowId}`);
	const staticData = (workflow.staticData ?? {}) as Record<string, IDataObject>;
	const own: IDataObject = { ...(staticData[nodeKey(TRIGGER_NODE)] ?? {}) };
	if (!own.webhookUrl || !own.shareKey)
		throw new Error(
			`bench: the trigger of workflow ${workflowId} does not hold its account's webhook (no webhookUrl or shareKey in its static data)`,
		);
	for (const key of keys) delete own[key];
	Object.assign(own, fields);
	const updated = await client.api('PUT', `/workflows/${workflowId}?publishIfActive=false`, {
		name: workflow.name,
		nodes: workflow.nodes,
		connections: workflow.connections,
		settings: {},
		staticData: { ...staticData, [nodeKey(TRIGGER_NODE)]: own },
	});
	const written = ((updated.staticData as Record<string, IDataObject> | null | undefined)?.[
		nodeKey(TRIGGER_NODE)
	] ?? {}) as IDataObject;
	if (
		JSON.stringify(written) !== JSON.stringify(own) ||
		updated.activeVersionId !== workflow.activeVersionId
	) {
		throw new Error(
			`bench: n8n did not keep the state written to workflow ${workflowId} (published version ${String(updated.activeVersionId)}, was ${String(workflow.activeVersionId)})`,
		);
	}
}
