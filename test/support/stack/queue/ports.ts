/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/** The deployment's loopback ports: fixed ones from a base (checked free first) and free ones picked by the system. */
import { requirePortsFree } from '../ports';

export interface Ports {
	main: number;
	/** Where deliveries go: the balancer. */
	webhook: number;
	/** The n8n webhook process behind the balancer. */
	webhookProcess: number;
	/** A second webhook process (QueueOptions.webhookProcesses: 2). */
	webhookProcess2: number;
	workerHealth: number[];
	simulator: number;
}

/** E2E_QUEUE_PORT_BASE (5810) + offsets; Postgres and Redis take any free loopback port. */
export function defaultPorts(base = Number(process.env.E2E_QUEUE_PORT_BASE ?? 5810)): Ports {
	return {
		main: base,
		webhook: base + 10,
		webhookProcess: base + 12,
		webhookProcess2: base + 14,
		workerHealth: [base + 20, base + 25],
		simulator: base + 30,
	};
}

/** Fails with what holds the way when a port the deployment needs is taken. */
export async function requireFreePorts(
	ports: Ports,
	workerCount: number,
	webhookProcesses = 1,
): Promise<void> {
	const needed: Array<[string, number]> = [
		['n8n main', ports.main],
		['n8n main task broker', ports.main + 1],
		['webhook balancer', ports.webhook],
		['n8n webhook process', ports.webhookProcess],
		['n8n webhook process task broker', ports.webhookProcess + 1],
		...(webhookProcesses > 1
			? ([
					['n8n second webhook process', ports.webhookProcess2],
					['n8n second webhook process task broker', ports.webhookProcess2 + 1],
				] as Array<[string, number]>)
			: []),
		...ports.workerHealth.slice(0, workerCount).flatMap(
			(p, i): Array<[string, number]> => [
				[`worker ${i + 1} health`, p],
				[`worker ${i + 1} task broker`, p + 1],
			],
		),
		['relay simulator', ports.simulator],
	];
	await requirePortsFree(needed, 'set E2E_QUEUE_PORT_BASE');
}
