/** Types for deployment.js: the running queue-mode deployment, as the suite sees it. */
export interface ProcessSpec {
	name: string;
	pid: number;
	logFile: string;
	healthUrl?: string;
	starts?: number;
}

export interface Deployment {
	mainUrl: string;
	/** Where the service delivers: HAProxy in front of the webhook process (readiness-gated). */
	webhookUrl: string;
	/** The n8n webhook process itself, behind the balancer. */
	webhookProcessUrl: string;
	simUrl: string;
	apiKey: string;
	owner: { email: string; password: string };
	credentials: Record<string, { id: string; name: string }>;
	workflows: Record<string, { id: string; name: string }>;
	processes: Record<string, ProcessSpec>;
	/** Extra environment every n8n process of the deployment runs with (globalSetup.js). */
	env: Record<string, string>;
	workDir: string;
}

export interface ExecutionRow {
	id: string;
	workflowId: string;
	status: string;
	deliveryId: string | null;
	/** For a run that did not succeed: the first error-like text in its data. */
	problem: string | null;
}

export declare function deployment(): Deployment;
export declare function restart(
	name: string,
	hooks?: { onSignalled?: () => void; onStopped?: () => void },
): Promise<{ before: number; after: number; shutdownMs: number; downMs: number }>;
export declare function memory(): Record<string, { rssMb: number; groupRssMb: number }>;
export declare function executions(workflowIds: string[]): ExecutionRow[];
export declare function readLog(name: string): string;
export declare function enqueuedBy(name: string): string[];
export declare function startedBy(name: string): string[];
export declare function bullCounts(): { wait: number; active: number; delayed: number; failed: number };
export declare function report(name: string, data: Record<string, unknown>): void;
export declare function finishedSince(afterId: number): number;
export declare function lastExecutionId(): number;
export declare function soakSettings(): { deliveries: number; concurrency: number; timeoutMs: number };
