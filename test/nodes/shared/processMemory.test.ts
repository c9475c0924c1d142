/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * One owner for what the package keeps in process memory (issue 43, docs/design/process-memory.md):
 * nodes/shared/processMemory.ts holds every module-level cache as a named slot with its bounds, and
 * forgets a listener's slots with its static data. The slot's rules are tested here, and a scan of
 * nodes/ fails on any module-level memory kept elsewhere (a Map, a Set, a `let`, a mutated array).
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import ts from 'typescript';

import {
	forgetListenerMemory,
	listenerKey,
	MemorySlot,
	memorySlot,
	processMemory,
} from '../../../nodes/shared/processMemory';
import { processKey } from '../../../nodes/shared/processKey';
import { repoRoot } from '../../support/repo';

const ROOT = repoRoot;

describe('a memory slot', () => {
	it('drops the entry written longest ago beyond its count, and a write moves an entry last', () => {
		const slot = new MemorySlot<number>('test', { holds: 'numbers', maxEntries: 2 });
		slot.set('a', 1, 0);
		slot.set('b', 2, 0);
		slot.set('a', 3, 0);
		slot.set('c', 4, 0);
		expect([...slot.live(0)]).toEqual([
			['a', 3],
			['c', 4],
		]);
		expect(slot.size).toBe(2);
	});

	it('reads an entry older than its age as absent, and sweeps the aged ones at a write', () => {
		const slot = new MemorySlot<true>('test', { holds: 'ids', maxEntries: 10, maxAgeMs: 100 });
		slot.set('old', true, 0);
		slot.set('newer', true, 50);
		expect(slot.has('old', 100)).toBe(true);
		expect(slot.has('old', 101)).toBe(false);
		expect(slot.size).toBe(1);
		slot.set('new', true, 151);
		expect([...slot.live(151)].map(([key]) => key)).toEqual(['new']);
		expect(slot.size).toBe(1);
	});

	it('reads its bounds when it needs them, so a limit the tests shorten applies at once', () => {
		const limits = { max: 3 };
		const slot = new MemorySlot<number>('test', { holds: 'n', maxEntries: () => limits.max });
		for (const key of ['a', 'b', 'c']) slot.set(key, 0);
		limits.max = 1;
		slot.set('d', 0);
		expect([...slot.live()].map(([key]) => key)).toEqual(['d']);
	});

	it("forgets a listener's entries and no other listener's", () => {
		const slot = new MemorySlot<number>('test', { holds: 'n', maxEntries: 10 });
		slot.set('wf\u0000Trigger\u0000published', 1);
		slot.set(listenerKey('wf\u0000Trigger\u0000published', 'delivery-1'), 2);
		slot.set('wf\u0000Trigger 2\u0000published', 3);
		slot.forgetListener('wf\u0000Trigger\u0000published');
		expect([...slot.live()].map(([, value]) => value)).toEqual([3]);
	});
});

describe("forgetting a listener's memory", () => {
	const listener = {
		getWorkflow: () => ({ id: 'wf-memory' }),
		getNode: () => ({ name: 'Memory Trigger' }),
		getMode: () => 'trigger',
	} as unknown as Parameters<typeof processKey>[0];

	it('forgets the holder part when it stops holding, and both parts when it leaves', () => {
		const holder = memorySlot<number>('test holder part', {
			holds: 'n',
			maxEntries: 10,
			forgottenWith: 'holder',
		});
		const membership = memorySlot<number>('test membership part', {
			holds: 'n',
			maxEntries: 10,
			forgottenWith: 'membership',
		});
		const neither = memorySlot<number>('test kept part', { holds: 'n', maxEntries: 10 });
		const key = processKey(listener);
		for (const slot of [holder, membership, neither]) slot.set(key, 1);

		forgetListenerMemory(listener, 'holder');
		expect([holder.has(key), membership.has(key), neither.has(key)]).toEqual([false, true, true]);
		holder.set(key, 1);
		forgetListenerMemory(listener, 'membership');
		expect([holder.has(key), membership.has(key), neither.has(key)]).toEqual([false, false, true]);
	});
});

