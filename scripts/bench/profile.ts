/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Where n8n spends its CPU per delivery, for the trigger at version 3 (answering when the run has
 * ended) against n8n's Webhook node with Header Auth answering when the last node finishes (issue
 * 27: the first measures 6-13 % fewer deliveries/s than the second with lazy isolate acquisition).
 *
 *   npm run build:tools && node build/scripts/bench/profile.js [deliveries per variant, 3000]
 *
 * For each variant, one after the other, an n8n of its own (lazy acquire, as section 1 of the
 * benchmark) with that one workflow, started with `--cpu-prof`: a warm-up, then the deliveries, 8 at
 * once, then n8n stopped, which writes its profile. Both profiles hold the same start and stop, so
 * their difference is what the deliveries cost. Prints, per variant, n8n's CPU per delivery (from
 * /proc, as section 1) and the profile's self time per delivery by where the code lives (the
 * package, n8n's packages, node's internals, the garbage collector), and the functions whose self
 * time differs most between the two. The profiles stay in the printed folder for Chrome's DevTools.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { cpuMs } from '../../test/support/stack/processes';
import { say } from '../../test/support/stack/runtime';
import { startStack } from '../../test/support/stack/single';
import {
	createWorkflow,
	headerAuthCredential,
	productionUrl,
	relayCredential,
	triggerWorkflowData,
} from '../../test/support/workflows';
import { SimClient } from '../../test/support/simClient';
import { postDeliveries } from './measure';
import { headerAuthWebhook } from './peerWorkflows';
import { fromEnv } from './settings';
import { benchWebhookId } from './stacks';

/** The simulator's bench account (test/simulator/accounts.ts), and the header value n8n's own node checks: both stand-ins. */
const SIM_ACCOUNT = 'sim-key-bench-v3';
const PEER_HEADER_VALUE = `profile-${process.pid}`;

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
}

/** Self time in ms per function (name and place) of a .cpuprofile. */
function selfTimes(profile: CpuProfile): Map<string, number> {
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const times = new Map<string, number>();
	profile.samples.forEach((id, i) => {
		const frame = byId.get(id)!.callFrame;
		const key = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*node_modules\//, '')}:${frame.lineNumber + 1}`;
		times.set(key, (times.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
	});
	return times;
}

/** Where a function lives: the package, an npm package of n8n's, node's own code, or V8's pseudo-frames. */
function place(key: string): string {
	if (key.includes('n8n-nodes-messaging-relay')) return 'this package';
	const match = / (@[^/]+\/[^/]+|[^/@][^/]*)\/.*:\d+$/.exec(key);
	if (key.startsWith('(garbage collector)')) return '(garbage collector)';
	if (key.startsWith('(idle)')) return '(idle)';
	if (key.startsWith('(program)')) return '(program)';
	if (/ node:/.test(key)) return 'node internals';
	return match ? match[1] : '(native or other)';
}

async function profileVariant(variant: 'trigger v3' | 'Webhook last node', deliveries: number) {
	const dir = mkdtempSync(join(tmpdir(), 'relay-profile-'));
	const stack = await startStack({
		n8nPort: fromEnv('BENCH_N8N_PORT', 5878),
		simPort: fromEnv('BENCH_SIM_PORT', 5880),
		examples: false,
		env: {
			N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true',
			NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${dir}`,
		},
	});
	let url: string;
	let secret: string;
	if (variant === 'trigger v3') {
		const simulator = new SimClient(stack.simUrl as string);
		const credential = await relayCredential(stack.client, 'profile account', {
			baseUrl: stack.simUrl as string,
			apiKey: SIM_ACCOUNT,
		});
		await stack.client.publish(
			await createWorkflow(
				stack.client,
				triggerWorkflowData({
					name: 'profile: v3',
					credential,
					webhookId: benchWebhookId(2),
					events: ['message.received'],
					typeVersion: 3,
				}),
			),
		);
		url = productionUrl(stack.n8nUrl, benchWebhookId(2));
		secret = (await simulator.webhooks()).acct_bench_v3?.secret as string;
	} else {
		// n8n's own node needs no service: its Header Auth checks a secret of our choosing.
		secret = PEER_HEADER_VALUE;
		const auth = await headerAuthCredential(stack.client, 'profile Header Auth', {
			name: 'x-service-secret',
			value: secret,
		});
		await stack.client.publish(
			await createWorkflow(
				stack.client,
				headerAuthWebhook(benchWebhookId(10), 'profile-last', auth, 'lastNode'),
			),
		);
		url = `${stack.n8nUrl}/webhook/profile-last`;
	}
	await postDeliveries([{ url, secret }], 200);
	const cpuBefore = cpuMs(stack.n8nPid);
	const load = await postDeliveries([{ url, secret }], deliveries);
	const cpuPer = (cpuMs(stack.n8nPid) - cpuBefore) / deliveries;
	const pid = stack.n8nPid;
	await stack.stop();
	const file =
		readdirSync(dir).find((f) => f.includes(`.${pid}.`)) ??
		readdirSync(dir).sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0];
	const times = selfTimes(JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile);
	say(
		`${variant}: ${deliveries} deliveries, ${load.perSecond.toFixed(1)}/s, n8n CPU ${cpuPer.toFixed(2)} ms per delivery; profile ${join(dir, file)}`,
	);
	return { variant, cpuPer, perSecond: load.perSecond, times };
}

async function main() {
	const deliveries = Number(process.argv[2] ?? 3000);
	const ours = await profileVariant('trigger v3', deliveries);
	const theirs = await profileVariant('Webhook last node', deliveries);
	const perDelivery = (ms: number) => (ms / deliveries).toFixed(3);
	const byPlace = (times: Map<string, number>) => {
		const sums = new Map<string, number>();
		for (const [key, ms] of times) sums.set(place(key), (sums.get(place(key)) ?? 0) + ms);
		return sums;
	};
	const [a, b] = [byPlace(ours.times), byPlace(theirs.times)];
	const places = [...new Set([...a.keys(), ...b.keys()])].sort(
		(x, y) => (b.get(y) ?? 0) + (a.get(y) ?? 0) - (b.get(x) ?? 0) - (a.get(x) ?? 0),
	);
	console.log(
		`\nn8n CPU per delivery (/proc): trigger v3 ${ours.cpuPer.toFixed(2)} ms, Webhook last node ${theirs.cpuPer.toFixed(2)} ms; deliveries/s ${ours.perSecond.toFixed(1)} vs ${theirs.perSecond.toFixed(1)}`,
	);
	console.log(
		'\nSelf time per delivery by place, ms (whole profile / deliveries): trigger v3 | Webhook last node | difference',
	);
	for (const p of places.slice(0, 25))
		console.log(
			`  ${p.padEnd(40)} ${perDelivery(a.get(p) ?? 0).padStart(8)} ${perDelivery(b.get(p) ?? 0).padStart(8)} ${perDelivery((a.get(p) ?? 0) - (b.get(p) ?? 0)).padStart(8)}`,
		);
	const keys = [...new Set([...ours.times.keys(), ...theirs.times.keys()])];
	const diff = keys
		.map((k) => [k, (ours.times.get(k) ?? 0) - (theirs.times.get(k) ?? 0)] as const)
		.sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]));
	console.log(
		'\nFunctions whose self time differs most, ms per delivery (trigger v3 minus Webhook last node):',
	);
	for (const [k, ms] of diff.slice(0, 40)) console.log(`  ${perDelivery(ms).padStart(8)}  ${k}`);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
