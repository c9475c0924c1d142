import { processKey, type ListenerContext } from './processKey';

/**
 * Everything the package keeps in this process's memory beside static data, in one place
 * (docs/design/process-memory.md). A module asks here for a named slot and says what it holds,
 * how many entries it may keep, how long one lives, and whether it goes with a listener's static
 * data. One sweep (oldest first, at each write), one forget when a listener leaves, one list.
 */

/** The part of a listener's static data that a slot's entries go with (webhookState.ts). */
export type ListenerPart = 'holder' | 'membership';

type Bound = number | (() => number);

export interface SlotRules {
	/** What the slot holds, and what a restart or a second process does to it. */
	holds: string;
	/** Beyond it, the entry written longest ago goes (`Infinity`: `boundedBy` says what bounds it). */
	maxEntries: Bound;
	/** What bounds a slot with no count bound and no age bound (how its entries go). */
	boundedBy?: string;
	/** An entry not written for longer reads as absent, and goes at the next write. */
	maxAgeMs?: Bound;
	/** Keyed by listener (listenerKey): its entries go when that part of static data goes. */
	forgottenWith?: ListenerPart;
}

const boundOf = (bound: Bound | undefined) =>
	typeof bound === 'function' ? bound() : (bound ?? Number.POSITIVE_INFINITY);

/** A listener's key in a slot keyed by listener: processKey.ts's, then what tells its entries apart. */
export const listenerKey = (listener: string, ...rest: string[]) =>
	[listener, ...rest].join('\u0000');

export class MemorySlot<V> {
	/** In write order (set() moves an entry to the end), so the oldest are swept from the front. */
	private readonly entries = new Map<string, { value: V; at: number }>();

	constructor(
		readonly name: string,
		readonly rules: SlotRules,
	) {}

	get(key: string, now = Date.now()): V | undefined {
		const entry = this.entries.get(key);
		if (entry === undefined) return undefined;
		if (now - entry.at <= boundOf(this.rules.maxAgeMs)) return entry.value;
		this.entries.delete(key);
		return undefined;
	}

	has(key: string, now = Date.now()): boolean {
		return this.get(key, now) !== undefined;
	}

	/** Keeps `value` under `key`, written now; then the aged and the surplus entries go. */
	set(key: string, value: V, now = Date.now()): V {
		this.entries.delete(key);
		this.entries.set(key, { value, at: now });
		const maxEntries = boundOf(this.rules.maxEntries);
		const maxAgeMs = boundOf(this.rules.maxAgeMs);
		for (const [oldest, entry] of this.entries) {
			if (this.entries.size <= maxEntries && now - entry.at <= maxAgeMs) break;
			this.entries.delete(oldest);
		}
		return value;
	}

	/** The value kept under `key`, or `make()`'s, kept now. */
	getOrSet(key: string, make: () => V, now = Date.now()): V {
		const known = this.get(key, now);
		return known !== undefined ? known : this.set(key, make(), now);
	}

	delete(key: string): boolean {
		return this.entries.delete(key);
	}

	/** The entries within their age, oldest write first. */
	*live(now = Date.now()): IterableIterator<[string, V]> {
		const maxAgeMs = boundOf(this.rules.maxAgeMs);
		for (const [key, entry] of [...this.entries])
			if (now - entry.at <= maxAgeMs) yield [key, entry.value];
	}

	/** Entries kept, aged ones not swept yet included. */
	get size(): number {
		return this.entries.size;
	}

	/** Forgets a listener's entries: its key alone, or followed by more (listenerKey). */
	forgetListener(listener: string) {
		for (const key of [...this.entries.keys()])
			if (key === listener || key.startsWith(`${listener}\u0000`)) this.entries.delete(key);
	}
}

/** A count kept by the process (requests held, reads started): not a cache, but memory all the same. */
export class MemoryCounter {
	private count = 0;

	constructor(
		readonly name: string,
		readonly holds: string,
	) {}

	get value(): number {
		return this.count;
	}

	/** Adds `by` (negative to take away); returns the new count. */
	add(by = 1): number {
		this.count += by;
		return this.count;
	}
}

const slots: Array<MemorySlot<unknown>> = [];
const counters: MemoryCounter[] = [];
const perContext: Array<{ name: string; holds: string }> = [];

/** A slot of this process's memory (called once per slot, at module load). */
export function memorySlot<V>(name: string, rules: SlotRules): MemorySlot<V> {
	const slot = new MemorySlot<V>(name, rules);
	slots.push(slot as MemorySlot<unknown>);
	return slot;
}

export function memoryCounter(name: string, holds: string): MemoryCounter {
	const counter = new MemoryCounter(name, holds);
	counters.push(counter);
	return counter;
}

/** Memory kept per n8n context object (a request, an activation): it goes when n8n drops the context. */
export function contextMemory<V>(name: string, holds: string): WeakMap<object, V> {
	perContext.push({ name, holds });
	return new WeakMap<object, V>();
}

/** The listener's static data of `part` was forgotten: its memory goes too (leaving includes holding). */
export function forgetListenerMemory(context: ListenerContext, part: ListenerPart) {
	const listener = processKey(context);
	const parts: ListenerPart[] = part === 'membership' ? ['holder', 'membership'] : ['holder'];
	for (const slot of slots)
		if (slot.rules.forgottenWith && parts.includes(slot.rules.forgottenWith))
			slot.forgetListener(listener);
}

/** What this process keeps, slot by slot (docs/design/process-memory.md is written from it). */
export function processMemory() {
	return {
		slots: slots.map((slot) => ({
			name: slot.name,
			entries: slot.size,
			maxEntries: boundOf(slot.rules.maxEntries),
			maxAgeMs: boundOf(slot.rules.maxAgeMs),
			boundedBy: slot.rules.boundedBy,
			forgottenWith: slot.rules.forgottenWith,
			holds: slot.rules.holds,
		})),
		counters: counters.map(({ name, holds, value }) => ({ name, holds, value })),
		perContext: [...perContext],
	};
}