describe('every slot of the shipped nodes', () => {
	it('is named once and bounded, by count or by age, or says what else bounds it', async () => {
		await import('../../../nodes/MessagingRelayTrigger/MessagingRelayTrigger.node');
		await import('../../../nodes/MessagingRelay/MessagingRelay.node');
		const { slots } = processMemory();
		const shipped = slots.filter((slot) => !slot.name.startsWith('test'));
		expect(shipped.length).toBeGreaterThanOrEqual(20);
		expect(new Set(shipped.map((slot) => slot.name)).size).toBe(shipped.length);
		// What each holds is the inventory's text: a word or two does not say it.
		const { counters } = processMemory();
		for (const { name, holds } of [...shipped, ...counters])
			expect({ name, holds: holds.length >= 30 }).toEqual({ name, holds: true });
		for (const slot of shipped) {
			const bounded = Number.isFinite(slot.maxEntries) || Number.isFinite(slot.maxAgeMs);
			expect({
				slot: slot.name,
				bounded: bounded || (slot.boundedBy ?? '').length > 20,
			}).toEqual({
				slot: slot.name,
				bounded: true,
			});
		}
	});
});

/** Top-level names of a file that hold memory not owned by processMemory.ts. */
function memoryOutsideTheOwner(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const collections = /^(Map|Set|WeakMap|WeakSet)$/;
	const owned = /^(memorySlot|memoryCounter|contextMemory)$/;
	for (const statement of source.statements) {
		if (ts.isVariableStatement(statement)) {
			const isLet =
				(statement.declarationList.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) !==
				ts.NodeFlags.Const;
			for (const declaration of statement.declarationList.declarations) {
				const name = declaration.name.getText(source);
				const init = declaration.initializer;
				if (isLet) found.push(`let ${name}`);
				else if (
					init &&
					ts.isNewExpression(init) &&
					collections.test(init.expression.getText(source)) &&
					!/^Readonly/.test(declaration.type?.getText(source) ?? '')
				)
					found.push(`new ${init.expression.getText(source)}: ${name}`);
				else if (
					!(init && ts.isCallExpression(init) && owned.test(init.expression.getText(source))) &&
					new RegExp(`\\b${name}\\.(push|pop|shift|unshift|splice|add|set|delete|clear)\\(`).test(
						text,
					)
				)
					found.push(`mutated: ${name}`);
			}
		}
		if (ts.isClassDeclaration(statement)) {
			for (const member of statement.members) {
				const init = ts.isPropertyDeclaration(member) ? member.initializer : undefined;
				if (init && ts.isNewExpression(init) && collections.test(init.expression.getText(source)))
					found.push(`${statement.name?.getText(source)}.${member.name?.getText(source)}`);
			}
		}
	}
	return found;
}

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sources(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

/**
 * What may stay outside the owner, each with why: it is not memory a process accumulates.
 */
const NOT_PROCESS_MEMORY: Record<string, string> = {
	// The registry of the module's own two tables, filled as the module loads.
	'nodes/shared/sharedWebhook/accountTable.ts mutated: tables': 'fixed at load',
	// An outbox's own queues: the outbox is an entry of the 'wait outboxes' slot.
	'nodes/shared/sendAndWait/waitOutbox.ts Outbox.ends': 'inside a slot entry',
};

it('no module of nodes/ keeps memory of its own: every cache is a slot of processMemory.ts', () => {
	const outside = sources(join(ROOT, 'nodes'))
		.filter((file) => !file.endsWith('processMemory.ts'))
		.flatMap((file) => memoryOutsideTheOwner(file).map((what) => `${relative(ROOT, file)} ${what}`))
		.filter((what) => NOT_PROCESS_MEMORY[what] === undefined);
	expect(outside).toEqual([]);
});

it('the scan sees a Map, a let and a mutated array kept outside the owner', () => {
	const dir = mkdtempSync(join(tmpdir(), 'memory-scan-'));
	const file = join(dir, 'cache.ts');
	writeFileSync(
		file,
		[
			'const byKey = new Map<string, number>();',
			'let count = 0;',
			'const list: string[] = [];',
			'export const add = (id: string) => { list.push(id); count++; };',
			"const slot = memorySlot('x', { holds: 'x', maxEntries: 1 });",
			'export const keep = () => slot.set("a", 1);',
			"const FIXED: ReadonlySet<string> = new Set(['a']);",
		].join('\n'),
	);
	expect(memoryOutsideTheOwner(file)).toEqual(['new Map: byKey', 'let count', 'mutated: list']);
});

it('docs/design/process-memory.md names every shipped slot, counter and per-context memory', async () => {
	await import('../../../nodes/MessagingRelayTrigger/MessagingRelayTrigger.node');
	await import('../../../nodes/MessagingRelay/MessagingRelay.node');
	const page = readFileSync(join(ROOT, 'docs/design/process-memory.md'), 'utf8');
	const { slots, counters, perContext } = processMemory();
	const names = [...slots, ...counters, ...perContext]
		.map((each) => each.name)
		.filter((name) => !name.startsWith('test '));
	expect(names.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
});
