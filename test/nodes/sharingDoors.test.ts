/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The shared webhook's side of a delivery (nodes/shared/sharing/) is entered through a few doors
 * (issue 43). Until 2026-11-29 it was the trigger's `sharing/` folder, and the trigger's files around it
 * (who is calling, the managed secret, the hand-off handlers, the closing gate) reached into the account
 * tables, the hand-off key and the process key one small step at a time: one delivery moved between
 * the trigger's folder and shared/ 23 times each way (farm-studio walk of `deliver`; 6 after the move).
 * The list below is every name another folder imports from it: a new one is a new door, chosen here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import ts from 'typescript';

import { repoRoot } from '../support/repo';

const NODES = join(repoRoot, 'nodes');
const SHARING = join(NODES, 'shared', 'sharing');

const DOORS: Record<string, string[]> = {
	// The delivery pipeline (triggerVersion.ts): the gate, who is calling, a control hand-off, the
	// account's other triggers, and whether there are any.
	closingGate: ['closeGate', 'holdUntilAnswered', 'isClosing', 'openGate'],
	whoIsCalling: ['Caller', 'whoIsCalling'],
	receiveHandoff: ['receiveHandoff'],
	shareDelivery: ['shareDelivery'],
	deliveryLedger: ['holderLedger'],
	missedEventId: ['missedEventId'],
	// Publishing (webhookLifecycle.ts) and the check while published (registrationRepair.ts).
	managedSecret: ['keepManagedSecret'],
	missedReport: ['askWhatWasMissed', 'confirmReported'],
};

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return path === SHARING ? [] : sources(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

/** Each module of nodes/shared/sharing/ with the names the rest of nodes/ imports from it. */
function namesImportedFromSharing(): Record<string, string[]> {
	const found: Record<string, Set<string>> = {};
	for (const file of sources(NODES)) {
		const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
		for (const statement of source.statements) {
			if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
			const specifier = statement.moduleSpecifier;
			if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
			const target = resolve(dirname(file), specifier.text);
			if (dirname(target) !== SHARING) continue;
			const names = (found[relative(SHARING, target)] ??= new Set());
			const bindings = ts.isImportDeclaration(statement)
				? statement.importClause?.namedBindings
				: statement.exportClause;
			if (bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings)))
				for (const element of bindings.elements)
					names.add((element.propertyName ?? element.name).text);
			else names.add('*');
		}
	}
	return Object.fromEntries(
		Object.entries(found).map(([module, names]) => [module, [...names].sort()]),
	);
}

test('the rest of nodes/ enters nodes/shared/sharing/ only through its doors', () => {
	expect(namesImportedFromSharing()).toEqual(DOORS);
});
