'use strict';
/**
 * `npm run bench`: side-by-side measurements in one run on this machine, reported as ratios.
 *   1. Inbound through the real n8n: our trigger (versions 1 and 2) vs n8n's Webhook node + IF on
 *      x-service-secret, and the auto-reply pair (trigger → Reply vs Webhook → IF → HTTP Request),
 *      as n8n ships and under each of its expression-engine settings (lazy acquire, compile cache,
 *      legacy), each in a fresh n8n.
 *   2. Outbound, 500 messages, 25 ms added latency: our node (default and tuned Messages in
 *      Flight) vs n8n's HTTP Request node (default and with batching).
 *   3. CPU per event of webhook()'s work (verify + parse + shape) vs a minimal handler (verify +
 *      pass through); the package's cold load time and packed size.
 *   4. Sharing one account's webhook (docs/shared-webhook.md): 1, 2 and 4 trigger workflows on one
 *      account vs 4 workflows on 4 accounts of their own, executions per second in total.
 *   5. Queue mode (scripts/lib/benchQueue.js): the auto-reply workflow in one n8n process vs a
 *      webhook process + 2 workers, replies/s and CPU per delivery in each process kind.
 * Prints a Markdown table and writes it to scripts/bench-results.md.
 */
const { execFileSync, spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, writeFileSync } = require('node:fs');
const { cpus, tmpdir, totalmem } = require('node:os');
const { join } = require('node:path');

const { startStack, repoRoot } = require('./lib/stack');
const { say } = require('./lib/runtime');
const { measureQueue, processesFor } = require('./lib/benchQueue');

const N8N_PORT = Number(process.env.BENCH_N8N_PORT ?? 5878);
const SIM_PORT = Number(process.env.BENCH_SIM_PORT ?? 5880);
const INBOUND = Number(process.env.BENCH_INBOUND ?? 600);
const INBOUND_CONCURRENCY = 8;
const OUTBOUND = 500;
const LATENCY_MS = 25;
const TUNED_IN_FLIGHT = 500;
const BATCH_SIZE = 100;
const OUTBOUND_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Deliveries per measurement with 4 workflows (fewer workflows get as many executions, not deliveries). */
const SHARE_EXECUTIONS = Number(process.env.BENCH_SHARE_EXECUTIONS ?? 600);
const SHARE_ROUNDS = Number(process.env.BENCH_SHARE_ROUNDS ?? 3);
const REPLY_TEXT = 'Thanks, we got your message';
const QUEUE_DELIVERIES = Number(process.env.BENCH_QUEUE_DELIVERIES ?? 300);
const QUEUE_ROUNDS = Number(process.env.BENCH_QUEUE_ROUNDS ?? 3);
const QUEUE_PORT_BASE = Number(process.env.BENCH_QUEUE_PORT_BASE ?? 5910);

