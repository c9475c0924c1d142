/**
 * Holds, in Postgres, the one save of a workflow's static data that first writes a marker (a chat's
 * wait), so that a test can line another save up behind it: a trigger BEFORE UPDATE waits for an
 * advisory lock the test holds. The row is locked by then (a row trigger runs on the locked row), so
 * every later UPDATE of the workflow waits behind the held one and lands after it, in order. Another
 * trigger records each save of the static data: whether it carried the marker, and in what order.
 * Only this suite's database is touched, and `remove` takes it all away again.
 */
import { sql, sqlSession } from '../../support/stack/queue/running';
import { waitUntil } from '../../support/waitUntil';

const LOCK = 424242;

/** What Postgres is doing for n8n on the workflow's row: waiting on the test's lock, or behind it. */
function waitingSaves() {
	const rows = sql(
		`select wait_event from pg_stat_activity
		  where wait_event_type = 'Lock' and query ilike 'update %workflow_entity%'`,
	);
	return {
		held: rows.filter(([event]) => event === 'advisory').length,
		behind: rows.filter(([event]) => event !== 'advisory').length,
	};
}

/** What n8n's connections are doing, for an error message. */
function activity(): string {
	return sql(
		`select pid, state, wait_event_type, wait_event, left(query, 120) from pg_stat_activity
		  where datname = current_database() and pid <> pg_backend_pid()`,
	)
		.map((row) => row.join(' | '))
		.join('\n');
}

async function waitFor(what: string, check: () => boolean, timeoutMs: number) {
	await waitUntil(what, check, { timeoutMs, intervalMs: 20 }).catch((error: Error) => {
		throw new Error(`${error.message}; Postgres meanwhile:\n${activity()}`);
	});
}

export async function holdSaves(workflowId: string, marker: string) {
	const id = workflowId.replace(/'/g, "''");
	const mark = marker.replace(/'/g, "''");
	sql(`
		drop table if exists relay_test_saves;
		create table relay_test_saves (
			n serial primary key,
			at timestamptz not null default clock_timestamp(),
			has_wait boolean not null,
			pid int not null default pg_backend_pid()
		);
		create or replace function relay_test_hold() returns trigger language plpgsql as $$
		begin
			if position(tg_argv[0] in coalesce(new."staticData"::text, '')) > 0
				and position(tg_argv[0] in coalesce(old."staticData"::text, '')) = 0 then
				perform pg_advisory_xact_lock_shared(${LOCK});
			end if;
			return new;
		end $$;
		create or replace function relay_test_record() returns trigger language plpgsql as $$
		begin
			insert into relay_test_saves (has_wait)
				values (position(tg_argv[0] in coalesce(new."staticData"::text, '')) > 0);
			return new;
		end $$;
		drop trigger if exists relay_test_hold on workflow_entity;
		drop trigger if exists relay_test_record on workflow_entity;
		create trigger relay_test_hold before update on workflow_entity for each row
			when (new.id = '${id}') execute function relay_test_hold('${mark}');
		create trigger relay_test_record after update on workflow_entity for each row
			when (new.id = '${id}' and new."staticData"::text is distinct from old."staticData"::text)
			execute function relay_test_record('${mark}');
	`);
	const session = sqlSession();
	await session.run(`select pg_advisory_lock(${LOCK})`);
	let released = false;
	return {
		/** Resolves once the save that first writes the marker waits on the test's lock. */
		held: async () =>
			await waitFor('the save of the wait to be held', () => waitingSaves().held > 0, 60_000),
		/** Resolves once another save of the workflow waits behind the held one. */
		queuedBehind: async () =>
			await waitFor(
				'another save to wait behind the held one',
				() => waitingSaves().behind > 0,
				30_000,
			),
		/** Lets the held save go (then the one behind it). */
		release: () => {
			if (released) return;
			released = true;
			void session.run(`select pg_advisory_unlock(${LOCK})`).finally(() => session.close());
		},
		/** Each save of the workflow's static data since holdSaves, in order: did it carry the marker? */
		history: () =>
			sql('select has_wait, pid from relay_test_saves order by n').map(([hasWait, pid]) => ({
				hasWait: hasWait === 't',
				pid: Number(pid),
			})),
		remove: async () => {
			sql(`
				drop trigger if exists relay_test_hold on workflow_entity;
				drop trigger if exists relay_test_record on workflow_entity;
				drop function if exists relay_test_hold();
				drop function if exists relay_test_record();
				drop table if exists relay_test_saves;
			`);
		},
	};
}
