/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Section 2, outbound: BENCH_OUTBOUND messages (500) with 25 ms added latency per request at the
 * simulator, sent by our node (default and tuned Messages in Flight) and by n8n's HTTP Request
 * node (default and with batching), each workflow run with `n8n execute`. Every variant in every
 * setting, round after round (BENCH_ROUNDS, 5); medians.
 */
import type { IDataObject } from 'n8n-workflow';

import { DEFAULT_MESSAGES_IN_FLIGHT } from '../../nodes/MessagingRelay/actions/message';
import { say } from '../../test/support/stack/runtime';
import { runN8nCli } from '../../test/support/stack/stackFile';
import {
	createWorkflow,
	NODE_TYPES,
	type CredentialRef,
	type WorkflowData,
} from '../../test/support/workflows';
import { median, round } from './measure';
import { fromEnv } from './settings';
import type { BenchStack } from './stacks';
import { ratio, type Row } from './table';

const LATENCY_MS = 25;
const TUNED_IN_FLIGHT = 500;
const BATCH_SIZE = 100;
const to = '={{ "+49176" + String($json.r).padStart(7, "0") }}';

/** Start → a Set that makes `messages` recipients → Split Out → the sender. */
function outboundWorkflow(name: string, sender: IDataObject, messages: number): WorkflowData {
	const recipients = `={{ JSON.stringify({ r: Array.from({ length: ${messages} }, (_, i) => i) }) }}`;
	const then = (node: string) => ({ main: [[{ node, type: 'main', index: 0 }]] });
	return {
		name,
		nodes: [
			{
				id: 's',
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: 'm',
				name: 'Recipients',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [200, 0],
				parameters: { mode: 'raw', jsonOutput: recipients, options: {} },
			},
			{
				id: 'x',
				name: 'One per recipient',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [400, 0],
				parameters: { fieldToSplitOut: 'r', options: {} },
			},
			{ ...sender, id: 'o', name: 'Send', position: [600, 0] },
		],
		connections: {
			Start: then('Recipients'),
			Recipients: then('One per recipient'),
			'One per recipient': then('Send'),
		},
	};
}

function ourSender(credential: CredentialRef, inFlight?: number): IDataObject {
	return {
		type: NODE_TYPES.action,
		typeVersion: 1,
		parameters: {
			resource: 'message',
			operation: 'send',
			channelId: { __rl: true, mode: 'id', value: 'num_main' },
			to,
			text: 'bench',
			...(inFlight ? { options: { messagesInFlight: inFlight } } : {}),
		},
		credentials: { messagingRelayApi: credential },
	};
}

function httpSender(simUrl: string, batching: boolean): IDataObject {
	return {
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'POST',
			url: `${simUrl}/v1/messages`,
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'X-API-KEY', value: 'sim-key-bench' }] },
			sendBody: true,
			specifyBody: 'json',
			jsonBody: `={{ JSON.stringify({ channelId: "num_main", to: "+49176" + String($json.r).padStart(7, "0"), text: "bench" }) }}`,
			options: batching ? { batching: { batch: { batchSize: BATCH_SIZE, batchInterval: 0 } } } : {},
		},
	};
}

/**
 * Runs a workflow with `n8n execute` and measures it twice: the Send node's own run time as n8n
 * records it (executionTime: evaluating its parameters, building, sending and answering every
 * request, which is what a user waits for), and, at the simulator, first request to last answer.
 */
async function runOutbound(bench: BenchStack, workflowId: string, messages: number) {
	const since = Date.now();
	const result = runN8nCli(bench.stack, ['execute', '--id', workflowId, '--rawOutput']);
	if (result.status !== 0)
		throw new Error(`n8n execute failed: ${(result.stdout + result.stderr).slice(-500)}`);
	// The run as indented JSON ({ and } alone on their lines), between n8n's own log lines.
	const json = /^\{$[\s\S]*?^\}$/m.exec(result.stdout);
	if (!json) throw new Error(`n8n execute printed no run: ${result.stdout.slice(-500)}`);
	const run = JSON.parse(json[0]) as {
		data: { resultData: { runData: Record<string, Array<{ executionTime: number }>> } };
	};
	const send = run.data.resultData.runData.Send[0];
	const requests = (await bench.simulator.requests(since)).filter(
		(r) => r.account === 'acct_bench' && r.method === 'POST' && r.path === '/v1/messages',
	);
	if (requests.length !== messages)
		throw new Error(`expected ${messages} messages, the simulator got ${requests.length}`);
	const first = Math.min(...requests.map((r) => r.at));
	const last = Math.max(...requests.map((r) => r.doneAt ?? r.at));
	return { nodeMs: send.executionTime, wireMs: last - first };
}

