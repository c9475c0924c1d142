// `npm run test:mutation`: StrykerJS on the code that guards events and secrets, one run per group of
// test/mutation/groups.mjs (each with its own fast unit tests), then the score of every file, which
// must be at least 85 % (CONTRIBUTING.md, "Mutation score"). Stryker's own `thresholds.break` applies
// to the total only, hence this check per file of reports/mutation/mutation.json.
//
//   npm run test:mutation                     every guarded file
//   npm run test:mutation -- --changed        only the guarded files whose text differs from the one
//                                             measured (test/mutation/baseline.json; none: exits 0)
//   ... -- --files a.ts,b.ts                  only these guarded files
//   ... -- --record-baseline                  after a run that passed: its files' text is the baseline
//   npm run test:mutation -- --group secrets  one group
//   npm run test:mutation -- --check          only the per-file check of the last reports
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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
const known = new Set([
	'--changed',
	'--group',
	'--check',
	'--record-baseline',
	'--files',
	option('--group'),
	option('--files'),
]);
const unknown = args.filter((a) => !known.has(a));
if (unknown.length) fail(`unknown argument ${unknown.join(' ')}`);

/** The groups to run, each with the files to mutate. */
function plan() {
	const only = option('--group');
	if (only !== undefined && !(only in groups)) fail(`unknown group ${only}`);
	let files = only ? groups[only].mutate : allFiles;
	const named = option('--files')?.split(',');
	if (named) {
		const unknownFiles = named.filter((f) => !allFiles.includes(f));
		if (unknownFiles.length) fail(`not a guarded file: ${unknownFiles.join(', ')}`);
		files = files.filter((f) => named.includes(f));
	}
	if (args.includes('--changed')) {
		// By content, not by git history: CI's clone may be shallow, and a file is re-measured
		// exactly when its text differs from the text whose score was measured.
		const baseline = readBaseline();
		files = files.filter((f) => baseline.sha256[f] !== sha256Of(f));
		console.log(
			`Guarded files changed since their score was measured (${baseline.measured}): ${files.length ? files.join(', ') : 'none'}`,
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

const BASELINE = join(root, 'test/mutation/baseline.json');

/** The SHA-256 of each guarded file's text when its score was last measured at 85 % or more. */
function readBaseline() {
	try {
		return JSON.parse(readFileSync(BASELINE, 'utf8'));
	} catch {
		fail(`cannot read ${BASELINE}: run npm run test:mutation, then -- --record-baseline`);
	}
}

function sha256Of(file) {
	return createHash('sha256')
		.update(readFileSync(join(root, file)))
		.digest('hex');
}

/** After a run that passed: the files measured now take their current text as the baseline. */
function recordBaseline(files) {
	let baseline = { measured: '', sha256: {} };
	try {
		baseline = JSON.parse(readFileSync(BASELINE, 'utf8'));
	} catch {
		// first record
	}
	for (const file of files) baseline.sha256[file] = sha256Of(file);
	baseline.measured = new Date().toISOString().slice(0, 10);
	writeFileSync(BASELINE, `${JSON.stringify(baseline, null, '\t')}\n`);
	console.log(`Baseline recorded for ${files.length} file(s): ${BASELINE}`);
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
	if (args.includes('--record-baseline')) recordBaseline(groupsToRun.flatMap((g) => g.files));
}
