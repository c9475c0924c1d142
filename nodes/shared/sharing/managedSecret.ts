import type { IHookFunctions, ITriggerFunctions, IWebhookFunctions } from 'n8n-workflow';

import { memoryCounter, memorySlot } from '../processMemory';
import { CREDENTIAL_NAME } from '../scopes';
import { forgetManagedSecret, type WebhookState } from '../sharedWebhook/webhookState';
import { serviceSecretMatches } from '../serviceSecret';

/**
 * The secret of a webhook managed elsewhere (Registration: Webhook Managed Elsewhere), which the user types into
 * the credential and may change at any time without republishing. Reading the credential is costly, so each
 * process keeps the secret it last read in memory (never in static data) for `rereadAfterMs`; a delivery that does
 * not match, or comes later, is compared with a read that started after it arrived. An edited secret works at the
 * next delivery, the old one is refused `rereadAfterMs` after the edit at most: docs/registration.md, "Webhook Managed Elsewhere".
 */
export const managedSecretPolicy = {
	/** How long a secret read from the credential is trusted without reading it again (the bound). */
	rereadAfterMs: 5_000,
};

/** One finished read of the credential. */
interface Reading {
	secret: string;
	/** Its place in this process's order of reads: a larger one started later. */
	order: number;
	/** When it started (ms since epoch): the secret may have changed right after. */
	startedAt: number;
}

/** What this process knows of one trigger's credential. */
interface Known {
	/** The newest finished read. */
	last?: Reading;
	/** The read in flight: callers that arrived before it started wait for the one after it. */
	running?: { order: number; done: Promise<Reading> };
	/** The one read queued behind `running`, shared by every caller that arrived meanwhile. */
	queued?: Promise<Reading>;
}

const known = memorySlot<Known>('managed secrets', {
	holds:
		'the last read of each managed-elsewhere credential, by workflow, node and credential; read again after a restart',
	// Written again at each use: the bound drops the record of a credential no longer used.
	maxEntries: 10_000,
});

const readsStarted = memoryCounter(
	'credential reads',
	'reads started in this process so far (their order)',
);

type Context = IHookFunctions | ITriggerFunctions | IWebhookFunctions;

/**
 * Publishing (and every n8n start): reads the credential once, so that the first delivery to
 * this process compares at once, and removes the copy that earlier versions kept in static data
 * (n8n's ActiveWorkflowManager saves static data after activation: docs/registration.md, "Webhook
 * Managed Elsewhere").
 */
export async function keepManagedSecret(context: IHookFunctions, state: WebhookState) {
	forgetManagedSecret(state);
	await readAfter(context, knownFor(context), readsStarted.value);
}

/** The secret a delivery is compared with, in constant time by the caller ('' when the credential has none). */
export async function managedSecretFor(
	context: IWebhookFunctions,
	provided: unknown,
): Promise<string> {
	const arrived = readsStarted.value;
	const record = knownFor(context);
	const last = record.last;
	if (
		last &&
		Date.now() - last.startedAt < managedSecretPolicy.rereadAfterMs &&
		serviceSecretMatches(provided, { secret: last.secret })
	) {
		return last.secret;
	}
	return (await readAfter(context, record, arrived)).secret;
}

function knownFor(context: Context): Known {
	const node = context.getNode();
	const credentialId = node.credentials?.[CREDENTIAL_NAME]?.id ?? '';
	const key = JSON.stringify([context.getWorkflow().id ?? '', node.name, credentialId]);
	return known.set(key, known.get(key) ?? {});
}

/**
 * A read of the credential that started after read number `arrived`: the one running if it did,
 * otherwise the one queued behind it (so at most one read per trigger runs at a time, however
 * many deliveries arrive with a wrong secret).
 */
async function readAfter(context: Context, record: Known, arrived: number): Promise<Reading> {
	if (!record.running) return await startRead(context, record);
	if (record.running.order > arrived) return await record.running.done;
	record.queued ??= record.running.done.then(
		async () => await startRead(context, record),
		async () => await startRead(context, record),
	);
	return await record.queued;
}

function startRead(context: Context, record: Known): Promise<Reading> {
	const order = readsStarted.add();
	const startedAt = Date.now();
	const done = (async () => {
		const credentials = await context.getCredentials(CREDENTIAL_NAME);
		const reading = { secret: String(credentials.webhookSecret ?? ''), order, startedAt };
		if (!record.last || record.last.order < order) record.last = reading;
		return reading;
	})();
	record.running = { order, done };
	record.queued = undefined;
	const settle = () => {
		if (record.running?.order === order) record.running = undefined;
	};
	done.then(settle, settle);
	return done;
}
