'use strict';
/**
 * `npm run bench`: side-by-side measurements in one run on this machine, reported as ratios.
 *   1. Inbound through the real n8n: our trigger vs n8n's Webhook node + IF on x-service-secret,
 *      with n8n's default expression engine and again with its legacy one.
 *   2. Outbound, 500 messages, 25 ms added latency: our node (default and tuned Messages in
 *      Flight) vs n8n's HTTP Request node (default and with batching).
 *   3. CPU per event of webhook()'s work (verify + parse + shape) vs a minimal handler (verify +
 *      pass through); the package's cold load time and packed size.
 * Prints a Markdown table and writes it to scripts/bench-results.md.
 */
const { execFileSync, spawnSync } = require('node:child_process');
const { writeFileSync, mkdtempSync } = require('node:fs');
const { cpus, tmpdir, totalmem } = require('node:os');
const { join } = require('node:path');

const { startStack, repoRoot } = require('./lib/stack');
const { say } = require('./lib/runtime');

const N8N_PORT = Number(process.env.BENCH_N8N_PORT ?? 5878);
const SIM_PORT = Number(process.env.BENCH_SIM_PORT ?? 5880);
const INBOUND = Number(process.env.BENCH_INBOUND ?? 600);
const INBOUND_CONCURRENCY = 8;
const OUTBOUND = 500;
const LATENCY_MS = 25;
const TUNED_IN_FLIGHT = 500;
const BATCH_SIZE = 100;
const OUTBOUND_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

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

async function ourInboundWorkflow(client, credential) {
	return await client.importWorkflow(
		{
			name: 'bench: Messaging Relay Trigger',
			nodes: [
				{
					id: 't',
					name: 'Relay Trigger',
					type: 'n8n-nodes-messaging-relay.messagingRelayTrigger',
					typeVersion: 1,
					position: [0, 0],
					webhookId: webhookId(1),
					parameters: { events: ['message.received'] },
					credentials: { messagingRelayApi: credential },
				},
			],
			connections: {},
		},
		credential,
	);
}

