import { failedWhileStopping } from './workerShutdownRace';
import { readText } from '../support/repo';

/**
 * The queue soak excuses a lost event only when n8n itself failed its execution while stopping a
 * worker (test/e2e-queue/workerShutdownRace.ts says why n8n does). These pin what counts as that,
 * on the worker log of the CI run where it happened, so nothing else can hide behind it.
 */
const ciLog = readText('test', 'fixtures', 'queue-logs', 'worker-stopped-under-load.log');

describe('executions n8n fails while it stops a worker', () => {
	test('the CI run\'s worker log: the job taken after SIGTERM and failed by the job processor', () => {
		expect(failedWhileStopping(ciLog)).toEqual(['1035']);
	});

	test('a job processor failure before SIGTERM is not excused', () => {
		const log = ciLog.replace(
			'Worker finished execution 1029 (job 1029)',
			'Worker errored while running execution 1029 (job 1029)',
		);
		expect(failedWhileStopping(log)).toEqual(['1035']);
	});

	test('a failure in the worker\'s next life is not excused, even for a job started while stopping', () => {
		const log = ciLog.replace('Worker errored while running execution 1035 (job 1035)\n', '') +
			'Worker errored while running execution 1035 (job 1035)\n';
		expect(failedWhileStopping(log)).toEqual([]);
	});

	test('a job started while stopping that finished is not a failure', () => {
		expect(failedWhileStopping(ciLog.replace('Worker errored while running execution 1035', 'Worker finished execution 1035'))).toEqual([]);
	});
});
