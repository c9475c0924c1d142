/**
 * Section 6, a conversation's answer (Message → Send and Wait for Reply,
 * docs/design/durability-and-conversations.md §5): from the service's delivery of the contact's
 * reply to the resumed run's next request at the simulator (its Reply), p50 / p99, ms.
 *   - ours: Messaging Relay Trigger → Send and Wait for Reply (Free Text) → Reply. The reply goes
 *     to the account's webhook like any event; the trigger offers it to the waiting run with a
 *     signed hand-off at n8n's resume URL.
 *   - alternative: what n8n offers without this package: Webhook → Send (the text is n8n's resume
 *     URL, so that the bench can read it) → Wait "On Webhook Call" → Send. The reply is POSTed
 *     straight to the run's resume URL: no routing, no check of who sends it (the lower bound of
 *     any router outside n8n).
 * One conversation at a time (BENCH_CONV_COUNT per round, BENCH_CONV_ROUNDS rounds), ours and the
 * alternative and the settings alternating; the question is answered only once n8n reports the
 * run as waiting, so neither side meets n8n's "not waiting yet" 409.
 */
import type { IDataObject } from 'n8n-workflow';

import type { N8nClient } from '../../test/support/n8nClient';
import { readJson } from '../../test/support/repo';
import { say } from '../../test/support/stack/runtime';
import { waitUntil } from '../../test/support/waitUntil';
import {
	createWorkflow,
	triggerWorkflowData,
	type WorkflowData,
} from '../../test/support/workflows';
import { percentile } from './measure';
import { fromEnv } from './settings';
import type { BenchStack } from './stacks';
import { pair, ratio, type Row } from './table';

const ACCOUNT = 'acct_bench_conv';
const QUESTION = 'What is your order number?';
const FOLLOW_UP = 'Thanks, looking it up';
const TRIGGER_WEBHOOK_ID = 'b3e0c1d2-0000-4000-8000-000000006001';
const START_WEBHOOK_ID = 'b3e0c1d2-0000-4000-8000-000000006002';
const START_PATH = 'bench-conversation-start';

const relay = (
	name: string,
	x: number,
	parameters: IDataObject,
	credential: IDataObject,
	webhookId?: string,
): IDataObject => ({
	id: name,
	name,
	type: 'n8n-nodes-messaging-relay.messagingRelay',
	typeVersion: 1,
	position: [x, 0],
	parameters: { resource: 'message', ...parameters },
	credentials: { messagingRelayApi: credential },
	...(webhookId ? { webhookId } : {}),
});
const then = (...names: string[]) =>
	Object.fromEntries(
		names
			.slice(0, -1)
			.map((from, i) => [from, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]),
	);

function ours(credential: IDataObject): WorkflowData {
	const trigger = triggerWorkflowData({
		name: 'bench: conversation (ours)',
		credential: credential as never,
		webhookId: TRIGGER_WEBHOOK_ID,
		events: ['message.received'],
		typeVersion: 2,
	});
	const nodes = [
		...trigger.nodes,
		relay(
			'Ask',
			240,
			{ operation: 'sendAndWait', message: QUESTION, responseType: 'freeText' },
			credential,
			'b3e0c1d2-0000-4000-8000-000000006003',
		),
		relay('Reply', 480, { operation: 'reply', text: FOLLOW_UP }, credential),
	];
	return { ...trigger, nodes, connections: then('Relay Trigger', 'Ask', 'Reply') };
}

function alternative(credential: IDataObject): WorkflowData {
	const send = (name: string, x: number, text: string) =>
		relay(
			name,
			x,
			{
				operation: 'send',
				channelId: { __rl: true, mode: 'id', value: 'num_main' },
				to: '={{ $("Start").item.json.body.chat }}',
				text,
			},
			credential,
		);
	return {
		name: 'bench: conversation (Webhook → Send → Wait → Send)',
		nodes: [
			{
				id: 'Start',
				name: 'Start',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: START_WEBHOOK_ID,
				parameters: { httpMethod: 'POST', path: START_PATH, options: {} },
			},
			send('Ask', 240, '={{ $execution.resumeUrl }}'),
			{
				id: 'Wait',
				name: 'Wait',
				type: 'n8n-nodes-base.wait',
				typeVersion: 1.1,
				position: [480, 0],
				webhookId: 'b3e0c1d2-0000-4000-8000-000000006004',
				parameters: { resume: 'webhook', httpMethod: 'POST', options: {} },
			},
			send('Reply', 720, FOLLOW_UP),
		],
		connections: then('Start', 'Ask', 'Wait', 'Reply'),
		settings: { executionOrder: 'v1' },
	};
}

let conversation = 0;
const nextChat = () => `49176900${String(++conversation).padStart(5, '0')}@c.us`;

/** The sample message.received of the fixtures, in `chat`, with `text`: a valid event, as the service sends it. */
function receivedIn(chat: string, text: string): IDataObject {
	const sample = readJson<Record<string, IDataObject>>('test', 'fixtures', 'sample-events.json')[
		'message.received'
	];
	const message = {
		...(sample.message as IDataObject),
		id: `bench-conv-${conversation}-${Date.now()}-${text.length}`,
		chatId: chat,
		from: `+${chat.split('@')[0]}`,
		text,
		timestamp: new Date().toISOString(),
	};
	return { ...sample, occurredAt: new Date().toISOString(), message };
}