const percentile = (values, p) => {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const round = (n, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

async function json(method, url, body, headers = {}) {
	const response = await fetch(url, {
		method,
		headers: { 'content-type': 'application/json', connection: 'close', ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`${method} ${url} → ${response.status} ${text.slice(0, 200)}`);
	return text ? JSON.parse(text) : {};
}

// ---------- 3. CPU per event, cold load, size (no n8n needed) ----------

function cpuPerEvent() {
	const { secretMatches } = require('../dist/nodes/MessagingRelayTrigger/verifySecret');
	const { readDelivery } = require('../dist/nodes/MessagingRelayTrigger/readDelivery');
	const { eventItem, unknownEventItem } = require('../dist/nodes/MessagingRelayTrigger/eventItem');
	const samples = Object.values(require('../test/fixtures/sample-events.json'));
	const secret = 'whsec_' + 'a'.repeat(48);
	const bodies = samples.map((event) => Buffer.from(JSON.stringify(event)));
	const full = (raw) => {
		if (!secretMatches(secret, secret)) return undefined;
		const delivery = readDelivery({ rawBody: raw });
		return delivery.kind === 'valid' ? eventItem(delivery.event) : unknownEventItem(delivery.body ?? {});
	};
	const minimal = (raw) => {
		if (!secretMatches(secret, secret)) return undefined;
		return JSON.parse(raw.toString('utf8'));
	};
	const measure = (fn, n) => {
		const start = process.cpuUsage();
		for (let i = 0; i < n; i++) fn(bodies[i % bodies.length]);
		const used = process.cpuUsage(start);
		return ((used.user + used.system) / n);
	};
	const rounds = { full: [], minimal: [] };
	for (let r = 0; r < 5; r++) {
		measure(full, 2000);
		measure(minimal, 2000);
		rounds.full.push(measure(full, 20000));
		rounds.minimal.push(measure(minimal, 20000));
	}
	const fullUs = percentile(rounds.full, 50);
	const minimalUs = percentile(rounds.minimal, 50);
	return { fullUs: round(fullUs, 2), minimalUs: round(minimalUs, 2), ratio: round(fullUs / minimalUs, 2) };
}

function coldLoadAndSize() {
	const time = (args) => {
		const samples = [];
		for (let i = 0; i < 7; i++) {
			const start = process.hrtime.bigint();
			execFileSync(process.execPath, args, { cwd: repoRoot });
			samples.push(Number(process.hrtime.bigint() - start) / 1e6);
		}
		return percentile(samples, 50);
	};
	const bare = time(['-e', '']);
	const withPackage = time([
		'-e',
		"require('./dist/nodes/MessagingRelay/MessagingRelay.node.js');require('./dist/nodes/MessagingRelayTrigger/MessagingRelayTrigger.node.js');require('./dist/credentials/MessagingRelayApi.credentials.js')",
	]);
	const out = mkdtempSync(join(tmpdir(), 'relay-bench-pack-'));
	const packed = JSON.parse(
		spawnSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: repoRoot, encoding: 'utf8' }).stdout,
	)[0];
	return {
		loadMs: round(withPackage - bare, 0),
		bareNodeMs: round(bare, 0),
		packedKb: round(packed.size / 1024, 1),
		unpackedKb: round(packed.unpackedSize / 1024, 1),
		files: packed.entryCount,
	};
}

// ---------- workflows ----------

const webhookId = (n) => `b3e0c1d2-0000-4000-8000-00000000000${n}`;

/** A credential for one simulator account (its API key), as { id, name } for workflow nodes. */
async function accountCredential(client, simUrl, name, apiKey) {
	const created = await client.createCredential(name, { baseUrl: simUrl, apiKey, authHeader: 'xApiKey' });
	return { id: created.id, name: created.name };
}

/** Our trigger alone (version 1 or 2), or followed by Reply: the auto-reply a user of this package builds. */
function triggerWorkflowData(name, credential, { version, id, reply = false }) {
	const nodes = [
		{
			id: 't',
			name: 'Relay Trigger',
			type: 'n8n-nodes-messaging-relay.messagingRelayTrigger',
			typeVersion: version,
			position: [0, 0],
			webhookId: id,
			parameters: { events: ['message.received'] },
			credentials: { messagingRelayApi: credential },
		},
	];
	if (reply) {
		nodes.push({
			id: 'r',
			name: 'Reply',
			type: 'n8n-nodes-messaging-relay.messagingRelay',
			typeVersion: 1,
			position: [220, 0],
			parameters: { resource: 'message', operation: 'reply', text: REPLY_TEXT },
			credentials: { messagingRelayApi: credential },
		});
	}
	return { name, nodes, connections: reply ? { 'Relay Trigger': { main: [[{ node: 'Reply', type: 'main', index: 0 }]] } } : {} };
}

async function ourInboundWorkflow(client, credential, options) {
	const name = `bench: Messaging Relay Trigger v${options.version}${options.reply ? ' → Reply' : ''}`;
	return await client.importWorkflow(triggerWorkflowData(name, credential, options), credential);
}

/** What users of peer nodes build today: n8n's Webhook node, then an IF on the header. */
async function peerInboundWorkflow(client, credential, secret, { id, path, replyWith }) {
	const nodes = [
		{
			id: 'w',
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: id,
			parameters: { httpMethod: 'POST', path, options: {} },
		},
		{
			id: 'i',
			name: 'Secret matches',
			type: 'n8n-nodes-base.if',
			typeVersion: 2.2,
			position: [220, 0],
			parameters: {
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
					conditions: [
						{
							id: 'c1',
							leftValue: '={{ $json.headers["x-service-secret"] }}',
							rightValue: secret,
							operator: { type: 'string', operation: 'equals' },
						},
					],
					combinator: 'and',
				},
				options: {},
			},
		},
	];
	const connections = { Webhook: { main: [[{ node: 'Secret matches', type: 'main', index: 0 }]] } };
	if (replyWith) {
		// The reply a user without this package builds: an HTTP Request to POST /v1/messages.
		nodes.push({
			id: 'h',
			name: 'Reply',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: [440, 0],
			parameters: {
				method: 'POST',
				url: `${replyWith.simUrl}/v1/messages`,
				sendHeaders: true,
				headerParameters: { parameters: [{ name: 'X-API-KEY', value: replyWith.apiKey }] },
				sendBody: true,
				specifyBody: 'json',
				jsonBody: `={{ JSON.stringify({ channelId: $json.body.message.channelId, to: $json.body.message.chatId, text: "${REPLY_TEXT}" }) }}`,
				options: {},
			},
		});
		connections['Secret matches'] = { main: [[{ node: 'Reply', type: 'main', index: 0 }]] };
	}
	return await client.importWorkflow(
		{ name: `bench: Webhook + IF on x-service-secret${replyWith ? ' → HTTP Request' : ''}`, nodes, connections },
		credential,
	);
}

/**
 * Posts `count` deliveries of a message.received event, INBOUND_CONCURRENCY at once, the i-th to
 * `targets[i % n]` ({ url, secret }). Every answer must be 200.
 */
let deliveriesPosted = 0;
async function postDeliveries(targets, count) {
	const event = require('../test/fixtures/sample-events.json')['message.received'];
	const latencies = [];
	let next = 0;
	const started = Date.now();
	await Promise.all(
		Array.from({ length: INBOUND_CONCURRENCY }, async () => {
			while (next < count) {
				const { url, secret } = targets[next++ % targets.length];
				// Each delivery its own event, as from a real service: a member of a shared webhook
				// runs a forwarded event only once (takenHandoffs.ts).
				const body = JSON.stringify({ ...event, deliveryId: `bench-${++deliveriesPosted}` });
				const t0 = process.hrtime.bigint();
				const response = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', 'x-service-secret': secret },
					body,
				});
				await response.arrayBuffer();
				if (response.status !== 200) throw new Error(`bench: ${url} answered ${response.status}`);
				latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
			}
		}),
	);
	return { seconds: (Date.now() - started) / 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function runInbound(url, secret, count) {
	const { seconds, p50, p99 } = await postDeliveries([{ url, secret }], count);
	return { perSecond: count / seconds, p50, p99 };
}

/** Sends `count` deliveries and waits until the service has received as many replies. */
async function runReplies(simUrl, url, secret, count) {
	const sent = async () => (await json('GET', `${simUrl}/__sim/state`)).messages.filter((m) => m.text === REPLY_TEXT).length;
	const before = await sent();
	const started = Date.now();
	const answered = await runInbound(url, secret, count);
	for (let i = 0; i < 1200 && (await sent()) < before + count; i++) await new Promise((r) => setTimeout(r, 100));
	const replies = (await sent()) - before;
	if (replies !== count) throw new Error(`bench: ${count} deliveries to ${url} gave ${replies} replies`);
	return { ...answered, perSecond: count / ((Date.now() - started) / 1000) };
}

/**
 * 1. Inbound, published side by side and loaded in alternating rounds: our trigger as version 1
 * and 2, Webhook + IF, and the auto-reply pair (trigger → Reply vs Webhook → IF → HTTP Request).
 * Each trigger has an account of its own, so none shares a webhook with another here.
 */
async function measureInbound(stack, cred) {
	say(`1. inbound: ${INBOUND} deliveries per variant (${INBOUND / 2} for the reply pair), ${INBOUND_CONCURRENCY} at once, alternating`);
	const credential = (name, apiKey) => accountCredential(stack.client, stack.simUrl, name, apiKey);
	const v2Cred = await credential('bench v2 account', 'sim-key-bench-v2');
	const replyCred = await credential('bench reply account', 'sim-key-bench-reply');
	const v1 = await ourInboundWorkflow(stack.client, cred, { version: 1, id: webhookId(1) });
	const v2 = await ourInboundWorkflow(stack.client, v2Cred, { version: 2, id: webhookId(3) });
	const ourReply = await ourInboundWorkflow(stack.client, replyCred, { version: 2, id: webhookId(4), reply: true });
	for (const { id } of [v1, v2, ourReply]) await stack.client.publish(id);
	// The peers' IF compares with the secret the service issued to our registration.
	const webhooks = await json('GET', `${stack.simUrl}/__sim/webhooks`);
	const peer = await peerInboundWorkflow(stack.client, cred, webhooks.acct_bench.secret, { id: webhookId(2), path: 'bench-peer' });
	const peerReply = await peerInboundWorkflow(stack.client, cred, webhooks.acct_bench_reply.secret, {
		id: webhookId(5),
		path: 'bench-peer-reply',
		replyWith: { simUrl: stack.simUrl, apiKey: 'sim-key-bench-reply' },
	});
	for (const { id } of [peer, peerReply]) await stack.client.publish(id);

	const ourUrl = (n) => `${stack.n8nUrl}/webhook/${webhookId(n)}/webhook`;
	const variants = {
		v1: (count) => runInbound(ourUrl(1), webhooks.acct_bench.secret, count),
		v2: (count) => runInbound(ourUrl(3), webhooks.acct_bench_v2.secret, count),
		peer: (count) => runInbound(`${stack.n8nUrl}/webhook/bench-peer`, webhooks.acct_bench.secret, count),
		ourReply: (count) => runReplies(stack.simUrl, ourUrl(4), webhooks.acct_bench_reply.secret, count / 2),
		peerReply: (count) => runReplies(stack.simUrl, `${stack.n8nUrl}/webhook/bench-peer-reply`, webhooks.acct_bench_reply.secret, count / 2),
	};
	const inbound = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
	for (const run of Object.values(variants)) await run(40); // warm-up
	for (let round = 0; round < 3; round++) {
		for (const [name, run] of Object.entries(variants)) inbound[name].push(await run(INBOUND / 3));
	}
	return inbound;
}

function outboundWorkflow(name, sender) {
	const recipients = `={{ JSON.stringify({ r: Array.from({ length: ${OUTBOUND} }, (_, i) => i) }) }}`;
	return {
		name,
		nodes: [
			{ id: 's', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
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
			Start: { main: [[{ node: 'Recipients', type: 'main', index: 0 }]] },
			Recipients: { main: [[{ node: 'One per recipient', type: 'main', index: 0 }]] },
			'One per recipient': { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
		},
	};
}

const to = '={{ "+49176" + String($json.r).padStart(7, "0") }}';

function ourSender(credential, inFlight) {
	return {
		type: 'n8n-nodes-messaging-relay.messagingRelay',
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

function httpSender(simUrl, batching) {
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
async function runOutbound(stack, workflowId) {
	const since = Date.now();
	const result = spawnSync(stack.nodeBin, [stack.n8nBin, 'execute', '--id', workflowId, '--rawOutput'], {
		env: { ...stack.env, N8N_RUNNERS_BROKER_PORT: String(N8N_PORT + 3) },
		encoding: 'utf8',
		timeout: 300000,
		maxBuffer: 256 * 2 ** 20,
	});
	if (result.status !== 0) throw new Error(`n8n execute failed: ${(result.stdout + result.stderr).slice(-500)}`);
	// The run as JSON follows n8n's own log lines.
	const run = JSON.parse(result.stdout.slice(result.stdout.search(/^\{$/m)));
	const send = run.data.resultData.runData.Send[0];
	const requests = (await json('GET', `${stack.simUrl}/__sim/requests?since=${since}`)).filter(
		(r) => r.account === 'acct_bench' && r.method === 'POST' && r.path === '/v1/messages',
	);
	if (requests.length !== OUTBOUND) throw new Error(`expected ${OUTBOUND} messages, the simulator got ${requests.length}`);
	const first = Math.min(...requests.map((r) => r.at));
	const last = Math.max(...requests.map((r) => r.doneAt ?? r.at));
	return { nodeMs: send.executionTime, wireMs: last - first };
}

/** Starts n8n (with extra environment) and the simulator, with a credential for the bench account. */
async function withStack(extraEnv, work) {
	const saved = { ...process.env };
	Object.assign(process.env, extraEnv);
	const stack = await startStack({ n8nPort: N8N_PORT, simPort: SIM_PORT, examples: false, keepUserFolder: !!process.env.BENCH_KEEP });
	process.env = saved;
	try {
		return await work(stack, await accountCredential(stack.client, stack.simUrl, 'bench account', 'sim-key-bench'));
	} finally {
		await stack.stop();
	}
}

/** 2. Every variant, round after round (drift of the machine hits all alike); medians. */
async function measureOutbound(stack, cred) {
	say(`2. outbound: ${OUTBOUND} messages, ${LATENCY_MS} ms added latency per request, ${OUTBOUND_ROUNDS} rounds`);
	await json('POST', `${stack.simUrl}/__sim/config`, { latencyMs: LATENCY_MS });
	const variants = [
		['Messaging Relay, default Messages in Flight', ourSender(cred)],
		[`Messaging Relay, Messages in Flight ${TUNED_IN_FLIGHT}`, ourSender(cred, TUNED_IN_FLIGHT)],
		['HTTP Request, default', httpSender(stack.simUrl, false)],
		[`HTTP Request, batching ${BATCH_SIZE}`, httpSender(stack.simUrl, true)],
	];
	// BENCH_SWEEP=10,25,50,100 measures our node at each setting too (to choose the default).
	for (const n of (process.env.BENCH_SWEEP ?? '').split(',').filter(Boolean)) {
		variants.push([`Messaging Relay, Messages in Flight ${n}`, ourSender(cred, Number(n))]);
	}
	const workflows = [];
	for (const [label, sender] of variants) {
		const { id } = await stack.client.importWorkflow(outboundWorkflow(`bench: ${label}`, sender), cred);
		workflows.push({ label, id, runs: [] });
	}
	for (let round = 0; round < OUTBOUND_ROUNDS; round++) {
		for (const wf of workflows) wf.runs.push(await runOutbound(stack, wf.id));
	}
	await json('POST', `${stack.simUrl}/__sim/config`, { latencyMs: 0 });
	const outbound = workflows.map(({ label, runs }) => ({
		label,
		ms: percentile(runs.map((r) => r.nodeMs), 50),
		wireMs: percentile(runs.map((r) => r.wireMs), 50),
	}));
	for (const { label, ms, wireMs } of outbound) say(`   ${label}: node ${ms} ms, first request to last answer ${wireMs} ms`);
	return outbound;
}

// ---------- 4. many workflows, one account ----------

const shareWebhookId = (group, n) => `b3e0c1d2-0000-4000-8000-0000000${group}000${n}`;

/** Waits until n8n has no execution running (the previous measurement's tail is not counted twice). */
async function settled(client) {
	for (let i = 0; i < 600; i++) {
		const running = await client.api('GET', '/executions?status=running&limit=1');
		if ((running.data ?? []).length === 0) return;
		await new Promise((r) => setTimeout(r, 200));
	}
}

/**
 * Sends `count` deliveries, INBOUND_CONCURRENCY at once, each to the registration of account
 * `accounts[i % n]` as the service would (its current URL and secret). Every answer must be 200:
 * at a shared registration that means every workflow of the account has started its execution.
 */
async function sendToAccounts(simUrl, accounts, count) {
	const webhooks = await json('GET', `${simUrl}/__sim/webhooks`);
	return await postDeliveries(accounts.map((account) => webhooks[account]), count);
}

/**
 * 4. The same number of executions per measurement in every setting: k workflows sharing one
 * account get SHARE_EXECUTIONS / k deliveries (each starts k executions); 4 separate accounts get
 * SHARE_EXECUTIONS deliveries, a quarter each. The settings alternate within each round.
 */
async function measureSharing(stack) {
	say(`4. sharing: ${SHARE_EXECUTIONS} executions per measurement, ${SHARE_ROUNDS} rounds, alternating`);
	const credential = (name, apiKey) => accountCredential(stack.client, stack.simUrl, name, apiKey);
	const sharedCredential = await credential('bench shared account', 'sim-key-bench-shared');
	const shared = [];
	const separate = [];
	for (let n = 1; n <= 4; n++) {
		const own = await credential(`bench account ${n}`, `sim-key-bench-${n}`);
		const sharing = triggerWorkflowData(`bench: shared ${n}`, sharedCredential, { version: 1, id: shareWebhookId(1, n) });
		const alone = triggerWorkflowData(`bench: separate ${n}`, own, { version: 1, id: shareWebhookId(2, n) });
		shared.push((await stack.client.importWorkflow(sharing, sharedCredential)).id);
		separate.push((await stack.client.importWorkflow(alone, own)).id);
	}
	for (const id of separate) await stack.client.publish(id);
	const published = new Set();
	const shareWith = async (k) => {
		for (const [i, id] of shared.entries()) {
			if (i < k && !published.has(id)) await stack.client.publish(id);
			if (i >= k && published.has(id)) await stack.client.unpublish(id);
			if (i < k) published.add(id);
			else published.delete(id);
		}
	};
	const settings = [
		{ label: '1 workflow on the account', k: 1 },
		{ label: '2 workflows sharing the account', k: 2 },
		{ label: '4 workflows sharing the account', k: 4 },
		{ label: '4 workflows on 4 accounts of their own', k: 0 },
	];
	const runs = new Map(settings.map((s) => [s.label, []]));
	for (let round = -1; round < SHARE_ROUNDS; round++) {
		for (const setting of settings) {
			const executions = round < 0 ? 40 : SHARE_EXECUTIONS; // round -1 warms up
			let result;
			if (setting.k > 0) {
				await shareWith(setting.k);
				result = await sendToAccounts(stack.simUrl, ['acct_bench_shared'], executions / setting.k);
				result.perWorkflow = executions / setting.k / result.seconds;
			} else {
				result = await sendToAccounts(stack.simUrl, ['acct_bench_1', 'acct_bench_2', 'acct_bench_3', 'acct_bench_4'], executions);
				result.perWorkflow = executions / 4 / result.seconds;
			}
			result.total = executions / result.seconds;
			await settled(stack.client);
			if (round >= 0) runs.get(setting.label).push(result);
		}
	}
	const rows = settings.map(({ label, k }) => {
		const r = runs.get(label);
		const median = (key) => percentile(r.map((x) => x[key]), 50);
		const line = { label, k, total: median('total'), perWorkflow: median('perWorkflow'), p50: median('p50'), p99: median('p99') };
		say(`   ${label}: ${round(line.total)} executions/s in total, ${round(line.perWorkflow)} deliveries/s per workflow, p50 ${round(line.p50)} ms, p99 ${round(line.p99)} ms`);
		return line;
	});
	return rows;
}

function sharingRows(rows) {
	if (rows.length === 0) return [];
	const separate = rows.find((r) => r.k === 0);
	return rows.map((r) =>
		r.k === 0
			? `| 4 | ${r.label}: executions/s in total; per workflow; service's answer p50 / p99, ms | ${round(r.total)}; ${round(r.perWorkflow)}; ${round(r.p50)} / ${round(r.p99)} | (the baseline) | 1 |`
			: `| 4 | ${r.label}: executions/s in total; per workflow; service's answer p50 / p99, ms | ${round(r.total)}; ${round(r.perWorkflow)}; ${round(r.p50)} / ${round(r.p99)} | ${round(separate.total)} (4 accounts of their own) | ${round(r.total / separate.total, 2)} |`,
	);
}

const summarise = (runs) =>
	runs.length === 0
		? { perSecond: NaN, p50: NaN, p99: NaN }
		: {
				perSecond: percentile(runs.map((r) => r.perSecond), 50),
				p50: percentile(runs.map((r) => r.p50), 50),
				p99: percentile(runs.map((r) => r.p99), 50),
			};

function inboundRows(label, inbound) {
	if (!inbound) return [];
	const [v1, v2, peer, ourReply, peerReply] = ['v1', 'v2', 'peer', 'ourReply', 'peerReply'].map((k) => summarise(inbound[k]));
	const ratio = (a, b) => round(a / b, 2);
	return [
		`| 1 | ${label}: deliveries/s, trigger v2 vs Webhook + IF | ${round(v2.perSecond)} | ${round(peer.perSecond)} | ${ratio(v2.perSecond, peer.perSecond)} |`,
		`| 1 | ${label}: latency p50 / p99, ms, trigger v2 vs Webhook + IF | ${round(v2.p50)} / ${round(v2.p99)} | ${round(peer.p50)} / ${round(peer.p99)} | ${ratio(v2.p50, peer.p50)} / ${ratio(v2.p99, peer.p99)} |`,
		`| 1 | ${label}: deliveries/s, trigger v1 vs Webhook + IF | ${round(v1.perSecond)} | ${round(peer.perSecond)} | ${ratio(v1.perSecond, peer.perSecond)} |`,
		`| 1 | ${label}: auto-reply, replies/s, trigger v2 → Reply vs Webhook → IF → HTTP Request | ${round(ourReply.perSecond)} | ${round(peerReply.perSecond)} | ${ratio(ourReply.perSecond, peerReply.perSecond)} |`,
	];
}

function queueRows([label, queue]) {
	if (!queue) return [];
	const { single, queue: q } = queue;
	const ms = (x) => round(x, 1);
	const w = q.msPerDelivery;
	const others = w['load balancer'] + w.main + w['Postgres + Redis'];
	const rows = [
		`| 5 | ${label}: auto-reply replies/s; answer p50 / p99, ms: queue mode (webhook process + 2 workers) vs one n8n process | ${round(q.perSecond)}; ${round(q.p50)} / ${round(q.p99)} | ${round(single.perSecond)}; ${round(single.p50)} / ${round(single.p99)} | ${round(q.perSecond / single.perSecond, 2)} |`,
		`| 5 | ${label}: CPU per delivery, ms: queue mode webhook process / both workers / load balancer / main / Postgres + Redis vs the one process | ${ms(w.webhook)} / ${ms(w.workers)} / ${ms(w['load balancer'])} / ${ms(w.main)} / ${ms(w['Postgres + Redis'])} | ${ms(single.msPerDelivery.main)} | ${round((w.webhook + w.workers + others) / single.msPerDelivery.main, 2)} |`,
	];
	// On paper: each process uses at most one core; 70 % of it leaves room for bursts.
	for (const rate of [100, 1000]) {
		rows.push(
			`| 5 | ${label}: on paper for ${rate} deliveries/s (70 % of a core each): webhook processes / workers; cores incl. balancer, main, Postgres + Redis | ${processesFor(rate, w.webhook)} / ${processesFor(rate, w.workers)}; ${round((rate * (w.webhook + w.workers + others)) / 1000 / 0.7, 1)} | | |`,
		);
	}
	return rows;
}

/**
 * With BENCH_ONLY, the rows of the sections not run this time are taken from the previous
 * scripts/bench-results.md (marked with the date line they came from), so the file always
 * holds every section and says which figures are from when.
 */
function keepRowsNotMeasured(lines, only) {
	const file = join(repoRoot, 'scripts', 'bench-results.md');
	if (!only || !existsSync(file)) return lines;
	const sectionOf = { inbound: '1', outbound: '2', sharing: '4', queue: '5' };
	const ran = new Set(['3', ...only.split(',').map((name) => sectionOf[name])]);
	const previous = readFileSync(file, 'utf8').split('\n');
	const kept = previous.filter((line) => /^\| \d \|/.test(line) && !ran.has(line.split('|')[1].trim()));
	const fresh = lines.slice(4).filter((line) => ran.has(line.split('|')[1].trim()));
	const rows = [...kept, ...fresh].sort((a, b) => Number(a.split('|')[1]) - Number(b.split('|')[1]));
	// Only the previous run's own date line is quoted, so the header does not nest on every partial run.
	const header = `${lines[0]} Sections ${[...ran].sort().join(', ')} were measured now (BENCH_ONLY=${only}); the other rows are kept from the previous run: "${previous[0].replace(/ Sections .*$/, '')}"`;
	return [header, ...lines.slice(1, 4), ...rows];
}

async function main() {
	say('building');
	spawnSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'ignore' });
	say('3. CPU per event, cold load, packed size');
	const cpu = cpuPerEvent();
	const load = coldLoadAndSize();

	const only = process.env.BENCH_ONLY;
	// BENCH_ONLY=inbound,outbound,sharing,queue (any of them) runs those sections; the others' rows stay empty.
	const runs = (section) => !only || only.split(',').includes(section);
	const { inbound, outbound, sharing } = await withStack({}, async (stack, cred) => ({
		inbound: runs('inbound') ? await measureInbound(stack, cred) : undefined,
		outbound: runs('outbound') ? await measureOutbound(stack, cred) : [],
		sharing: runs('sharing') ? await measureSharing(stack) : [],
	}));
	// Queue mode as shipped and with lazy acquire (the setting section 1 recommends), the same
	// environment in the one process and in every process of the queue deployment.
	// BENCH_QUEUE_ENGINES=0 measures n8n as shipped only.
	const queueSettings = [['n8n as shipped', {}]];
	if (process.env.BENCH_QUEUE_ENGINES !== '0') queueSettings.push(['`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true`', { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' }]);
	const queue = [];
	if (runs('queue')) {
		for (const [label, env] of queueSettings) {
			const kit = { accountCredential, ourInboundWorkflow, runReplies, json, say, percentile, webhookId };
			queue.push([label, await withStack(env, (stack) => measureQueue(stack, kit, { deliveries: QUEUE_DELIVERIES, rounds: QUEUE_ROUNDS, portBase: QUEUE_PORT_BASE, env, label }))]);
		}
	}
	// The inbound comparison again under n8n's expression-engine settings (n8n 2.41.1,
	// @n8n/config expression-engine.config.js): lazy acquire builds an isolate only when an
	// expression is evaluated (n8n marks it experimental), the compile cache keeps compiled
	// expressions, the legacy engine uses no isolates at all. BENCH_ENGINES=0 skips them.
	const engines = [
		['N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true', { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' }],
		['N8N_EXPRESSION_ENGINE_COMPILE_CACHE=true', { N8N_EXPRESSION_ENGINE_COMPILE_CACHE: 'true' }],
		['N8N_EXPRESSION_ENGINE=legacy', { N8N_EXPRESSION_ENGINE: 'legacy' }],
	];
	const engineInbound = [];
	if (runs('inbound') && process.env.BENCH_ENGINES !== '0') {
		for (const [label, env] of engines) engineInbound.push([label, await withStack(env, measureInbound)]);
	}

	const { DEFAULT_MESSAGES_IN_FLIGHT } = require('../dist/nodes/MessagingRelay/actions/message');
	const ideal = (inFlight) => (OUTBOUND * LATENCY_MS) / Math.min(inFlight, OUTBOUND);
	const [ourDefault, ourTuned, httpDefault, httpBatched] = outbound.length ? outbound : Array(4).fill({ ms: NaN, wireMs: NaN });
	const lines = [
		`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0].model.trim()}, ${round(totalmem() / 2 ** 30, 0)} GiB, n8n 2.41.1 on Node 24 (\`npm run bench\`).`,
		'',
		'| # | Measurement | Ours | Alternative | Ratio (ours ÷ alternative) |',
		'|---|---|---|---|---|',
		...inboundRows('n8n as shipped', inbound),
		...engineInbound.flatMap(([label, result]) => inboundRows(`\`${label}\``, result)),
		`| 2 | ${OUTBOUND} messages, Send node's run time, default (ours ${DEFAULT_MESSAGES_IN_FLIGHT} in flight), ms | ${ourDefault.ms} | ${httpDefault.ms} (HTTP Request default) | ${round(ourDefault.ms / httpDefault.ms, 2)} |`,
		`| 2 | ${OUTBOUND} messages, Send node's run time, tuned (ours ${TUNED_IN_FLIGHT} in flight), ms | ${ourTuned.ms} | ${httpBatched.ms} (HTTP Request, batching ${BATCH_SIZE}) | ${round(ourTuned.ms / httpBatched.ms, 2)} |`,
		`| 2 | First request to last answer at the service, default / tuned, ms | ${ourDefault.wireMs} / ${ourTuned.wireMs} | ${httpDefault.wireMs} / ${httpBatched.wireMs} | ${round(ourDefault.wireMs / httpDefault.wireMs, 2)} / ${round(ourTuned.wireMs / httpBatched.wireMs, 2)} |`,
		`| 2 | Ours vs ideal (messages × latency ÷ in flight), first request to last answer, default / tuned, ms | ${ourDefault.wireMs} / ${ourTuned.wireMs} | ${ideal(DEFAULT_MESSAGES_IN_FLIGHT)} / ${ideal(TUNED_IN_FLIGHT)} | ${round(ourDefault.wireMs / ideal(DEFAULT_MESSAGES_IN_FLIGHT), 2)} / ${round(ourTuned.wireMs / ideal(TUNED_IN_FLIGHT), 2)} |`,
		`| 3 | CPU per event, µs (verify + parse + shape vs verify + pass through) | ${cpu.fullUs} | ${cpu.minimalUs} | ${cpu.ratio} |`,
		`| 3 | Cold load of the package's three modules, ms (over a bare \`node\` of ${load.bareNodeMs} ms) | ${load.loadMs} | | |`,
		`| 3 | Packed size | ${load.packedKb} KiB (${load.unpackedKb} KiB unpacked, ${load.files} files) | | |`,
		...sharingRows(sharing),
		...queue.flatMap(queueRows),
	];
	const table = keepRowsNotMeasured(lines, only).join('\n');
	console.log(`\n${table}\n`);
	writeFileSync(join(repoRoot, 'scripts', 'bench-results.md'), `${table}\n`);
	say('written to scripts/bench-results.md');
}

main().catch((error) => {
	console.error(`Benchmark failed: ${error.stack ?? error.message}${error.cause ? ` (${error.cause.message ?? error.cause})` : ''}`);
	process.exit(1);
});
