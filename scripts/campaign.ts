/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * `npm run campaign`: a campaign in the real n8n as it ships (issue 41), n8n's own Wait node first
 * and then Send and Wait for Reply through a published Messaging Relay Trigger, in the same n8n,
 * at the same pacing, one run each. Settings from the environment:
 *   CAMPAIGN_SIZE (1,000), CAMPAIGN_CONCURRENCY (6), CAMPAIGN_KINDS ("waitNode,relay"),
 *   CAMPAIGN_N8N_PORT (5978), CAMPAIGN_SIM_PORT (5980), RELAY_N8N_VERSION (2.41.1),
 *   CAMPAIGN_DB=postgres to run n8n on Postgres (Debian's, started as the queue suites start it),
 *   CAMPAIGN_CPU_PROF=<dir> to run n8n with --cpu-prof (the profile is written when n8n stops),
 *   CAMPAIGN_RESULTS=<file> to write the results as JSON.
 * The report is printed as a table: per block of N/10, the rate of starts and answers.
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	holderWorkflow,
	relayCampaign,
	waitNodeCampaign,
	type CampaignKind,
} from '../test/support/campaign/campaignWorkflows';
import { campaignTable } from '../test/support/campaign/campaignReport';
import { runCampaign, type CampaignResult } from '../test/support/campaign/runCampaign';
import { SimClient } from '../test/support/simClient';
import { startStack } from '../test/support/stack/single';
import { alive } from '../test/support/stack/processes';
import { defaultPorts } from '../test/support/stack/queue/ports';
import { signalGroup } from '../test/support/stack/queue/processGroups';
import {
	DB_NAME,
	DB_USER,
	ensureQueueServices,
	startPostgres,
	unprivilegedIds,
} from '../test/support/stack/queue/services';
import type { QueueState } from '../test/support/stack/queue/state';
import { say } from '../test/support/stack/runtime';
import { sleep } from '../test/support/waitUntil';
import { createWorkflow, relayCredential } from '../test/support/workflows';

/** n8n writes its CPU profile when it exits: a graceful stop, given all the time it takes. */
async function stopForProfile(pid: number) {
	say('stopping n8n for its CPU profile');
	process.kill(pid, 'SIGTERM');
	for (let waited = 0; waited < 180_000 && alive(pid); waited += 500) await sleep(500);
}

const numberFrom = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

/**
 * CAMPAIGN_DB=postgres: a Postgres of Debian's for n8n (the queue suites' helper: run as an unprivileged
 * user, on loopback, fsync off as a throwaway test database), n8n in one process on it.
 */
async function postgresFor(): Promise<{ env: Record<string, string>; stop: () => void }> {
	const workDir = mkdtempSync(join(tmpdir(), 'relay-campaign-pg-'));
	const ids = unprivilegedIds();
	// Postgres runs as the unprivileged user, who must reach its folder in this one (as deployment.ts does).
	if (ids.uid !== undefined) chmodSync(workDir, 0o755);
	const state = {
		stateFile: join(workDir, 'state.json'),
		workDir,
		ports: defaultPorts(5910),
		env: {},
		processes: {},
		startedAt: new Date().toISOString(),
	} as QueueState;
	await startPostgres(state, ensureQueueServices(), ids);
	return {
		env: {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: '127.0.0.1',
			DB_POSTGRESDB_PORT: String(state.postgres?.port),
			DB_POSTGRESDB_DATABASE: DB_NAME,
			DB_POSTGRESDB_USER: DB_USER,
			DB_POSTGRESDB_PASSWORD: '',
		},
		stop: () => {
			const pid = state.processes.postgres?.pid;
			if (pid) signalGroup(pid, 'SIGTERM');
		},
	};
}

async function main() {
	const size = numberFrom('CAMPAIGN_SIZE', 1_000);
	const concurrency = numberFrom('CAMPAIGN_CONCURRENCY', 6);
	const kinds = (process.env.CAMPAIGN_KINDS ?? 'waitNode,relay').split(',') as CampaignKind[];
	const profileDir = process.env.CAMPAIGN_CPU_PROF;
	if (profileDir) mkdirSync(profileDir, { recursive: true });
	const postgres = process.env.CAMPAIGN_DB === 'postgres' ? await postgresFor() : undefined;
	const stack = await startStack({
		n8nPort: numberFrom('CAMPAIGN_N8N_PORT', 5978),
		simPort: numberFrom('CAMPAIGN_SIM_PORT', 5980),
		examples: false,
		keepUserFolder: !!process.env.CAMPAIGN_KEEP,
		env: {
			...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` } : {}),
			...(postgres?.env ?? {}),
		},
	});
	const results: CampaignResult[] = [];
	try {
		const simulator = new SimClient(stack.simUrl as string);
		const credential = await relayCredential(stack.client, 'campaign account', {
			baseUrl: stack.simUrl as string,
			apiKey: 'sim-key-campaign',
		});
		const holderId = await createWorkflow(
			stack.client,
			holderWorkflow(credential, 'c0a1b2c3-0000-4000-8000-000000000041'),
		);
		await stack.client.publish(holderId);
		const workflows: Record<CampaignKind, string> = {
			waitNode: await createWorkflow(
				stack.client,
				waitNodeCampaign(credential, [
					'c0a1b2c3-0000-4000-8000-000000000042',
					'c0a1b2c3-0000-4000-8000-000000000043',
				]),
			),
			relay: await createWorkflow(
				stack.client,
				relayCampaign(credential, [
					'c0a1b2c3-0000-4000-8000-000000000044',
					'c0a1b2c3-0000-4000-8000-000000000045',
				]),
			),
		};
		for (const kind of kinds) await stack.client.publish(workflows[kind]);
		const target = {
			client: stack.client,
			n8nUrl: stack.n8nUrl,
			n8nPid: () => stack.n8nPid,
			logFile: stack.logFile,
			simulator,
			account: 'acct_campaign',
		};
		for (const kind of kinds) {
			say(`campaign ${kind}: ${size} runs, ${concurrency} at a time`);
			const result = await runCampaign(target, {
				kind,
				workflowId: workflows[kind],
				size,
				concurrency,
				say,
			});
			results.push(result);
			console.log(JSON.stringify(result));
		}
	} finally {
		if (profileDir) await stopForProfile(stack.n8nPid);
		await stack.stop();
		postgres?.stop();
	}
	console.log(`\n${campaignTable(results).join('\n')}\n`);
	if (process.env.CAMPAIGN_RESULTS)
		writeFileSync(process.env.CAMPAIGN_RESULTS, JSON.stringify(results, null, 2));
}

main().catch((error: Error) => {
	console.error(`Campaign failed: ${error.stack ?? error.message}`);
	process.exit(1);
});