/** What users of peer nodes build today: n8n's Webhook node, then an IF on the header. */
async function peerInboundWorkflow(client, credential, secret) {
	return await client.importWorkflow(
		{
			name: 'bench: Webhook + IF on x-service-secret',
			nodes: [
				{
					id: 'w',
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: webhookId(2),
					parameters: { httpMethod: 'POST', path: 'bench-peer', options: {} },
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
			],
			connections: { Webhook: { main: [[{ node: 'Secret matches', type: 'main', index: 0 }]] } },
		},
		credential,
	);
}

async function runInbound(url, secret, count) {
	const body = JSON.stringify(require('../test/fixtures/sample-events.json')['message.received']);
	const latencies = [];
	let next = 0;
	const started = Date.now();
	await Promise.all(
		Array.from({ length: INBOUND_CONCURRENCY }, async () => {
			while (next < count) {
				next++;
				const t0 = process.hrtime.bigint();
				const response = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', 'x-service-secret': secret },
					body,
				});
				await response.arrayBuffer();
				if (response.status !== 200) throw new Error(`inbound ${url} answered ${response.status}`);
				latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
			}
		}),
	);
	const seconds = (Date.now() - started) / 1000;
	return { perSecond: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** 1. Our trigger and a Webhook + IF workflow, published side by side, loaded in alternating rounds. */
async function measureInbound(stack, cred) {
	say(`1. inbound: ${INBOUND} deliveries each, ${INBOUND_CONCURRENCY} at once, alternating`);
	const ours = await ourInboundWorkflow(stack.client, cred);
	await stack.client.publish(ours.id);
	// The peer's IF compares with the secret the service issued to our registration.
	const secret = (await json('GET', `${stack.simUrl}/__sim/webhooks`)).acct_bench.secret;
	const peer = await peerInboundWorkflow(stack.client, cred, secret);
	await stack.client.publish(peer.id);
	const oursUrl = `${stack.n8nUrl}/webhook/${webhookId(1)}/webhook`;
	const peerUrl = `${stack.n8nUrl}/webhook/bench-peer`;
	await runInbound(oursUrl, secret, 50); // warm-up
	await runInbound(peerUrl, secret, 50);
	const inbound = { ours: [], peer: [] };
	for (let round = 0; round < 3; round++) {
		inbound.ours.push(await runInbound(oursUrl, secret, INBOUND / 3));
		inbound.peer.push(await runInbound(peerUrl, secret, INBOUND / 3));
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
		const credential = await stack.client.createCredential('bench account', {
			baseUrl: stack.simUrl,
			apiKey: 'sim-key-bench',
			authHeader: 'xApiKey',
		});
		return await work(stack, { id: credential.id, name: credential.name });
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

const summarise = (runs) =>
	runs.length === 0
		? { perSecond: NaN, p50: NaN, p99: NaN }
		: {
				perSecond: percentile(runs.map((r) => r.perSecond), 50),
				p50: percentile(runs.map((r) => r.p50), 50),
				p99: percentile(runs.map((r) => r.p99), 50),
			};

function inboundRows(label, inbound) {
	const ours = summarise(inbound.ours);
	const peer = summarise(inbound.peer);
	return [
		`| 1 | Inbound deliveries/s, ${label} | ${round(ours.perSecond)} | ${round(peer.perSecond)} | ${round(ours.perSecond / peer.perSecond, 2)} |`,
		`| 1 | Inbound latency p50 / p99, ms, ${label} | ${round(ours.p50)} / ${round(ours.p99)} | ${round(peer.p50)} / ${round(peer.p99)} | ${round(ours.p50 / peer.p50, 2)} / ${round(ours.p99 / peer.p99, 2)} |`,
	];
}

async function main() {
	say('building');
	spawnSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'ignore' });
	say('3. CPU per event, cold load, packed size');
	const cpu = cpuPerEvent();
	const load = coldLoadAndSize();

	const only = process.env.BENCH_ONLY;
	const noInbound = { ours: [], peer: [] };
	const { inbound, outbound } = await withStack({}, async (stack, cred) => ({
		inbound: only === 'outbound' ? noInbound : await measureInbound(stack, cred),
		outbound: only === 'inbound' ? [] : await measureOutbound(stack, cred),
	}));
	// The same inbound comparison with n8n's legacy expression engine, which creates no
	// isolated-vm isolate per run: n8n 2.41 skips the webhook phase's isolate for its own Webhook
	// node only, so this shows what of the gap is that isolate and what is the trigger's.
	const legacyInbound =
		only === 'outbound' || process.env.BENCH_LEGACY === '0'
			? noInbound
			: await withStack({ N8N_EXPRESSION_ENGINE: 'legacy' }, measureInbound);

	const { DEFAULT_MESSAGES_IN_FLIGHT } = require('../dist/nodes/MessagingRelay/actions/message');
	const ideal = (inFlight) => (OUTBOUND * LATENCY_MS) / Math.min(inFlight, OUTBOUND);
	const [ourDefault, ourTuned, httpDefault, httpBatched] = outbound.length ? outbound : Array(4).fill({ ms: NaN, wireMs: NaN });
	const lines = [
		`Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0].model.trim()}, ${round(totalmem() / 2 ** 30, 0)} GiB, n8n 2.41.1 on Node 24 (\`npm run bench\`).`,
		'',
		'| # | Measurement | Ours | Alternative | Ratio (ours ÷ alternative) |',
		'|---|---|---|---|---|',
		...inboundRows("trigger vs Webhook + IF, n8n's default expression engine", inbound),
		...inboundRows('same, with `N8N_EXPRESSION_ENGINE=legacy`', legacyInbound),
		`| 2 | ${OUTBOUND} messages, Send node's run time, default (ours ${DEFAULT_MESSAGES_IN_FLIGHT} in flight), ms | ${ourDefault.ms} | ${httpDefault.ms} (HTTP Request default) | ${round(ourDefault.ms / httpDefault.ms, 2)} |`,
		`| 2 | ${OUTBOUND} messages, Send node's run time, tuned (ours ${TUNED_IN_FLIGHT} in flight), ms | ${ourTuned.ms} | ${httpBatched.ms} (HTTP Request, batching ${BATCH_SIZE}) | ${round(ourTuned.ms / httpBatched.ms, 2)} |`,
		`| 2 | First request to last answer at the service, default / tuned, ms | ${ourDefault.wireMs} / ${ourTuned.wireMs} | ${httpDefault.wireMs} / ${httpBatched.wireMs} | ${round(ourDefault.wireMs / httpDefault.wireMs, 2)} / ${round(ourTuned.wireMs / httpBatched.wireMs, 2)} |`,
		`| 2 | Ours vs ideal (messages × latency ÷ in flight), first request to last answer, default / tuned, ms | ${ourDefault.wireMs} / ${ourTuned.wireMs} | ${ideal(DEFAULT_MESSAGES_IN_FLIGHT)} / ${ideal(TUNED_IN_FLIGHT)} | ${round(ourDefault.wireMs / ideal(DEFAULT_MESSAGES_IN_FLIGHT), 2)} / ${round(ourTuned.wireMs / ideal(TUNED_IN_FLIGHT), 2)} |`,
		`| 3 | CPU per event, µs (verify + parse + shape vs verify + pass through) | ${cpu.fullUs} | ${cpu.minimalUs} | ${cpu.ratio} |`,
		`| 3 | Cold load of the package's three modules, ms (over a bare \`node\` of ${load.bareNodeMs} ms) | ${load.loadMs} | | |`,
		`| 3 | Packed size | ${load.packedKb} KiB (${load.unpackedKb} KiB unpacked, ${load.files} files) | | |`,
	];
	const table = lines.join('\n');
	console.log(`\n${table}\n`);
	writeFileSync(join(repoRoot, 'scripts', 'bench-results.md'), `${table}\n`);
	say('written to scripts/bench-results.md');
}

main().catch((error) => {
	console.error(`Benchmark failed: ${error.stack ?? error.message}${error.cause ? ` (${error.cause.message ?? error.cause})` : ''}`);
	process.exit(1);
});
