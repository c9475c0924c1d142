/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * What n8n's queue mode needs besides n8n: Postgres and Redis from Debian's packages (installed
 * with apt-get when missing, with HAProxy), started as an unprivileged user in the deployment's
 * temporary folder on free loopback ports; and a way to ask each of them (psql, redis-cli).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { waitUntil } from '../../waitUntil';
import { HAPROXY } from '../balancer';
import { aptInstall, run, say } from '../runtime';
import { launch } from './processGroups';
import { freePort } from '../ports';
import { loadState, saveState, serviceSpec, type QueueState } from './state';

const UNPRIVILEGED_USER = 'relaytest';
export const DB_NAME = 'n8n';
export const DB_USER = 'n8n';
const REDIS_SERVER = '/usr/bin/redis-server';
const REDIS_CLI = '/usr/bin/redis-cli';

export interface Services {
	pgBin: string;
	redisServer: string;
	redisCli: string;
	haproxy: string;
}

/** The user the servers run as (Postgres refuses root); empty when this process is not root. */
export type RunAs = { uid?: number; gid?: number };

/** The newest Postgres server binaries Debian installed (/usr/lib/postgresql/<version>/bin). */
function findPostgresBin(): string | undefined {
	const root = '/usr/lib/postgresql';
	if (!existsSync(root)) return undefined;
	const versions = readdirSync(root)
		.filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? join(root, versions[0], 'bin') : undefined;
}

/** Debian's postgresql, redis-server and haproxy, installed when missing (without starting their system services). */
export function ensureQueueServices(): Services {
	const missing: string[] = [];
	if (!findPostgresBin()) missing.push('postgresql');
	if (!existsSync(REDIS_SERVER) || !existsSync(REDIS_CLI)) missing.push('redis-server');
	if (!existsSync(HAPROXY)) missing.push('haproxy');
	if (missing.length) aptInstall(missing);
	return {
		pgBin: findPostgresBin() as string,
		redisServer: REDIS_SERVER,
		redisCli: REDIS_CLI,
		haproxy: HAPROXY,
	};
}

/** As root, the servers run as `relaytest` (created if missing). */
export function unprivilegedIds(): RunAs {
	if (!(typeof process.getuid === 'function' && process.getuid() === 0)) return {};
	const lookup = () => spawnSync('id', ['-u', UNPRIVILEGED_USER], { encoding: 'utf8' });
	if (lookup().status !== 0) {
		say(`creating the unprivileged user ${UNPRIVILEGED_USER} for Postgres and Redis`);
		run('useradd', [
			'--system',
			'--no-create-home',
			'--shell',
			'/usr/sbin/nologin',
			UNPRIVILEGED_USER,
		]);
	}
	const uid = Number(lookup().stdout.trim());
	const gid = Number(
		spawnSync('id', ['-g', UNPRIVILEGED_USER], { encoding: 'utf8' }).stdout.trim(),
	);
	return { uid, gid };
}

/** A folder of the deployment the servers' user may write. */
function serverFolder(state: QueueState, name: string, ids: RunAs): string {
	const dir = join(state.workDir, name);
	mkdirSync(dir, { recursive: true });
	if (ids.uid !== undefined) chownSync(dir, ids.uid, ids.gid as number);
	return dir;
}

/** Runs SQL in the deployment's database; returns the rows, columns split by `|`. */
export function psql(stateFile: string, sql: string): string[][] {
	const { postgres } = loadState(stateFile);
	if (!postgres) throw new Error('The deployment has no Postgres yet');
	const result = spawnSync(
		join(postgres.bin, 'psql'),
		[
			'-h',
			'127.0.0.1',
			'-p',
			String(postgres.port),
			'-U',
			DB_USER,
			'-d',
			DB_NAME,
			'-At',
			'-F',
			'|',
			'-v',
			'ON_ERROR_STOP=1',
			'-c',
			sql,
		],
		{ encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
	);
	if (result.status !== 0) throw new Error(`psql failed: ${result.stderr}`);
	return result.stdout
		.split('\n')
		.filter((line) => line !== '')
		.map((line) => line.split('|'));
}

/**
 * One psql session kept open, for what must outlive a statement (a lock held while a test acts).
 * `run` sends one statement and resolves with its output once psql printed it; `close` ends it.
 */
export function psqlSession(stateFile: string) {
	const { postgres } = loadState(stateFile);
	if (!postgres) throw new Error('The deployment has no Postgres yet');
	const child = spawn(
		join(postgres.bin, 'psql'),
		['-h', '127.0.0.1', '-p', String(postgres.port), '-U', DB_USER, '-d', DB_NAME, '-AtqX'],
		{ stdio: ['pipe', 'pipe', 'pipe'] },
	);
	const DONE = '__relay_psql_done__';
	let output = '';
	let waiting: { resolve: (out: string) => void; reject: (e: Error) => void } | undefined;
	const settle = () => {
		const at = output.indexOf(`${DONE}\n`);
		if (at < 0 || !waiting) return;
		const out = output.slice(0, at);
		output = output.slice(at + DONE.length + 1);
		const { resolve } = waiting;
		waiting = undefined;
		resolve(out);
	};
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
		output += chunk;
		settle();
	});
	child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
		waiting?.reject(new Error(`psql: ${chunk}`));
		waiting = undefined;
	});
	return {
		run: async (statement: string): Promise<string> =>
			await new Promise<string>((resolve, reject) => {
				waiting = { resolve, reject };
				child.stdin.write(`${statement};\n\\echo ${DONE}\n`);
			}),
		close: () => {
			child.stdin.end('\\q\n');
		},
	};
}

