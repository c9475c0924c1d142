/**
 * The unit suite's order: the test files that measure which of the package's code a delivery runs go
 * first, so each starts in a worker process no other test file has used.
 *
 * Jest runs many test files in one worker, each with its own copy of every module, and an earlier file's
 * timers may still call into its copy. V8's coverage cannot tell the copies apart: its compilation cache
 * hands every copy of one source the same script (the copies of retry.ts loaded by setupFiles and by
 * jest.isolateModules share one script id), so their calls count together. CI on 2026-11-29 counted
 * peerClient.ts, signedHandoff.ts and replyRouting.ts in a lone delivery that ran none of them: an
 * earlier file's copy ran them while it was measured. jest-worker hands the first files to its fresh
 * workers, one each, in this order.
 */
const Sequencer = require('@jest/test-sequencer').default;

/** The files that measure code reached (test/support/codeReached.ts): at most one per worker. */
const MEASURED = [/\/loneDelivery\.test\.ts$/];

class MeasuredFirst extends Sequencer {
	sort(tests) {
		const sorted = super.sort(tests);
		const measured = (test) => MEASURED.some((pattern) => pattern.test(test.path));
		return [...sorted.filter(measured), ...sorted.filter((test) => !measured(test))];
	}
}

module.exports = MeasuredFirst;
