/**
 * The one way the tests, their support, the simulator and the scripts deliver an event as the relay
 * service does: `postEvent` is the POST itself (JSON, the secret in `x-service-secret`); `deliver`
 * makes a simulator send it to an account's registered webhook, the in-process one
 * (test/simulator, RelaySimulator) or one running as a process of its own (SimClient), and gives
 * its answer with the body parsed, optionally checking its status.
 */
import type { IDataObject } from 'n8n-workflow';

import { sampleEvents } from '../fixtures/events';
import type { DeliverOptions, Delivery } from '../simulator/types';
import { SimClient } from './simClient';

/** What a webhook answered one POST: its status and body text. */
export interface Answer {
	status: number;
	body: string;
}

export interface PostOptions {
	/** The `x-service-secret` header; null or undefined leaves it out. */
	secret?: string | null;
	/** More headers, after the content type and the secret (so they can replace them). */
	headers?: Record<string, string>;
	/** Aborts the request (e.g. AbortSignal.timeout). */
	signal?: AbortSignal;
}

/** POSTs `body` (text, sent as is: JSON.stringify an event first) to `url` as the service does. */
export async function postEvent(
	url: string,
	body: string,
	{ secret, headers = {}, signal }: PostOptions = {},
): Promise<Answer> {
	const response = await fetch(url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			...(secret === null || secret === undefined ? {} : { 'x-service-secret': secret }),
			...headers,
		},
		body,
		signal,
	});
	return { status: response.status, body: await response.text() };
}

/** An answer's body as JSON: {} when empty, { text } when it is not JSON. */
export function parseAnswer(text: string): IDataObject {
	if (!text) return {};
	try {
		return JSON.parse(text) as IDataObject;
	} catch {
		return { text };
	}
}

/** A simulator that delivers: the in-process one (its own `deliver`) or a client of one running as a process. */
export type Deliverer =
	| { deliver(event: unknown, options?: DeliverOptions): Promise<Delivery> }
	| SimClient;

export interface DeliverTo extends DeliverOptions {
	/** A sample event of this type (test/fixtures/sample-events.json), when no event is given. */
	type?: string;
	/** The status the webhook must answer: any other throws, with the answer. */
	status?: number;
}

/** A delivery's record with its body parsed (parseAnswer). */
export interface Delivered extends Delivery {
	json: IDataObject;
}

/**
 * Makes the simulator deliver `event` (or the sample `type`) to the account's registered webhook
 * (`account`, acct_main by default; `url` another address, in-process only), with the account's
 * secret unless `secret` overrides it (null leaves the header out). A simulator process that could
 * not deliver (no webhook registered, n8n not reachable) gives status 0 and its error as the body.
 */
export async function deliver(
	via: Deliverer,
	event?: unknown,
	{ status, type, ...options }: DeliverTo = {},
): Promise<Delivered> {
	let delivery: Delivery;
	if (via instanceof SimClient) {
		if (options.url !== undefined || options.headers !== undefined)
			throw new Error('deliver: url and headers are for the in-process simulator');
		const answer = await via.call<Delivery>('POST', '/deliver', {
			type,
			event,
			account: options.account,
			secret: options.secret,
			rawBody: options.rawBody,
		});
		delivery =
			answer.status < 400
				? answer.body
				: {
						type,
						account: options.account ?? 'acct_main',
						status: 0,
						body: JSON.stringify(answer.body),
					};
	} else {
		const sent = event ?? sampleEvents()[type as string];
		if (sent === undefined)
			throw new Error(`deliver: no event and no sample event ${String(type)}`);
		delivery = await via.deliver(sent, options);
	}
	if (status !== undefined && delivery.status !== status) {
		throw new Error(
			`delivery to ${delivery.account} answered ${delivery.status}, not ${status}: ${delivery.body.slice(0, 300)}`,
		);
	}
	return { ...delivery, json: parseAnswer(delivery.body) };
}
