/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions, no-console -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * `npm run bench`: side-by-side measurements in one run on this machine, reported as ratios, each
 * under every setting of settings.ts (n8n as shipped and with lazy isolate acquisition), the
 * settings' n8n instances up at once and loaded in alternating rounds; medians of the rounds.
 *   1. inbound.ts   our trigger vs n8n's Webhook node (Header Auth; + IF on the event type; the
 *                   earlier IF-on-the-secret baseline), and the auto-reply pair
 *   2. outbound.ts  our Send vs n8n's HTTP Request node, 500 messages at 25 ms latency
 *   3. cpu.ts       CPU per event of webhook()'s work; the package's cold load and packed size
 *   4. sharing.ts   1, 2 and 4 workflows sharing one account's webhook vs 4 accounts
 *   5. queueMode.ts the auto-reply in one n8n process vs n8n's queue mode
 *   6. conversations.ts a contact's answer to Send and Wait for Reply vs n8n's Wait node resumed directly
 *   (7, the account's state, is retired: it installed a synthetic state and timed single deliveries, which
 *   never met n8n's save under a campaign's load. `npm run campaign` measures that, through n8n.)
 * BENCH_ONLY=inbound,outbound,sharing,queue,conversations runs those sections only (3 always runs); the other
 * rows are kept from the previous results. The table is printed and written to
 * scripts/bench-results.md (BENCH_RESULTS names another file, e.g. for a smoke run with small
 * counts: see each section's environment variables).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

import { repoPath, repoRoot } from '../../test/support/repo';
import { say } from '../../test/support/stack/runtime';
import { measureConversations } from './conversations';
import { measureCpuAndSize } from './cpu';
import { measureInbound } from './inbound';
import { measureOutbound } from './outbound';
import { measureQueueMode } from './queueMode';
import { chosenSettings } from './settings';
import { measureSharing } from './sharing';
import { withStacks, type BenchStack } from './stacks';
import { dateLine, header, render, withRowsNotMeasured, type Row } from './table';

const SECTIONS: Array<{
	name: string;
	number: number;
	measure: (stacks: BenchStack[]) => Promise<Row[]>;
}> = [
	{ name: 'inbound', number: 1, measure: measureInbound },
	{ name: 'outbound', number: 2, measure: measureOutbound },
	{ name: 'sharing', number: 4, measure: measureSharing },
	{ name: 'queue', number: 5, measure: measureQueueMode },
	{ name: 'conversations', number: 6, measure: measureConversations },
];

async function main() {
	const only = process.env.BENCH_ONLY;
	const chosen = SECTIONS.filter((s) => !only || only.split(',').includes(s.name));
	const settings = chosenSettings();
	say(
		`settings: ${settings.map((s) => s.label).join(', ')}; sections: 3, ${chosen.map((s) => s.name).join(', ')}`,
	);
	say('building the package');
	spawnSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'ignore' });

	say('3. CPU per event, cold load, packed size');
	const rows = measureCpuAndSize(settings);
	if (chosen.length) {
		await withStacks(settings, async (stacks) => {
			for (const section of chosen) rows.push(...(await section.measure(stacks)));
		});
	}

	const file = process.env.BENCH_RESULTS ?? repoPath('scripts', 'bench-results.md');
	const table = [dateLine(), '', ...header(settings), ...render(settings, rows)];
	const ran = new Set([3, ...chosen.map((s) => s.number)]);
	const existing = new Set([3, ...SECTIONS.map((s) => s.number)]);
	const text = withRowsNotMeasured(file, table, ran, only, existing).join('\n');
	console.log(`\n${text}\n`);
	writeFileSync(file, `${text}\n`);
	say(`written to ${file}`);
}

main().catch((error: Error & { cause?: { message?: string } }) => {
	console.error(
		`Benchmark failed: ${error.stack ?? error.message}${error.cause ? ` (${error.cause.message ?? String(error.cause)})` : ''}`,
	);
	process.exit(1);
});
