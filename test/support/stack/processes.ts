/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/** Facts about this machine's processes, from /proc and signals: is it alive, how much memory. */
import { readdirSync, readFileSync } from 'node:fs';

export function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: it exists, as another user's process (Postgres and Redis run as relaytest).
		return (error as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** Resident memory of a process in KiB (0 when it is gone). */
export function residentKb(pid: number): number {
	try {
		return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
	} catch {
		return 0;
	}
}

/** Resident memory in MiB of a process and of its whole process group (n8n plus its task runner). */
export function memoryMb(pid: number): { rssMb: number; groupRssMb: number } {
	let group = 0;
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const pgrp = Number(statFields(Number(entry))[2]);
			if (pgrp === pid) group += residentKb(Number(entry));
		} catch {
			// The process ended while we looked.
		}
	}
	return { rssMb: Math.round(residentKb(pid) / 1024), groupRssMb: Math.round(group / 1024) };
}

/**
 * The fields of /proc/<pid>/stat after the parenthesised command name (which may hold spaces):
 * [0] state (field 3), [1] ppid, [2] pgrp, ... [11] utime and [12] stime (fields 14 and 15). Throws
 * when the process is gone.
 */
function statFields(pid: number): string[] {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** CPU time a process has used so far (user + system), in ms (0 when it is gone): clock ticks, 100 a second on Linux. */
export function cpuMs(pid: number): number {
	try {
		const fields = statFields(pid);
		return (Number(fields[11]) + Number(fields[12])) * 10;
	} catch {
		return 0;
	}
}
