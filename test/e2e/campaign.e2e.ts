/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * A campaign in the real n8n as it ships (issue 41): CAMPAIGN_SIZE runs (200 in CI, for its 45 minutes; the run of record at
 * 10,000 is scripts/bench-results.md, `npm run campaign`) started by n8n's Webhook node 6 at a time, each
 * asking its own contact, then every contact answering through a sender that delivers again until a 2xx.
 * n8n's own Wait node first (Webhook → Send its resume URL → Wait), the same pacing, in the same n8n; then
 * Send and Wait for Reply through the account's published trigger; for both, n8n restarts between the
 * questions and the answers, so that every answer is routed from what n8n saved. Every run must resume
 * once with its own contact's answer, none fail or hang, and n8n's log must hold no SQLite lock time-out.
 * The rate curves (per block of N/10) and the costs of both are reported side by side.
 */
import {
	holderWorkflow,
	relayCampaign,
	waitNodeCampaign,
} from '../support/campaign/campaignWorkflows';
import { campaignTable, lastOverFirst } from '../support/campaign/campaignReport';
import { runCampaign, type CampaignResult } from '../support/campaign/runCampaign';
import {
	api,
	info,
	n8n,
	relayCredential,
	report,
	restartN8n,
	simulator,
	stackInfo,
} from '../support/e2e';
import { createWorkflow } from '../support/workflows';

const SIZE = Number(process.env.CAMPAIGN_SIZE ?? 200);
const CONCURRENCY = 6;

const made: string[] = [];
afterAll(async () => {
	for (const id of made) await api('POST', `/workflows/${id}/deactivate`).catch(() => undefined);
});

test(`${SIZE} runs ask their contacts and every contact answers: each run resumes once with its own answer, beside n8n's Wait node`, async () => {
	const credential = await relayCredential('campaign account', 'sim-key-campaign');
	const holder = await createWorkflow(
		n8n,
		holderWorkflow(credential, 'c0a1b2c3-0041-4000-8000-000000000001'),
	);
	const waitNode = await createWorkflow(
		n8n,
		waitNodeCampaign(credential, [
			'c0a1b2c3-0041-4000-8000-000000000002',
			'c0a1b2c3-0041-4000-8000-000000000003',
		]),
	);
	const relay = await createWorkflow(
		n8n,
		relayCampaign(credential, [
			'c0a1b2c3-0041-4000-8000-000000000004',
			'c0a1b2c3-0041-4000-8000-000000000005',
		]),
	);
	for (const id of [holder, waitNode, relay]) {
		await api('POST', `/workflows/${id}/activate`);
		made.push(id);
	}
	const target = {
		client: n8n,
		n8nUrl: info.n8nUrl,
		n8nPid: () => stackInfo().n8nPid,
		logFile: info.logFile,
		simulator,
		account: 'acct_campaign',
	};
	const results: CampaignResult[] = [];
	results.push(
		await runCampaign(target, {
			kind: 'waitNode',
			workflowId: waitNode,
			size: SIZE,
			concurrency: CONCURRENCY,
			beforeAnswers: async () => await restartN8n(),
		}),
	);
	results.push(
		await runCampaign(target, {
			kind: 'relay',
			workflowId: relay,
			size: SIZE,
			concurrency: CONCURRENCY,
			beforeAnswers: async () => await restartN8n(),
		}),
	);
	const [wait, ours] = results;
	report('campaign', {
		size: SIZE,
		concurrency: CONCURRENCY,
		table: campaignTable(results),
		totalRatio: Math.round((ours.totalMs / wait.totalMs) * 100) / 100,
		cpuRatio:
			Math.round(
				((ours.startPhase.cpuMs + ours.answerPhase.cpuMs) /
					(wait.startPhase.cpuMs + wait.answerPhase.cpuMs)) *
					100,
			) / 100,
		startsLastOverFirst: lastOverFirst(ours.starts),
		answersLastOverFirst: lastOverFirst(ours.answers),
		results,
	});

	for (const result of results)
		expect({
			kind: result.kind,
			statuses: result.statuses,
			resumedOwnAnswer: result.resumedOwnAnswer,
			startsRefused: result.startsRefused,
			answersRefused: result.answersRefused,
			lockTimeouts: result.lockTimeouts,
		}).toEqual({
			kind: result.kind,
			statuses: { success: SIZE },
			resumedOwnAnswer: SIZE,
			startsRefused: 0,
			answersRefused: 0,
			lockTimeouts: 0,
		});
}, 1_800_000);
