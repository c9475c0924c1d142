/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * A readiness-gated load balancer (Debian's HAProxy) in front of n8n, as README's Scaling tells
 * hosts to run one. n8n listens before its webhooks exist and answers every request with 200
 * "n8n is starting up. Please wait" until its database migrations are done
 * (n8n/dist/abstract-server.js:108-113, listen at :152, webhook routes in start() :158-166):
 * a delivery sent straight to a starting n8n is acknowledged and never runs. The balancer sends a
 * request to n8n only while its /healthz/readiness answers 200 (checked every 500 ms; one failed
 * check takes it out, one good one puts it back); meanwhile a delivery gets 503, which the
 * service retries. A refused connection (n8n just exited) is retried by HAProxy itself before it
 * answers 503. Timeouts are long enough for a shared-webhook hand-off that waits for a member's
 * burst (75 s). Used by the queue-mode stack (in front of the webhook process) and by the
 * single-process end-to-end stack (in front of the n8n that the mixed soak restarts).
 */
import { existsSync } from 'node:fs';

import { aptInstall } from './runtime';

export const HAPROXY = '/usr/sbin/haproxy';

export function ensureHaproxy(): string {
	if (!existsSync(HAPROXY)) aptInstall(['haproxy']);
	return HAPROXY;
}

/**
 * HAProxy's configuration: listen on `listenPort`, route to n8n on `backendPort` (or, with
 * `backendPorts`, to each in turn: HAProxy's default round robin) while it is ready. The servers
 * are named `n8n1`, `n8n2`, … in the order of the ports, in the backend `n8n`.
 */
export function balancerConfig({
	listenPort,
	backendPort,
	backendPorts,
	adminSocket,
}: {
	listenPort: number;
	backendPort: number;
	backendPorts?: number[];
	/** A Unix socket for HAProxy's runtime API (a test takes a server out and puts it back). */
	adminSocket?: string;
}): string {
	const backends = backendPorts ?? [backendPort];
	return [
		'global',
		'  maxconn 2000',
		...(adminSocket ? [`  stats socket ${adminSocket} mode 600 level admin`] : []),
		'defaults',
		'  mode http',
		'  timeout connect 2s',
		'  timeout client 180s',
		'  timeout server 180s',
		'  timeout http-request 30s',
		'  timeout check 10s',
		'  retries 3',
		// One connection to n8n per request, closed after its answer. A reused keep-alive connection
		// would carry new requests into an n8n that has begun to stop (Node's server.close() only
		// stops new connections), whose answers can die with the process after their runs started
		// (seen in the mixed soak: the service redelivered an event a member had already run). A
		// new connection to a stopping n8n is refused before anything is sent, and retried safely.
		'  option http-server-close',
		'  http-reuse never',
		'frontend deliveries',
		`  bind 127.0.0.1:${listenPort}`,
		'  monitor-uri /__balancer/alive',
		'  default_backend n8n',
		'backend n8n',
		'  option httpchk GET /healthz/readiness',
		'  http-check expect status 200',
		'  default-server inter 500ms fall 1 rise 1',
		'  balance roundrobin',
		...backends.map((port, i) => `  server n8n${i + 1} 127.0.0.1:${port} check`),
		'',
	].join('\n');
}

/** HAProxy's command line for a config file: -db keeps it in the foreground as one process, so its pid is the one to stop. */
export const balancerArgs = (configFile: string): string[] => ['-db', '-f', configFile];
