// `node scripts/listedTypes.cjs` (after `npm run build`): writes what n8n lists of the package's
// nodes and credential (n8n-core's PackageDirectoryLoader, as n8n loads a community package) to
// test/package/fixtures/listed-types.json, which loadsAsCommunityPackage.test.ts holds the build
// to byte for byte. Run it only for a deliberate change of a description, and say why in the commit.
const { writeFileSync } = require('node:fs');
const { join } = require('node:path');

const { PackageDirectoryLoader } = require('n8n-core');

const root = join(__dirname, '..');

void (async () => {
	const loader = new PackageDirectoryLoader(root);
	await loader.loadAll();
	const file = join(root, 'test', 'package', 'fixtures', 'listed-types.json');
	writeFileSync(file, JSON.stringify(loader.types, null, 1) + '\n');
	console.log(`written: ${file}`);
})();
