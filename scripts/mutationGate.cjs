// The mutation gate's rules (issue 42), apart from running StrykerJS (scripts/mutation.mjs), so
// that test/scripts/mutationGate.test.ts can show each bypass refused (CommonJS: jest loads it). The committed record is
// test/mutation/report.json: per guarded file, every mutant StrykerJS made with its status and the
// text it replaced, the counts, the SHA-256 of the file and of each test file that killed one of its
// mutants. Nothing in it is taken on trust: the counts are recomputed from the mutants, the hashes
// from the files, and each mutant's text is looked up in the file.
const { createHash } = require('node:crypto');
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const MINIMUM = 85;

/** StrykerJS's statuses that count, and which of them are detected. */
const COUNTED = new Set(['Killed', 'Timeout', 'Survived', 'NoCoverage']);
const DETECTED = new Set(['Killed', 'Timeout']);

function sha256(text) {
	return createHash('sha256').update(text).digest('hex');
}

/** The text between a StrykerJS location's start and end (lines and columns from 1). */
function textAt(source, { start, end }) {
	const lines = source.split('\n');
	const offset = ({ line, column }) =>
		lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + column - 1;
	return source.slice(offset(start), offset(end));
}

/** The counts of one file's mutants, and its score (undefined when no mutant counts). */
function countsOf(mutants) {
	const n = (status) => mutants.filter((m) => m.status === status).length;
	const counted = mutants.filter((m) => COUNTED.has(m.status)).length;
	const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
	return {
		killed: n('Killed'),
		timedOut: n('Timeout'),
		survived: n('Survived'),
		noCoverage: n('NoCoverage'),
		counted,
		notCounted: mutants.length - counted,
		score: counted === 0 ? undefined : Math.round((1000 * detected) / counted) / 10,
	};
}

/**
 * One file's entry of the record, from StrykerJS's JSON report (schema 2, with `testFiles` since
 * coverage is per test). `testSources`: the text of each test file as StrykerJS ran it.
 */
function entryOf(file, strykerFile, testFileOf, testSources, measured) {
	const mutants = strykerFile.mutants
		.map((m) => ({
			at: `${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column}`,
			mutator: m.mutatorName,
			...originalOf(textAt(strykerFile.source, m.location)),
			replacement: m.replacement ?? '',
			status: m.status,
			...(m.killedBy?.length
				? { killedBy: [...new Set(m.killedBy.map((id) => testFileOf(id)))].sort() }
				: {}),
		}))
		.sort((a, b) => compareAt(a.at, b.at) || (a.mutator < b.mutator ? -1 : 1));
	const killers = [...new Set(mutants.flatMap((m) => m.killedBy ?? []))].sort();
	return {
		measured,
		sha256: sha256(strykerFile.source),
		...countsOf(mutants),
		tests: Object.fromEntries(killers.map((t) => [t, sha256(testSources(t))])),
		mutants,
	};
}

/** The text a mutant replaced: shown when short, always checked by its hash (16 hex digits). */
function originalOf(text) {
	return {
		original: text.length <= 60 ? text : `${text.slice(0, 57)}…`,
		textSha256: sha256(text).slice(0, 16),
	};
}

function compareAt(a, b) {
	const [la, ca] = a.split('-')[0].split(':').map(Number);
	const [lb, cb] = b.split('-')[0].split(':').map(Number);
	return la - lb || ca - cb;
}

function parseAt(at) {
	const [start, end] = at.split('-').map((p) => p.split(':').map(Number));
	return { start: { line: start[0], column: start[1] }, end: { line: end[0], column: end[1] } };
}

/**
 * What the record says about every guarded file, against the tree at `root`:
 *   - `refused`: the record contradicts itself or the tree in a way only an edit by hand explains
 *     (counts that are not its mutants', a hash that matches a text its mutants are not in), or a
 *     file that scores below the minimum or has no mutant that counts;
 *   - `stale`: files to measure again (new, changed, a killing test changed or left its group);
 *   - `rows`: the scores of the files that are neither.
 */
function judge({ root, record, groups, readText = (f) => readFileSync(join(root, f), 'utf8') }) {
	const refused = [];
	const stale = [];
	const rows = [];
	const guarded = Object.values(groups).flatMap((g) => g.mutate);
	for (const file of Object.keys(record.files ?? {}))
		if (!guarded.includes(file)) refused.push(`${file}: in the record but not guarded (test/mutation/groups.mjs)`);
	for (const [groupName, group] of Object.entries(groups)) {
		for (const file of group.mutate) {
			const entry = record.files?.[file];
			if (!entry) {
				stale.push({ file, why: 'never measured' });
				continue;
			}
			const recount = countsOf(entry.mutants ?? []);
			const claimed = Object.fromEntries(Object.keys(recount).map((k) => [k, entry[k]]));
			if (JSON.stringify(claimed) !== JSON.stringify(recount)) {
				refused.push(
					`${file}: its counts ${JSON.stringify(claimed)} are not those of its mutants ${JSON.stringify(recount)}: the record was edited by hand; measure it (npm run test:mutation -- --files ${file} --record)`,
				);
				continue;
			}
			const text = readText(file);
			if (sha256(text) !== entry.sha256) {
				stale.push({ file, why: 'the file changed since it was measured' });
				continue;
			}
			const displaced = entry.mutants.filter(
				(m) => sha256(textAt(text, parseAt(m.at))).slice(0, 16) !== m.textSha256,
			);
			if (displaced.length > 0) {
				refused.push(
					`${file}: the record's hash is this file's, but ${displaced.length} of its mutants are not where the record puts them (first: ${displaced[0].at} "${displaced[0].original}"): the hash was edited by hand; measure it`,
				);
				continue;
			}
			const movedTests = Object.entries(entry.tests ?? {}).filter(
				([test, hash]) =>
					!group.tests.includes(test) ||
					!existsSync(join(root, test)) ||
					sha256(readText(test)) !== hash,
			);
			if (movedTests.length > 0) {
				stale.push({
					file,
					why: `a test that killed its mutants changed or left the group ${groupName}: ${movedTests.map(([t]) => t).join(', ')}`,
				});
				continue;
			}
			if (recount.score === undefined) {
				refused.push(`${file}: no mutant of it counts (none made, or none compiles): a score of nothing is not 100 %`);
				continue;
			}
			if (recount.score < MINIMUM) refused.push(`${file}: ${recount.score} %, below ${MINIMUM} %`);
			rows.push({ file, ...recount });
		}
	}
	return { refused, stale, rows };
}

/**
 * Source files in the folders where the state, routing, secrets and the judges' rules live that are
 * neither guarded nor exempted with a reason (test/mutation/groups.mjs, `exempt`): a new file there
 * must be one or the other, so that a change to it cannot pass the gate unmeasured by omission.
 */
function unlisted({ root, folders, guarded, exempt }) {
	const files = folders.flatMap((folder) =>
		readdirSync(join(root, folder), { recursive: true })
			.map((f) => relative(root, join(root, folder, String(f))))
			.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
	);
	return files.filter((f) => !guarded.includes(f) && !(f in exempt)).sort();
}

module.exports = { MINIMUM, sha256, textAt, countsOf, entryOf, judge, unlisted };