/** Runs a redis-cli command against the deployment's Redis; returns its output. */
export function redisCli(stateFile: string, args: string[]): string {
	const { redis } = loadState(stateFile);
	if (!redis) throw new Error('The deployment has no Redis yet');
	const result = spawnSync(redis.cli, ['-h', '127.0.0.1', '-p', String(redis.port), ...args], {
		encoding: 'utf8',
	});
	if (result.status !== 0) throw new Error(`redis-cli failed: ${result.stderr}`);
	return result.stdout.trim();
}

export async function startPostgres(
	state: QueueState,
	services: Services,
	ids: RunAs,
): Promise<void> {
	const dir = serverFolder(state, 'postgres', ids);
	const data = join(dir, 'data');
	const port = await freePort();
	say(`initialising Postgres in ${data}`);
	const init = spawnSync(
		join(services.pgBin, 'initdb'),
		['-D', data, '-U', DB_USER, '-A', 'trust', '-E', 'UTF8', '--no-locale'],
		{
			encoding: 'utf8',
			cwd: dir,
			...ids,
		},
	);
	if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
	// A throwaway database for tests: durability settings off, loopback only.
	const args = [
		'-D',
		data,
		'-p',
		String(port),
		'-c',
		'listen_addresses=127.0.0.1',
		'-c',
		`unix_socket_directories=${dir}`,
		'-c',
		'fsync=off',
		'-c',
		'synchronous_commit=off',
		'-c',
		'full_page_writes=off',
		'-c',
		'max_connections=200',
	];
	const spec = serviceSpec(state, 'postgres', join(services.pgBin, 'postgres'), args, {
		env: { PATH: process.env.PATH, LANG: 'C' },
		cwd: dir,
		...ids,
	});
	state.processes.postgres = { ...spec, pid: launch(spec) };
	state.postgres = { port, bin: services.pgBin };
	saveState(state);
	say(`starting Postgres on 127.0.0.1:${port}`);
	await waitUntil(
		'Postgres to accept connections',
		() =>
			spawnSync(join(services.pgBin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'])
				.status === 0,
		{ timeoutMs: 60_000 },
	);
	const created = spawnSync(
		join(services.pgBin, 'createdb'),
		['-h', '127.0.0.1', '-p', String(port), '-U', DB_USER, DB_NAME],
		{
			encoding: 'utf8',
		},
	);
	if (created.status !== 0) throw new Error(`createdb failed: ${created.stderr}`);
}

export async function startRedis(state: QueueState, services: Services, ids: RunAs): Promise<void> {
	const dir = serverFolder(state, 'redis', ids);
	const port = await freePort();
	const args = [
		'--port',
		String(port),
		'--bind',
		'127.0.0.1',
		'--dir',
		dir,
		'--save',
		'',
		'--appendonly',
		'no',
		'--daemonize',
		'no',
	];
	const spec = serviceSpec(state, 'redis', services.redisServer, args, { cwd: dir, ...ids });
	state.processes.redis = { ...spec, pid: launch(spec) };
	state.redis = { port, cli: services.redisCli };
	saveState(state);
	say(`starting Redis on 127.0.0.1:${port}`);
	await waitUntil('Redis to answer PING', () => redisCli(state.stateFile, ['ping']) === 'PONG', {
		timeoutMs: 30_000,
		ignoreErrors: true,
	});
}
