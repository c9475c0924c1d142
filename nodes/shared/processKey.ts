/** The parts of an n8n context (webhook, trigger or hook functions) that name one node's listener. */
export interface ListenerContext {
	getWorkflow(): { id?: string };
	getNode(): { name: string };
	getMode(): string;
}

/**
 * The key under which this process keeps something in memory for one node of one workflow:
 * workflow id, node name, and whether it is the test listener ("Listen for test event", n8n's
 * mode `manual`) or the published workflow. The two are separate listeners with separate static
 * data. Every other mode counts as published, so that what trigger() files (mode `trigger`) is
 * found by webhook() (mode `webhook`) of the same workflow.
 */
export function processKey(context: ListenerContext): string {
	const listener = context.getMode() === 'manual' ? 'test' : 'published';
	return [context.getWorkflow().id ?? '', context.getNode().name, listener].join('\u0000');
}
