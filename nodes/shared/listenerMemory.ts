import { processKey, type ListenerContext } from './processKey';

/**
 * What a listener (processKey.ts) keeps in this process's memory beside its static data is forgotten with
 * that static data (docs/design/process-memory.md): otherwise a listener published again in the same
 * process merges the old copies back into its new static data. Each module that keeps such memory says
 * here how to forget it, and for which part: `holder` goes when the listener stops holding the account's
 * registration (webhookState.ts forgetHolder), `membership` when it leaves the account's webhook.
 */
export type ListenerPart = 'holder' | 'membership';

const forgetters: Record<ListenerPart, Array<(key: string) => void>> = {
	holder: [],
	membership: [],
};

/** Registers how to forget one listener's memory of `part` (called once, at module load). */
export function forgetWith(part: ListenerPart, forget: (key: string) => void) {
	forgetters[part].push(forget);
}

/** The listener's static data of `part` was forgotten: its memory goes too (leaving includes holding). */
export function forgetListenerMemory(context: ListenerContext, part: ListenerPart) {
	const key = processKey(context);
	const parts: ListenerPart[] = part === 'membership' ? ['holder', 'membership'] : ['holder'];
	for (const each of parts) for (const forget of forgetters[each]) forget(key);
}
