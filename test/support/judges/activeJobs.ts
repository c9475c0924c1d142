/**
 * Bull's active list as the queue soak reads it from Redis (test/e2e-queue/bullJobs.ts, activeJobs):
 * which worker life holds each job's lock and when it fetched it. The parsing is judge logic, unit-tested
 * on redis-cli's output in test/judges/workerShutdownRace.test.ts.
 */
export interface ActiveJob {
	jobId: string;
	/** The queue token of the worker (life) holding the job's lock; null once the lock expired. */
	lockToken: string | null;
	/** When a worker fetched it (ms since epoch, the fetching worker's clock: this machine's). */
	processedOn: number | null;
}

/** redis-cli's --no-raw list (`1) "id|token|ms"`, or `(empty array)`) as ActiveJob[]. */
export function parseActiveJobs(out: string): ActiveJob[] {
	return [...out.matchAll(/"([^"|]*)\|([^"|]*)\|([^"|]*)"/g)].map(
		([, jobId, lockToken, processedOn]) => ({
			jobId,
			lockToken: lockToken || null,
			processedOn: processedOn ? Number(processedOn) : null,
		}),
	);
}
