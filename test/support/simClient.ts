/**
 * The one client of a relay simulator running as a process of its own (its /__sim control routes,
 * test/simulator/controlRoutes.ts), for the end-to-end suites, the benchmark and
 * `npm run deliver`. Tests that start the simulator in-process use its object directly.
 */
import type { Delivery, RecordedRequest, SimulatedWebhook, SimulatorState } from '../simulator';

export interface SimAnswer<T> {
	status: number;
	body: T;
}

export class SimClient {
	constructor(readonly baseUrl: string) {}

	/** Any control route (`path` after /__sim); the status is the caller's to judge. */
	async call<T = Record<string, unknown>>(
		method: string,
		path: string,
		body?: unknown,
	): Promise<SimAnswer<T>> {
		const response = await fetch(`${this.baseUrl}/__sim${path}`, {
			method,
			headers: { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		let parsed: unknown = {};
		try {
			parsed = text ? JSON.parse(text) : {};
		} catch {
			parsed = { text };
		}
		return { status: response.status, body: parsed as T };
	}

	/** A control route that must succeed; its answer. */
	async ok<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
		const answer = await this.call<T>(method, path, body);
		if (answer.status >= 400)
			throw new Error(
				`simulator ${method} /__sim${path} → ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
			);
		return answer.body;
	}

	async state(): Promise<SimulatorState> {
		return await this.ok<SimulatorState>('GET', '/state');
	}

	/** Every account's registration with its secret, as the service knows it. */
	async webhooks(): Promise<Record<string, SimulatedWebhook | null>> {
		return await this.ok('GET', '/webhooks');
	}

	/** API requests that arrived at or after `since` (ms since the epoch). */
	async requests(since: number): Promise<RecordedRequest[]> {
		return await this.ok<RecordedRequest[]>('GET', `/requests?since=${since}`);
	}

	/**
	 * Makes the simulator deliver an event to an account's registered webhook as the service does:
	 * `{ type }` a sample event, `{ event }` the given body; `secret` overrides the header (null
	 * leaves it out). Returns what the webhook answered.
	 */
	async deliver(delivery: {
		type?: string;
		event?: unknown;
		account?: string;
		secret?: string | null;
		rawBody?: string;
	}): Promise<Delivery> {
		return await this.ok<Delivery>('POST', '/deliver', delivery);
	}

	async configure(settings: {
		latencyMs?: number;
		shape?: string;
		strictWebhookUrls?: boolean;
	}): Promise<void> {
		await this.ok('POST', '/config', settings);
	}
}
