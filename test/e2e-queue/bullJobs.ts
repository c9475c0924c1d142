/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Which worker fetched a job, read from Bull in the deployment's Redis: when a worker fetches a
 * job, Bull's moveToActive script locks it with that worker's queue token and stamps the fetch
 * time (bull/lib/commands/moveToActive-8.lua:133-143; the token is one uuid per Queue, i.e. per
 * worker life, bull/lib/queue.js:120, passed at bull/lib/scripts.js:113-123). The lock outlives a
 * worker that exits without finishing the job, for n8n's lockDuration (60 s,
 * @n8n/config/dist/configs/scaling-mode.config.js:169), which is what lets the soak see, at the
 * moment a stopped worker has exited, the job it fetched and never started.
 */
import { parseActiveJobs, type ActiveJob } from '../support/judges/activeJobs';
import { redisCli } from '../support/stack/queue/services';

export type { ActiveJob } from '../support/judges/activeJobs';

/** One line per job in Bull's active list: id|lock token|processedOn (one Redis round trip). */
const ACTIVE_WITH_LOCKS = `local out = {}
for _, id in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local lock = redis.call('GET', ARGV[1] .. id .. ':lock') or ''
  local fetched = redis.call('HGET', ARGV[1] .. id, 'processedOn') or ''
  table.insert(out, id .. '|' .. lock .. '|' .. fetched)
end
return out`;

/** Jobs in Bull's active list now (n8n's queue `jobs`, prefix `bull`), with their lock and fetch time. */
export function activeJobs(): ActiveJob[] {
	const stateFile = process.env.RELAY_QUEUE_STACK;
	if (!stateFile)
		throw new Error(
			'RELAY_QUEUE_STACK is not set: run this suite with test/e2e-queue/jest.config.js',
		);
	const out = redisCli(stateFile, [
		'--no-raw',
		'eval',
		ACTIVE_WITH_LOCKS,
		'1',
		'bull:jobs:active',
		'bull:jobs:',
	]);
	return parseActiveJobs(out);
}
