// `node scripts/variants.mjs <variant>`: builds a variant of the package that lacks one defence of the
// account state against lost saves, and runs the two-webhook-process suite against it
// (test/e2e-queue/twoWebhookProcesses). The suite must FAIL: this script exits 0 only then, so
// that anyone can repeat the claim that the suite sees each defence's absence (issue 42). The
// variant is a patched copy of the compiled package, installed through RELAY_PACKAGE_TARBALL
// (test/support/stack/packageInstall.ts): nothing of it is a switch in the shipped code.
//
//   no-repair   AccountTable.repair never writes back what another process's save dropped
//               (nodes/shared/sharedWebhook/accountTable.ts `repair`)
//   no-confirm  the trigger answers every Send and Wait confirm "in the database" without looking
//               (nodes/shared/sharing/receiveWaits.ts, `confirmed`)
//
// no-repair fails the suite's first test (a lost pause lets its contact start a run); no-confirm
// fails its second, which builds the race the confirm is for (docs/design/account-state.md).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const VARIANTS = {
	'no-repair': {
		file: 'dist/nodes/shared/sharedWebhook/accountTable.js',
		from: 'repair(context, state, now) {',
		to: 'repair(context, state, now) { return false;',
	},
	'no-confirm': {
		file: 'dist/nodes/shared/sharing/receiveWaits.js',
		from: 'const confirmed = batch.confirm.map((wait) => (0, waitingRuns_1.waitStored)(context, state, wait));',
		to: 'const confirmed = batch.confirm.map(() => true);',
	},
};

const name = process.argv[2];
const variant = VARIANTS[name];
if (!variant) {
	console.error(`usage: node scripts/variants.mjs <${Object.keys(VARIANTS).join('|')}>`);
	process.exit(2);
}

function run(command, args, options = {}) {
	const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
	return result.status ?? 1;
}

if (run('npm', ['run', 'build', '--silent']) !== 0) throw new Error('the build failed');
const copy = mkdtempSync(join(tmpdir(), `relay-variant-${name}-`));
const { files } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const f of ['package.json', 'README.md', 'LICENSE.md', ...files])
	try {
		cpSync(join(root, f), join(copy, f), { recursive: true });
	} catch {
		// A file the package does not have (LICENSE.md) is not needed for the test.
	}
const target = join(copy, variant.file);
const text = readFileSync(target, 'utf8');
const occurrences = text.split(variant.from).length - 1;
if (occurrences !== 1)
	throw new Error(
		`${variant.file}: expected the text to patch once, found it ${occurrences} times`,
	);
writeFileSync(target, text.replace(variant.from, variant.to));
if (run('npm', ['pack', '--silent', '--pack-destination', copy], { cwd: copy }) !== 0)
	throw new Error('npm pack failed');
const tarball = join(
	copy,
	readdirSync(copy).find((f) => f.endsWith('.tgz')),
);
console.log(`variant ${name}: ${tarball}`);

const suite = spawnSync(
	'npx',
	['jest', '-c', 'test/e2e-queue/twoWebhookProcesses/jest.config.js'],
	{
		cwd: root,
		encoding: 'utf8',
		maxBuffer: 256 * 1024 * 1024,
		env: { ...process.env, RELAY_PACKAGE_TARBALL: tarball },
	},
);
process.stdout.write(suite.stdout);
process.stderr.write(suite.stderr);
// A failure before the suite's figures (the stack did not start) shows nothing about the variant.
if (!/two webhook processes: \{/.test(suite.stdout + suite.stderr)) {
	console.error(`variant ${name}: the suite did not reach its verdicts: nothing shown`);
	process.exit(1);
}
if (suite.status === 0) {
	console.error(`variant ${name}: the suite PASSED without this defence: it does not show it`);
	process.exit(1);
}
console.log(`variant ${name}: the suite failed without this defence, as it must`);