export async function measureOutbound(stacks: BenchStack[]): Promise<Row[]> {
	const messages = fromEnv('BENCH_OUTBOUND', 500);
	const rounds = fromEnv('BENCH_ROUNDS', 5);
	say(
		`2. outbound: ${messages} messages, ${LATENCY_MS} ms added latency per request, ${rounds} alternating rounds`,
	);
	const labels = [
		'ourDefault',
		'ourTuned',
		'httpDefault',
		'httpBatched',
		...(process.env.BENCH_SWEEP ?? '').split(',').filter(Boolean),
	];
	const workflows = new Map<
		BenchStack,
		Array<{ label: string; id: string; runs: Array<{ nodeMs: number; wireMs: number }> }>
	>();
	for (const bench of stacks) {
		const credential = await bench.credential('bench account', 'sim-key-bench');
		const simUrl = bench.stack.simUrl as string;
		// BENCH_SWEEP=10,25,50,100 measures our node at each setting too (to choose the default).
		const senders: Record<string, IDataObject> = {
			ourDefault: ourSender(credential),
			ourTuned: ourSender(credential, TUNED_IN_FLIGHT),
			httpDefault: httpSender(simUrl, false),
			httpBatched: httpSender(simUrl, true),
		};
		const list = [];
		for (const label of labels) {
			const sender = senders[label] ?? ourSender(credential, Number(label));
			list.push({
				label,
				id: await createWorkflow(
					bench.stack.client,
					outboundWorkflow(`bench: outbound ${label}`, sender, messages),
				),
				runs: [],
			});
		}
		workflows.set(bench, list);
		await bench.simulator.configure({ latencyMs: LATENCY_MS });
	}
	for (let round = 0; round < rounds; round++) {
		for (const [bench, list] of workflows)
			for (const wf of list) wf.runs.push(await runOutbound(bench, wf.id, messages));
	}
	const results = new Map<BenchStack, Record<string, { ms: number; wireMs: number }>>();
	for (const [bench, list] of workflows) {
		await bench.simulator.configure({ latencyMs: 0 });
		const byLabel = Object.fromEntries(
			list.map(({ label, runs }) => [
				label,
				{ ms: median(runs.map((r) => r.nodeMs)), wireMs: median(runs.map((r) => r.wireMs)) },
			]),
		);
		for (const [label, { ms, wireMs }] of Object.entries(byLabel))
			say(
				`   ${bench.setting.label}, ${label}: node ${ms} ms, first request to last answer ${wireMs} ms`,
			);
		results.set(bench, byLabel);
	}
	const ideal = (inFlight: number) => (messages * LATENCY_MS) / Math.min(inFlight, messages);
	const line = (
		label: string,
		cells: (
			r: Record<string, { ms: number; wireMs: number }>,
		) => [string | number, string | number, string | number],
	): Row => ({
		section: 2,
		label,
		bySetting: Object.fromEntries(
			stacks.map((bench) => [
				bench.setting.key,
				cells(results.get(bench) as Record<string, { ms: number; wireMs: number }>),
			]),
		),
	});
	return [
		line(
			`${messages} messages, Send node's run time, default (ours ${DEFAULT_MESSAGES_IN_FLIGHT} in flight vs HTTP Request default), ms`,
			(r) => [r.ourDefault.ms, r.httpDefault.ms, ratio(r.ourDefault.ms, r.httpDefault.ms)],
		),
		line(
			`${messages} messages, Send node's run time, tuned (ours ${TUNED_IN_FLIGHT} in flight vs HTTP Request, batching ${BATCH_SIZE}), ms`,
			(r) => [r.ourTuned.ms, r.httpBatched.ms, ratio(r.ourTuned.ms, r.httpBatched.ms)],
		),
		line('First request to last answer at the service, default / tuned, ms', (r) => [
			`${r.ourDefault.wireMs} / ${r.ourTuned.wireMs}`,
			`${r.httpDefault.wireMs} / ${r.httpBatched.wireMs}`,
			`${ratio(r.ourDefault.wireMs, r.httpDefault.wireMs)} / ${ratio(r.ourTuned.wireMs, r.httpBatched.wireMs)}`,
		]),
		line(
			'Ours vs ideal (messages × latency ÷ in flight), first request to last answer, default / tuned, ms',
			(r) => [
				`${r.ourDefault.wireMs} / ${r.ourTuned.wireMs}`,
				`${round(ideal(DEFAULT_MESSAGES_IN_FLIGHT))} / ${round(ideal(TUNED_IN_FLIGHT))}`,
				`${ratio(r.ourDefault.wireMs, ideal(DEFAULT_MESSAGES_IN_FLIGHT))} / ${ratio(r.ourTuned.wireMs, ideal(TUNED_IN_FLIGHT))}`,
			],
		),
	];
}
