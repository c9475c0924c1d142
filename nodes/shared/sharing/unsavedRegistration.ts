import { createHash } from 'node:crypto';

import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { webhookResourceUrl } from '../n8n/capabilities';
import { processKey } from '../processKey';
import { memorySlot } from '../processMemory';
import { readWebhook } from '../webhookApi';
import { parseRegistration } from '../sharedWebhook/registeredUrl';
import { heldSecret } from '../serviceSecret';
import type { WebhookState } from '../sharedWebhook/webhookState';

/**
 * Whether a delivery whose secret does not match is signed with the secret of a registration this trigger has just
 * made and n8n has not saved yet: then the answer is 503 (deliver again), not 401. One look at `GET /v1/webhook`:
 * a registration naming this trigger as holder, not the saved URL, its stamp (`reg`) at most UNSAVED_FOR_MS old is
 * `unsaved`; a failed look `unknown` (503 too); anything else `none`. Looks are spaced and shared; why, with n8n's
 * code, and the races: docs/shared-webhook.md, "A registration not saved yet (no 401 for the new secret)".
 */
export const UNSAVED_FOR_MS = 60_000;
export const LOOK_SPACING_MS = 1_000;
export const VERDICT_FOR_MS = 1_000;
const MAX_VERDICTS = 1_000;

export type Verdict = 'unsaved' | 'unknown' | 'none';

type Look = { url: string | undefined } | { failed: true };

interface Looks {
	lastStart: number;
	/** The look under way (or the last one), and when it started. */
	current?: { startedAt: number; result: Promise<Look> };
	/** The next look, for deliveries that arrived after `current` started. */
	next?: Promise<Look>;
	/** Recent verdicts by the SHA-256 of the secret they were about (no secret is kept). */
	verdicts: Map<string, { verdict: Verdict; at: number }>;
}

const looks = memorySlot<Looks>('registration looks', {
	holds: "each listener's recent GET /v1/webhook and its verdicts; a restart looks again",
	maxEntries: 10_000,
	forgottenWith: 'membership',
});

export async function unsavedRegistration(
	context: IWebhookFunctions,
	state: WebhookState,
	provided: string,
): Promise<Verdict> {
	const arrival = Date.now();
	if (provided.length !== heldSecret(state)?.length) return 'none';
	const key = processKey(context);
	const mine = looks.set(key, looks.get(key) ?? { lastStart: 0, verdicts: new Map() });
	const secretId = createHash('sha256').update(provided).digest('hex');
	const known = mine.verdicts.get(secretId);
	if (known && arrival - known.at < VERDICT_FOR_MS) return known.verdict;

	const started =
		mine.current && mine.current.startedAt > arrival
			? mine.current.result
			: (mine.next ??= nextLook(context, mine));
	const verdict = judge(context, state, await started);
	if (mine.verdicts.size >= MAX_VERDICTS) mine.verdicts.clear();
	mine.verdicts.set(secretId, { verdict, at: Date.now() });
	return verdict;
}

/** Starts a look once LOOK_SPACING_MS have passed since the last one started. */
async function nextLook(context: IWebhookFunctions, mine: Looks): Promise<Look> {
	await sleep(Math.max(0, mine.lastStart + LOOK_SPACING_MS - Date.now()));
	mine.next = undefined;
	const startedAt = Date.now();
	mine.lastStart = startedAt;
	// The answer is reduced to the URL here: nothing else of it (a secret) travels on.
	const result = readWebhook.call(context).then(
		(webhook): Look => ({ url: webhook?.url }),
		(): Look => ({ failed: true }),
	);
	mine.current = { startedAt, result };
	return await result;
}

function judge(context: IWebhookFunctions, state: WebhookState, look: Look): Verdict {
	if ('failed' in look) return 'unknown';
	if (look.url === undefined || look.url === state.webhookUrl) return 'none';
	const ownUrl = webhookResourceUrl(context);
	const registration = parseRegistration(look.url);
	if (!ownUrl || !registration) return 'none';
	const own = new URL(ownUrl);
	const mine =
		registration.shared &&
		registration.origin === own.origin &&
		registration.holderPath === own.pathname;
	const fresh =
		registration.registeredAt !== undefined &&
		Date.now() - registration.registeredAt <= UNSAVED_FOR_MS;
	return mine && fresh ? 'unsaved' : 'none';
}
