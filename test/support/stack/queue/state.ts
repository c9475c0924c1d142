/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The queue-mode deployment's state file: every process with how to start it again and its pid,
 * the ports, the services and what provisioning created. Any jest process (and the reaper)
 * reads it; it is written atomically.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Owner } from '../../n8nClient';
import type { CredentialRef } from '../../workflows';
import type { Ports } from './ports';

/** HAProxy's runtime API socket in the deployment's folder (balancer.ts `adminSocket`). */
export const balancerSocket = (workDir: string) => join(workDir, 'haproxy.sock');

/** How to start one process of the deployment, and its pid while it runs. */
export interface ProcessSpec {
	name: string;
	command: string;
	args: string[];
	env: Record<string, string | undefined>;
	cwd: string;
	logFile: string;
	/** Answers 200 once the process is ready. */
	healthUrl?: string;
	/** Postgres and Redis run as an unprivileged user when this process is root. */
	uid?: number;
	gid?: number;
	pid?: number;
	starts?: number;
}

export interface QueueState {
	stateFile: string;
	workDir: string;
	ports: Ports;
	/** Extra environment of every n8n process. */
	env: Record<string, string>;
	processes: Record<string, ProcessSpec>;
	startedAt: string;
	stopped?: boolean;
	postgres?: { port: number; bin: string };
	redis?: { port: number; cli: string };
	simUrl?: string;
	mainUrl?: string;
	/** Where the service delivers: HAProxy in front of the webhook process (readiness-gated). */
	webhookUrl?: string;
	/** The n8n webhook process itself, behind the balancer. */
	webhookProcessUrl?: string;
	apiKey?: string;
	owner?: Owner;
	credentials?: Record<string, CredentialRef>;
	workflows?: Record<string, { id: string; name: string }>;
}

/** Writes the state file atomically, so the reaper and other jest processes never read half of it. */
export function saveState(state: QueueState): void {
	const temp = `${state.stateFile}.tmp`;
	writeFileSync(temp, JSON.stringify(state, null, 2));
	renameSync(temp, state.stateFile);
}

export function loadState(stateFile: string): QueueState {
	return JSON.parse(readFileSync(stateFile, 'utf8')) as QueueState;
}

/** A process of the deployment that is not n8n: PATH only, run in the deployment's folder (unless told), its log beside. */
export function serviceSpec(
	state: QueueState,
	name: string,
	command: string,
	args: string[],
	more: Partial<ProcessSpec> = {},
): ProcessSpec {
	return {
		name,
		command,
		args,
		env: { PATH: process.env.PATH },
		cwd: state.workDir,
		logFile: join(state.workDir, `${name}.log`),
		...more,
	};
}
