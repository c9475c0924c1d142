/**
 * What the queue deployment's database says about the soak's executions, for judging a run that
 * did not succeed (workerShutdownRace.ts): the delivery each execution was created for, and how a
 * failed one ended.
 *
 * The delivery id has to be kept when the execution is created: when a worker fails a job, the
 * webhook process replaces the execution's data with the error alone (n8n/dist/workflow-runner.js:
 * 210-230, `runData: {}`), and the trigger's item with its delivery id is gone from the row.
 */
import { sql } from '../support/stack/queue/running';
import { storedOutcome, type StoredOutcome } from '../support/judges/workerShutdownRace';

/**
 * From now on, records for each execution the first delivery id (the suite's `qd-N`) its data
 * holds: at creation that is the trigger's item as the webhook process enqueued it. A table and
 * a trigger of the test database, nothing in n8n; installing it again changes nothing.
 */
export function recordEnqueuedDeliveries(): void {
	sql(`create table if not exists relay_soak_enqueued (execution_id text primary key, delivery_id text not null);
	     create or replace function relay_soak_record_enqueued() returns trigger language plpgsql as $$
	     begin
	       insert into relay_soak_enqueued values (new."executionId"::text, substring(new.data from '"(qd-[0-9]+)"'))
	         on conflict do nothing;
	       return new;
	     end $$;
	     drop trigger if exists relay_soak_enqueued on execution_data;
	     create trigger relay_soak_enqueued after insert or update on execution_data for each row
	       when (new.data ~ '"qd-[0-9]+"') execute function relay_soak_record_enqueued();`);
}

/** executionId → the delivery id it was created for (executions since recordEnqueuedDeliveries). */
export function enqueuedDeliveries(): Record<string, string> {
	return Object.fromEntries(sql('select execution_id, delivery_id from relay_soak_enqueued'));
}

/** executionId → storedOutcome of its data (the error it ended with, the nodes that ran). */
export function storedOutcomes(executionIds: string[]): Record<string, StoredOutcome> {
	if (executionIds.length === 0) return {};
	const ids = executionIds.map((id) => Number(id)).join(',');
	// Base64 without line breaks: the data may hold the column separator and newlines.
	const rows = sql(
		`select "executionId", translate(encode(convert_to(data, 'UTF8'), 'base64'), E'\\n', '')
		   from execution_data where "executionId" in (${ids})`,
	);
	return Object.fromEntries(
		rows.map(([id, data]) => [id, storedOutcome(Buffer.from(data, 'base64').toString('utf8'))]),
	);
}
