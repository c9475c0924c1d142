/** A campaign run's figures as a Markdown table: what `npm run campaign` prints and scripts/bench-results.md keeps. */
import type { BlockRate, CampaignResult } from './runCampaign';

const rates = (blocks: BlockRate[]) => blocks.map((b) => b.perSecond.toFixed(1)).join(' · ');
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1);

/** Last block's rate over the first block's (issue 41's goal: at least 0.8). */
export function lastOverFirst(blocks: BlockRate[]): number {
	if (blocks.length === 0) return 0;
	return Math.round((blocks[blocks.length - 1].perSecond / blocks[0].perSecond) * 100) / 100;
}

export function campaignTable(results: CampaignResult[]): string[] {
	const lines = [
		'| campaign | runs | starts/s per block of N/10 | last/first | answers/s per block of N/10 | last/first | start phase s | answer phase s | total s | n8n CPU s | written MiB per run | RSS MiB | ended | own answer | lock time-outs |',
		'|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|',
	];
	for (const r of results) {
		const cpu = r.startPhase.cpuMs + r.answerPhase.cpuMs;
		const written = (r.startPhase.writtenBytes + r.answerPhase.writtenBytes) / r.size;
		lines.push(
			`| ${r.kind} | ${r.size} | ${rates(r.starts)} | ${lastOverFirst(r.starts)} | ${rates(r.answers)} | ${lastOverFirst(r.answers)} | ${seconds(r.startPhase.ms)} | ${seconds(r.answerPhase.ms)} | ${seconds(r.totalMs)} | ${seconds(cpu)} | ${mb(written)} | ${r.answerPhase.rssMbAfter} | ${Object.entries(
				r.statuses,
			)
				.map(([s, n]) => `${s} ${n}`)
				.join(', ')} | ${r.resumedOwnAnswer} | ${r.lockTimeouts} |`,
		);
	}
	return lines;
}
