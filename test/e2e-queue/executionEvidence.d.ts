/** Types for executionEvidence.js: what the queue deployment's database says about the soak's executions. */
import type { StoredOutcome } from './workerShutdownRace';

/** From now on, records for each execution the delivery id it was created with. */
export declare function recordEnqueuedDeliveries(): void;
/** executionId → the delivery id it was created for. */
export declare function enqueuedDeliveries(): Record<string, string>;
/** executionId → how its stored data says it ended. */
export declare function storedOutcomes(executionIds: string[]): Record<string, StoredOutcome>;
