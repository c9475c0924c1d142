/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Section 3, without n8n: CPU per event of webhook()'s own work (verify + parse + shape) against
 * a minimal handler (verify + pass through); the package's cold load time and packed size.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { eventItem, unknownEventItem } from '../../nodes/MessagingRelayTrigger/eventItem';
import { readDelivery } from '../../nodes/shared/readDelivery';
import { serviceSecretMatches } from '../../nodes/shared/serviceSecret';
import { sampleEvents } from '../../test/fixtures/events';
import { repoRoot } from '../../test/support/repo';
import { median, round } from './measure';
import type { Setting } from './settings';
import type { Row } from './table';

function cpuPerEvent() {
	const secret = 'whsec_' + 'a'.repeat(48);
	const bodies = Object.values(sampleEvents()).map((event) => Buffer.from(JSON.stringify(event)));
	const full = (raw: Buffer) => {
		if (!serviceSecretMatches(secret, { secret })) return undefined;
		// What n8n hands webhook(): the raw bytes (readDelivery parses them itself).
		const delivery = readDelivery({ rawBody: raw } as unknown as Parameters<
			typeof readDelivery
		>[0]);
		return delivery.kind === 'valid'
			? eventItem(delivery.event)
			: unknownEventItem('body' in delivery ? delivery.body : {});
	};
	const minimal = (raw: Buffer) => {
		if (!serviceSecretMatches(secret, { secret })) return undefined;
		return JSON.parse(raw.toString('utf8')) as unknown;
	};
	const measure = (fn: (raw: Buffer) => unknown, n: number) => {
		const start = process.cpuUsage();
		for (let i = 0; i < n; i++) fn(bodies[i % bodies.length]);
		const used = process.cpuUsage(start);
		return (used.user + used.system) / n;
	};
	const rounds = { full: [] as number[], minimal: [] as number[] };
	for (let r = 0; r < 5; r++) {
		measure(full, 2000);
		measure(minimal, 2000);
		rounds.full.push(measure(full, 20000));
		rounds.minimal.push(measure(minimal, 20000));
	}
	const fullUs = median(rounds.full);
	const minimalUs = median(rounds.minimal);
	return {
		fullUs: round(fullUs, 2),
		minimalUs: round(minimalUs, 2),
		ratio: round(fullUs / minimalUs, 2),
	};
}

function coldLoadAndSize() {
	const time = (args: string[]) => {
		const samples: number[] = [];
		for (let i = 0; i < 7; i++) {
			const start = process.hrtime.bigint();
			execFileSync(process.execPath, args, { cwd: repoRoot });
			samples.push(Number(process.hrtime.bigint() - start) / 1e6);
		}
		return median(samples);
	};
	const bare = time(['-e', '']);
	const withPackage = time([
		'-e',
		"require('./dist/nodes/MessagingRelay/MessagingRelay.node.js');require('./dist/nodes/MessagingRelayTrigger/MessagingRelayTrigger.node.js');require('./dist/credentials/MessagingRelayApi.credentials.js')",
	]);
	const out = mkdtempSync(join(tmpdir(), 'relay-bench-pack-'));
	const packed = (
		JSON.parse(
			spawnSync('npm', ['pack', '--json', '--pack-destination', out], {
				cwd: repoRoot,
				encoding: 'utf8',
			}).stdout,
		) as Array<{ size: number; unpackedSize: number; entryCount: number }>
	)[0];
	return {
		loadMs: round(withPackage - bare, 0),
		bareNodeMs: round(bare, 0),
		packedKb: round(packed.size / 1024, 1),
		unpackedKb: round(packed.unpackedSize / 1024, 1),
		files: packed.entryCount,
	};
}

/** The rows of section 3 (in the first setting's columns: n8n plays no part). */
export function measureCpuAndSize(settings: Setting[]): Row[] {
	const cpu = cpuPerEvent();
	const load = coldLoadAndSize();
	const first = (cells: [string | number, string | number, string | number]) => ({
		[settings[0].key]: cells,
	});
	return [
		{
			section: 3,
			label: 'CPU per event, µs (verify + parse + shape vs verify + pass through; no n8n)',
			bySetting: first([cpu.fullUs, cpu.minimalUs, cpu.ratio]),
		},
		{
			section: 3,
			label: `Cold load of the package's three modules, ms (over a bare \`node\` of ${load.bareNodeMs} ms)`,
			bySetting: first([load.loadMs, '', '']),
		},
		{
			section: 3,
			label: 'Packed size',
			bySetting: first([
				`${load.packedKb} KiB (${load.unpackedKb} KiB unpacked, ${load.files} files)`,
				'',
				'',
			]),
		},
	];
}
