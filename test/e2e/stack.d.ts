/** Types for stack.js: what the end-to-end suites get from the running n8n and simulator. */
export interface StackInfo {
	n8nUrl: string;
	simUrl: string;
	/** The readiness-gated balancer in front of n8n (scripts/lib/balancer.js). */
	balancerUrl: string;
	userFolder: string;
	logFile: string;
	apiKey: string;
	owner: { email: string; password: string };
	credentials: Record<string, { id: string; name: string }>;
	workflows: Record<string, { id: string; name: string }>;
	artifacts: string;
	env: Record<string, string>;
	n8nPid: number;
}

export declare function stackInfo(): StackInfo;
export declare function readN8nLog(): string;
export declare function runN8nCli(
	args: string[],
	extraEnv?: Record<string, string>,
): { status: number | null; stdout: string; stderr: string };
export declare function n8nMemoryMb(): number;
export declare function restartN8n(): Promise<void>;
export declare function report(name: string, data: Record<string, unknown>): void;
