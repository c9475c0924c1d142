// `npm run test:mutation`: StrykerJS on the code that guards events and secrets, one run per group of
// test/mutation/groups.mjs (each with its own fast unit tests), then the score of every file, which
// must be at least 85 % (CONTRIBUTING.md, "Mutation score"). Stryker's own `thresholds.break` applies
// to the total only, hence this check per file of reports/mutation/mutation.json.
//
//   npm run test:mutation                     every guarded file
//   npm run test:mutation -- --changed        only the guarded files changed since the commit in
//                                             test/mutation/baseline (none: says so, exits 0)
//   npm run test:mutation -- --group secrets  one group
//   npm run test:mutation -- --check          only the per-file check of the last reports
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { allFiles, groupOf, groups } from '../test/mutation/groups.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reports = join(root, 'reports', 'mutation');
const MINIMUM = 85;

const args = process.argv.slice(2);
const option = (name) => {
	const at = args.indexOf(name);
	return at === -1 ? undefined : args[at + 1];
};
const known = new Set(['--changed', '--group', '--check', option('--group')]);
const unknown = args.filter((a) => !known.has(a));
if (unknown.length) fail(`unknown argument ${unknown.join(' ')}`);

/** The groups to run, each with the files to mutate. */
function plan() {
	const only = option('--group');
	if (only !== undefined && !(only in groups)) fail(`unknown group ${only}`);
	let files = only ? groups[only].mutate : allFiles;
	if (args.includes('--changed')) {
		const baseline = readFileSync(join(root, 'test/mutation/baseline'), 'utf8').trim();
		let changed;
		try {
			changed = execFileSync('git', ['diff', '--name-only', baseline, '--', ...files], {
				cwd: root,
				encoding: 'utf8',
			});
		} catch {
			fail(`cannot diff against the baseline ${baseline} (a shallow clone? fetch it)`);
		}
		const names = new Set(changed.split('\n').filter(Boolean));
		files = files.filter((f) => names.has(f));
		console.log(
			`Guarded files changed since the baseline ${baseline.slice(0, 12)}: ${files.length ? files.join(', ') : 'none'}`,
		);
	}
	return Object.keys(groups)
		.map((name) => ({ name, files: files.filter((f) => groupOf(f) === name) }))
		.filter((g) => g.files.length > 0);
}

function run(group) {
	const started = Date.now();
	const result = spawnSync('npx', ['stryker', 'run'], {
		cwd: root,
		stdio: 'inherit',
		env: { ...process.env, MUTATION_GROUP: group.name, MUTATION_FILES: group.files.join(',') },
	});
	const seconds = Math.round((Date.now() - started) / 1000);
	if (result.status !== 0)
		fail(`stryker run for the group ${group.name} failed (${result.status})`);
	return seconds;
}

/** Stryker's score: detected (killed, timed out) of the valid mutants (not the ones that do not compile). */
function scores(report) {
	return Object.entries(report.files).map(([file, { mutants }]) => {
		const count = (status) => mutants.filter((m) => m.status === status).length;
		const row = {
			file,
			killed: count('Killed'),
			survived: count('Survived'),
			noCoverage: count('NoCoverage'),
			timeout: count('Timeout'),
			compileError: count('CompileError'),
			runtimeError: count('RuntimeError'),
		};
		row.valid = row.killed + row.survived + row.noCoverage + row.timeout;
		row.score = row.valid === 0 ? 100 : (100 * (row.killed + row.timeout)) / row.valid;
		return row;
	});
}

function check(groupNames) {
	const merged = { schemaVersion: '2', thresholds: { high: 90, low: MINIMUM }, files: {} };
	for (const name of groupNames) {
		let report;
		try {
			report = JSON.parse(readFileSync(join(reports, `${name}.json`), 'utf8'));
		} catch {
			if (args.includes('--check')) continue;
			fail(`no report for the group ${name}`);
		}
		Object.assign(merged.files, report.files);
		merged.schemaVersion = report.schemaVersion;
	}
	mkdirSync(reports, { recursive: true });
	writeFileSync(join(reports, 'mutation.json'), JSON.stringify(merged));
	const rows = scores(merged);
	console.log('\nfile | killed | survived | no coverage | timeout | valid | score');
	for (const r of rows)
		console.log(
			`${r.file} | ${r.killed} | ${r.survived} | ${r.noCoverage} | ${r.timeout} | ${r.valid} | ${r.score.toFixed(1)} %`,
		);
	const below = rows.filter((r) => r.score < MINIMUM);
	if (below.length) fail(`below ${MINIMUM} %: ${below.map((r) => r.file).join(', ')}`);
	console.log(`Every file at ${MINIMUM} % or more.`);
}

function fail(message) {
	console.error(`test:mutation: ${message}`);
	process.exit(1);
}

if (args.includes('--check')) {
	check(Object.keys(groups));
} else {
	const groupsToRun = plan();
	if (groupsToRun.length === 0) {
		console.log('No guarded file to mutate: nothing to do.');
		process.exit(0);
	}
	const started = Date.now();
	const times = groupsToRun.map((g) => [g.name, run(g)]);
	for (const [name, seconds] of times) console.log(`group ${name}: ${seconds} s`);
	console.log(`all: ${Math.round((Date.now() - started) / 1000)} s`);
	check(groupsToRun.map((g) => g.name));
}
