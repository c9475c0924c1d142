/**
 * Reads back the events a "This workflow missed N event(s) …" report names in its description
 * (registrationRepair.ts, missedEventsList): "Missed events (id, type, when): <id>, <type>, <ISO
 * time>; …." and, when the holder kept fewer than it counted, "<n> more were missed, counted only
 * (…).". Used by the unit tests and the e2e (setAside.e2e.ts) to compare the reports id for id.
 */
export interface ListedMisses {
	events: Array<{ id: string; type: string; at: string }>;
	/** Misses the holder counted without keeping them. */
	notKept: number;
}

// After a blank line in the description; after a space where n8n 1.123's log has it on one line
// (n8n/capabilities.ts, saveFailedExecution).
const LIST =
	/\s+Missed events \(id, type, when\): (.*?)\.(?: (\d+) more were missed, counted only \(beyond the \d+ kept one by one\)\.)?$/s;

/** The events listed in a report's description, or undefined when it lists none (a holder of an earlier version). */
export function missedEventsIn(description: string | null | undefined): ListedMisses | undefined {
	const match = LIST.exec(description ?? '');
	if (!match) return undefined;
	const events = match[1].split('; ').map((entry) => {
		// The id is everything before the last two fields (an id may hold ", ").
		const parts = entry.split(', ');
		const at = parts.pop()!;
		const type = parts.pop()!;
		return { id: parts.join(', '), type, at };
	});
	return { events, notKept: Number(match[2] ?? 0) };
}
