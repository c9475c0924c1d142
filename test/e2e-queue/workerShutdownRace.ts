/**
 * Recognises, in an n8n worker's log, the executions n8n 2.41.1 itself fails while it stops a
 * worker: jobs the worker took from the queue after it had received SIGTERM and that its job
 * processor then failed ("Worker errored while running execution N", scaling.service.js:181,
 * which only a failure outside the workflow's own nodes produces; a node's error ends the run
 * with status error without it).
 *
 * Why n8n takes such a job at all: on SIGTERM the worker pauses its queue locally with
 * `queue.pause(true, true)` (scaling.service.js:214, 226), which only aborts a *blocking* wait for
 * a job (bull/lib/queue.js:905-909). Under load the queue is never drained, so bull fetches the
 * next job with a non-blocking `moveToActive()` (queue.js:1262-1263) that the pause does not
 * stop; n8n's drain loop has already counted no running job and shuts down, and the job starts in
 * a worker that has stopped, fails, and is not retried (n8n sets `maxStalledCount: 0`,
 * scaling.service.js:120). The delivery had been answered 200 by the webhook process: the event is
 * lost in n8n, whatever node the workflow starts with. Seen once, in the CI run of da1caf4
 * (execution 1035; that worker log is test/fixtures/queue-logs/worker-stopped-under-load.log).
 */

const STARTED = /^Worker started execution (\d+) \(job/;
const ERRORED = /^Worker errored while running execution (\d+) \(job/;
const SIGTERM = /^Received SIGTERM\. Shutting down\.\.\./;
const READY = /^n8n worker is now ready/;

/** Ids of executions a worker started after it had received SIGTERM (in the same life) and then failed in its job processor. */
export function failedWhileStopping(logText: string): string[] {
	let stopping = false;
	const startedWhileStopping = new Set<string>();
	const failed: string[] = [];
	for (const line of logText.split('\n')) {
		if (SIGTERM.test(line)) stopping = true;
		else if (READY.test(line)) {
			stopping = false;
			startedWhileStopping.clear();
		} else if (stopping && STARTED.test(line)) startedWhileStopping.add((STARTED.exec(line) as RegExpExecArray)[1]);
		else if (ERRORED.test(line)) {
			const id = (ERRORED.exec(line) as RegExpExecArray)[1];
			if (startedWhileStopping.has(id)) failed.push(id);
		}
	}
	return failed;
}
