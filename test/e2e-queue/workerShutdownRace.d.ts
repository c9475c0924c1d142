/** Types for workerShutdownRace.js: the one loss the queue soak excuses, and how it is recognised. */
export interface StoredOutcome {
	error: { message: string | null; node: string | null; name: string | null; stack: string | null } | null;
	ranNodes: string[];
}

export interface Verdict {
	excused: Array<{ executionId: string; workflowId: string; deliveryId: string; message: string }>;
	unexcused: Array<{ executionId: string; workflowId: string; status: string; why: string }>;
	unexplainedLosses: Array<{ workflowId: string; deliveryId: string }>;
}

/** What a query gets once the worker has begun closing its database connection. */
export declare const CLOSED_DATABASE: string[];
/** Ids of executions a worker started after it had received SIGTERM (in the same life) and then failed in its job processor. */
export declare function failedWhileStopping(logText: string): string[];
/** n8n's flatted execution data, read back. */
export declare function unflatten(text: string): unknown;
/** What a run's stored data says about how it ended. */
export declare function storedOutcome(dataText: string): StoredOutcome;
/** Judges every run of the soak that did not succeed, and every delivery a workflow lost. */
export declare function judgeFailedRuns(input: {
	runs: Array<{ id: string; workflowId: string; status: string }>;
	workerLogs: string[];
	outcomes: Record<string, StoredOutcome>;
	enqueued: Record<string, string>;
	lost: Record<string, string[]>;
}): Verdict;
