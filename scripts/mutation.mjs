// `npm run test:mutation`: StrykerJS on the code where the state, routing, secrets and the judges'
// rules live, one run per group of test/mutation/groups.mjs (each with its own fast unit tests),
// judged by scripts/mutationGate.cjs against the committed record, test/mutation/report.json:
// every file at 85 % or more (CONTRIBUTING.md, "Mutation score").
//
//   npm run test:mutation -- --changed   measure the files the record does not cover as they are
//                                        now (new, changed, or a test that killed their mutants
//                                        changed or left their group); none: exits 0 in a second
//   npm run test:mutation                measure every guarded file
//   ... -- --files a.ts,b.ts             only these guarded files
//   ... -- --group secrets               one group
//   ... -- --record                      after a run that passed: write its files into the record
//   ... -- --from-reports g1,g2          take the files from StrykerJS reports already in
//                                        reports/mutation/ (g1.json …) instead of running it
//   npm run test:mutation -- --check     only judge the record against the tree (no StrykerJS)
// The gate refuses, whatever is measured: a record whose counts are not its mutants', a hash edited
// to match a file its mutants are not in, a file with no mutant that counts, a source file in a
// watched folder that is neither guarded nor exempted.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import mutationGate from './mutationGate.cjs';
import { allFiles, exempt, groupOf, groups, watchedFolders } from '../test/mutation/groups.mjs';

const { entryOf, judge, MINIMUM, unlisted } = mutationGate;

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reports = join(root, 'reports', 'mutation');
const RECORD = join(root, 'test/mutation/report.json');

const args = process.argv.slice(2);
const option = (name) => {
	const at = args.indexOf(name);
	return at === -1 ? undefined : args[at + 1];
};
const flags = ['--changed', '--check', '--record', '--group', '--files', '--from-reports'];
const known = new Set([...flags, option('--group'), option('--files'), option('--from-reports')]);
const unknown = args.filter((a) => !known.has(a));
if (unknown.length) fail(`unknown argument ${unknown.join(' ')}`);

function readRecord() {
	try {
		return JSON.parse(readFileSync(RECORD, 'utf8'));
	} catch {
		return { tool: '', files: {} };
	}
}

/** Refusals no measurement can mend, and the files to measure. */
function gate(record) {
	const verdict = judge({ root, record, groups });
	const loose = unlisted({ root, folders: watchedFolders, guarded: allFiles, exempt });
	for (const file of loose)
		verdict.refused.push(
			`${file}: neither guarded nor exempted with a reason (test/mutation/groups.mjs)`,
		);
	for (const file of Object.keys(exempt))
		if (allFiles.includes(file)) verdict.refused.push(`${file}: both guarded and exempted`);
	// The checker's program must hold every guarded file, or StrykerJS stops at its first mutant.
	const checked = readFileSync(join(root, 'test/mutation/tsconfig.json'), 'utf8');
	for (const file of allFiles)
		if (!checked.includes(`"../../${file}"`))
			verdict.refused.push(`${file}: not in test/mutation/tsconfig.json's files`);
	return verdict;
}

function printRows(rows) {
	console.log('\nfile | killed | timed out | survived | no coverage | counted | score');
	for (const r of rows)
		console.log(
			`${r.file} | ${r.killed} | ${r.timedOut} | ${r.survived} | ${r.noCoverage} | ${r.counted} | ${r.score} %`,
		);
}

/** The files of this run: named, or a group's, or all; with --changed, only those to measure. */
function chosenFiles(stale) {
	const only = option('--group');
	if (only !== undefined && !(only in groups)) fail(`unknown group ${only}`);
	let files = only ? groups[only].mutate : allFiles;
	const named = option('--files')?.split(',');
	if (named) {
		const notGuarded = named.filter((f) => !allFiles.includes(f));
		if (notGuarded.length) fail(`not a guarded file: ${notGuarded.join(', ')}`);
		files = files.filter((f) => named.includes(f));
	}
	if (args.includes('--changed')) {
		const toMeasure = new Set(stale.map((s) => s.file));
		files = files.filter((f) => toMeasure.has(f));
	}
	return files;
}

function runStryker(group, files) {
	const started = Date.now();
	const result = spawnSync('npx', ['stryker', 'run'], {
		cwd: root,
		stdio: 'inherit',
		env: { ...process.env, MUTATION_GROUP: group, MUTATION_FILES: files.join(',') },
	});
	if (result.status !== 0) fail(`stryker run for the group ${group} failed (${result.status})`);
	console.log(`group ${group}: ${Math.round((Date.now() - started) / 1000)} s`);
}

