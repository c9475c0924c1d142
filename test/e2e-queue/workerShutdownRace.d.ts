/** Ids of executions a worker started after it had received SIGTERM (in the same life) and then failed in its job processor. */
export declare function failedWhileStopping(logText: string): string[];