/** The first request the simulator recorded since `since` to `chat` whose text passes `match`. */
async function sentTo(
	bench: BenchStack,
	chat: string,
	since: number,
	match: (text: string) => boolean,
): Promise<{ at: number; text: string }> {
	return await waitUntil(
		`a message to ${chat}`,
		async () => {
			const found = (await bench.simulator.requests(since)).find(
				(r) =>
					r.method === 'POST' &&
					r.path === '/v1/messages' &&
					(r.body as IDataObject).to === chat &&
					match(String((r.body as IDataObject).text)),
			);
			return found ? { at: found.at, text: String((found.body as IDataObject).text) } : undefined;
		},
		{ timeoutMs: 60_000, intervalMs: 20 },
	);
}

async function untilWaiting(client: N8nClient, workflowId: string) {
	await waitUntil(
		'the run to wait',
		async () =>
			(
				(await client.api('GET', `/executions?workflowId=${workflowId}&status=waiting`))
					.data as unknown[]
			).length > 0
				? true
				: undefined,
		{
			timeoutMs: 60_000,
			intervalMs: 50,
		},
	);
}

async function postJson(
	url: string,
	body: unknown,
	headers: Record<string, string> = {},
): Promise<number> {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: JSON.stringify(body),
	});
	await response.arrayBuffer();
	return response.status;
}

interface Prepared {
	bench: BenchStack;
	oursId: string;
	alternativeId: string;
	oursMs: number[];
	alternativeMs: number[];
}

async function prepare(bench: BenchStack): Promise<Prepared> {
	const credential = (await bench.credential(
		'bench conversation account',
		'sim-key-bench-conv',
	)) as unknown as IDataObject;
	const oursId = await createWorkflow(bench.stack.client, ours(credential));
	const alternativeId = await createWorkflow(bench.stack.client, alternative(credential));
	await bench.stack.client.publish(oursId);
	await bench.stack.client.publish(alternativeId);
	return { bench, oursId, alternativeId, oursMs: [], alternativeMs: [] };
}

/** One conversation of ours: the reply's delivery to the Reply's request at the simulator, ms. */
async function oursOnce({ bench, oursId }: Prepared): Promise<number> {
	const chat = nextChat();
	const since = Date.now();
	const webhook = (await bench.simulator.webhooks())[ACCOUNT];
	if (!webhook) throw new Error('bench: the conversation account has no webhook');
	const target = { url: webhook.url, secret: webhook.secret };
	if (
		(await postJson(target.url, receivedIn(chat, 'Where is my order?'), {
			'x-service-secret': target.secret,
		})) !== 200
	)
		throw new Error('bench: the first message was not taken');
	await sentTo(bench, chat, since, (t) => t === QUESTION);
	await untilWaiting(bench.stack.client, oursId);
	const t0 = Date.now();
	const status = await postJson(target.url, receivedIn(chat, 'A-1234'), {
		'x-service-secret': target.secret,
	});
	if (status !== 200) throw new Error(`bench: the reply got ${status}`);
	return (await sentTo(bench, chat, since, (t) => t === FOLLOW_UP)).at - t0;
}

/** One conversation of the alternative: the POST to the resume URL to the Reply's request, ms. */
async function alternativeOnce({ bench, alternativeId }: Prepared): Promise<number> {
	const chat = nextChat();
	const since = Date.now();
	if ((await postJson(`${bench.stack.n8nUrl}/webhook/${START_PATH}`, { chat })) !== 200)
		throw new Error('bench: the start webhook failed');
	const resumeUrl = (await sentTo(bench, chat, since, (t) => t.includes('/webhook-waiting/'))).text;
	await untilWaiting(bench.stack.client, alternativeId);
	// n8n's resume URL carries its public address; the bench reaches n8n directly.
	const url = new URL(resumeUrl);
	const t0 = Date.now();
	const status = await postJson(`${bench.stack.n8nUrl}${url.pathname}${url.search}`, {
		text: 'A-1234',
	});
	if (status !== 200) throw new Error(`bench: the resume got ${status}`);
	return (await sentTo(bench, chat, since, (t) => t === FOLLOW_UP)).at - t0;
}

export async function measureConversations(stacks: BenchStack[]): Promise<Row[]> {
	const count = fromEnv('BENCH_CONV_COUNT', 20);
	const rounds = fromEnv('BENCH_CONV_ROUNDS', 3);
	say(
		`6. conversations: ${count} answers per round and side, ${rounds} rounds, ours / alternative and settings alternating`,
	);
	const prepared: Prepared[] = [];
	for (const bench of stacks) prepared.push(await prepare(bench));
	// Round -1 warms up (one conversation each).
	for (let r = -1; r < rounds; r++) {
		const n = r < 0 ? 1 : count;
		for (let i = 0; i < n; i++) {
			for (const p of prepared) {
				const a = await oursOnce(p);
				const b = await alternativeOnce(p);
				if (r >= 0) {
					p.oursMs.push(a);
					p.alternativeMs.push(b);
				}
			}
		}
	}
	const answers = prepared[0]?.oursMs.length ?? 0;
	const row: Row = {
		section: 6,
		label: `a contact's answer to the resumed run's next request, p50 / p99, ms: Send and Wait for Reply through the trigger vs n8n's Wait node resumed at its URL directly (${answers} answers each)`,
		bySetting: {},
	};
	for (const { bench, oursMs, alternativeMs } of prepared) {
		const [o50, o99, a50, a99] = [
			percentile(oursMs, 50),
			percentile(oursMs, 99),
			percentile(alternativeMs, 50),
			percentile(alternativeMs, 99),
		];
		say(
			`   ${bench.setting.label}: ours ${pair(o50, o99)} ms, alternative ${pair(a50, a99)} ms (${oursMs.length} each)`,
		);
		row.bySetting[bench.setting.key] = [
			pair(o50, o99),
			pair(a50, a99),
			`${ratio(o50, a50)} / ${ratio(o99, a99)}`,
		];
	}
	return [row];
}