/** The record's entries of `files` from StrykerJS's JSON report of their group. */
function entriesFrom(reportName, files) {
	const report = JSON.parse(readFileSync(join(reports, `${reportName}.json`), 'utf8'));
	const testFileOf = new Map();
	const testSource = new Map();
	for (const [path, testFile] of Object.entries(report.testFiles ?? {})) {
		const rel = path.startsWith('/') ? relative(root, path) : path;
		testSource.set(rel, testFile.source);
		for (const test of testFile.tests) testFileOf.set(test.id, rel);
	}
	const measured = new Date().toISOString().slice(0, 10);
	return Object.fromEntries(
		files.map((file) => {
			const strykerFile = report.files[file];
			if (!strykerFile) fail(`the report ${reportName}.json has no ${file}`);
			if (strykerFile.source !== readFileSync(join(root, file), 'utf8'))
				fail(`the report ${reportName}.json measured another text of ${file}: measure it again`);
			const entry = entryOf(
				file,
				strykerFile,
				(id) => testFileOf.get(id) ?? fail(`test ${id} of ${reportName}.json has no file`),
				(test) => testSource.get(test) ?? readFileSync(join(root, test), 'utf8'),
				measured,
			);
			return [file, entry];
		}),
	);
}

/** The record as JSON with one mutant per line: a re-measure's diff shows which mutants changed. */
function serialize(value) {
	const lines = [];
	const files = Object.fromEntries(
		Object.entries(value.files).map(([file, entry]) => [
			file,
			{
				...entry,
				mutants: entry.mutants.map((m) => `@@${lines.push(JSON.stringify(m)) - 1}@@`),
			},
		]),
	);
	const text = JSON.stringify({ ...value, files }, null, '\t');
	return `${text.replace(/"@@(\d+)@@"/g, (_, i) => lines[Number(i)])}\n`;
}

function fail(message) {
	console.error(`test:mutation: ${message}`);
	process.exit(1);
}

const record = readRecord();
const before = gate(record);
console.log(
	`Guarded files to measure (new, changed, or a killing test changed): ${
		before.stale.length ? before.stale.map((s) => `${s.file} (${s.why})`).join('; ') : 'none'
	}`,
);
if (args.includes('--check')) {
	printRows(before.rows);
	if (before.refused.length) fail(`refused:\n  ${before.refused.join('\n  ')}`);
	if (before.stale.length) fail('some guarded files are not measured as they are now');
	console.log(`Every guarded file measured as it is, at ${MINIMUM} % or more.`);
	process.exit(0);
}

const files = chosenFiles(before.stale);
const fromReports = option('--from-reports')?.split(',');
const measured = { ...record, files: { ...record.files } };
for (const group of Object.keys(groups)) {
	const ofGroup = files.filter((f) => groupOf(f) === group);
	if (ofGroup.length === 0) continue;
	if (fromReports) {
		const source =
			fromReports.find((name) => name === group) ?? fail(`no report named for ${group}`);
		Object.assign(measured.files, entriesFrom(source, ofGroup));
	} else {
		runStryker(group, ofGroup);
		Object.assign(measured.files, entriesFrom(group, ofGroup));
	}
}
const after = gate(measured);
printRows(after.rows);
if (after.refused.length) fail(`refused:\n  ${after.refused.join('\n  ')}`);
if (args.includes('--record')) {
	measured.tool = 'StrykerJS 9.5.1 (stryker.config.mjs)';
	const sorted = Object.fromEntries(
		allFiles.filter((f) => measured.files[f]).map((f) => [f, measured.files[f]]),
	);
	writeFileSync(RECORD, serialize({ ...measured, files: sorted }));
	console.log(`Recorded ${files.length} file(s) in ${relative(root, RECORD)}.`);
}
if (after.stale.length && !args.includes('--changed') && files.length === 0)
	console.log('Nothing measured.');
const unmeasured = after.stale.filter((s) => !files.includes(s.file));
if (args.includes('--changed') && unmeasured.length)
	fail(`still not measured: ${unmeasured.map((s) => s.file).join(', ')}`);
console.log(`Every file measured at ${MINIMUM} % or more.`);
