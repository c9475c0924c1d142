/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, no-console -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * `node build/scripts/cpuProfileSummary.js <file.cpuprofile> [top]`: where a V8 CPU profile (node
 * --cpu-prof, as `npm run campaign` takes of n8n with CAMPAIGN_CPU_PROF) spent its time: self time
 * by package (the folder after the last node_modules/), and the functions with the most self time
 * and the most total time. What issue 41 asks for before the state layer is redesigned.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}
interface Profile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
	startTime: number;
	endTime: number;
}

function packageOf(url: string): string {
	if (!url) return '(native / V8)';
	const parts = url.split('node_modules/');
	if (parts.length === 1) return url.startsWith('node:') ? 'node core' : '(other)';
	const rest = parts[parts.length - 1].split('/');
	return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

function main() {
	const [file, topArg] = process.argv.slice(2);
	const top = Number(topArg ?? 25);
	const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const parent = new Map<number, number>();
	for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
	const self = new Map<number, number>();
	profile.samples.forEach((id, i) =>
		self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)),
	);
	const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
	const idle = [...self]
		.filter(([id]) => ['(idle)', '(program)'].includes(byId.get(id)!.callFrame.functionName))
		.reduce((a, [, t]) => a + t, 0);
	const busy = totalUs - idle;
	const pct = (us: number) => `${((100 * us) / busy).toFixed(1)} %`;

	const bySelf = new Map<string, number>();
	const byPackage = new Map<string, number>();
	const inclusive = new Map<string, number>();
	for (const [id, us] of self) {
		const frame = byId.get(id)!.callFrame;
		if (['(idle)', '(program)'].includes(frame.functionName)) continue;
		const key = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/.*node_modules\//, '')}:${frame.lineNumber + 1}`;
		bySelf.set(key, (bySelf.get(key) ?? 0) + us);
		const pkg = packageOf(frame.url);
		byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
		// Total time: once per distinct function on the stack.
		const seen = new Set<string>();
		for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
			const f = byId.get(at)!.callFrame;
			const k = `${f.functionName || '(anonymous)'} ${f.url.replace(/.*node_modules\//, '')}:${f.lineNumber + 1}`;
			if (seen.has(k)) continue;
			seen.add(k);
			inclusive.set(k, (inclusive.get(k) ?? 0) + us);
		}
	}
	const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
	console.log(
		`profile: ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s, busy ${(busy / 1e6).toFixed(1)} s`,
	);
	console.log('\nself time by package:');
	for (const [k, us] of sorted(byPackage).slice(0, top))
		console.log(`  ${pct(us).padStart(7)}  ${k}`);
	console.log('\nself time by function:');
	for (const [k, us] of sorted(bySelf).slice(0, top)) console.log(`  ${pct(us).padStart(7)}  ${k}`);
	console.log('\ntotal time by function:');
	for (const [k, us] of sorted(inclusive).slice(0, top))
		console.log(`  ${pct(us).padStart(7)}  ${k}`);
}

main();
