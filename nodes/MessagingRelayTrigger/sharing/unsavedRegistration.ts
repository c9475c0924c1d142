import { createHash } from 'node:crypto';

import type { IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { webhookResourceUrl } from '../../shared/n8nCapabilities';
import { processKey } from '../../shared/processKey';
import { readWebhook } from '../../shared/webhookApi';
import { parseRegistration } from '../../shared/sharedWebhook/registeredUrl';
import { heldSecret } from '../../shared/serviceSecret';
import type { WebhookState } from '../../shared/sharedWebhook/webhookState';

/**
 * Whether a delivery whose secret does not match is signed with the secret of a registration this
 * trigger has just made and n8n has not saved yet (docs/shared-webhook.md, "A registration not
 * saved yet"). Then the answer is 503 (deliver again), not 401.
 *
 * Why it happens: a PUT gives the service a new secret at once, but n8n saves the node's static
 * data only when the activation (or the takeover's webhook request) has finished
 * (active-workflow-manager.js:170 and :433), and every webhook request, in any process, reads the
 * static data from the database (live-webhooks.js:105-117). Until the save, every process
 * compares deliveries with the old secret.
 *
 * How it is told apart from a wrong secret, in any process: every registration's URL carries its
 * own stamp (registeredUrl.ts, `reg`), so the service's current URL differs from the one in the
 * saved state as soon as the service has a newer registration. One look at `GET /v1/webhook`:
 * - it names this trigger as holder, differs from the saved URL, and its stamp is at most
 *   UNSAVED_FOR_MS old: `unsaved`;
 * - the look failed: `unknown` (the caller cannot tell either, and answers 503 too);
 * - anything else (the saved registration, none, someone else's, an old one): `none`.
 *
 * What it costs: only a secret of the saved secret's length is looked into (the service issues
 * secrets of one format; anything else cannot be one of its). A look serves every delivery that
 * arrived before it started, and looks start at most once per LOOK_SPACING_MS per trigger and
 * process: a flood of wrong secrets costs at most one GET a second. A verdict is reused for the same
 * secret for VERDICT_FOR_MS. Never is a delivery judged by a look that started before it arrived
 * (that look may predate the PUT), nor by a verdict about another secret (a new secret cannot have
 * been seen before the PUT that made it).
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

const looks = new Map<string, Looks>();

export async function unsavedRegistration(
	context: IWebhookFunctions,
	state: WebhookState,
	provided: string,
): Promise<Verdict> {
	const arrival = Date.now();
	if (provided.length !== heldSecret(state)?.length) return 'none';
	const key = processKey(context);
	const mine: Looks = looks.get(key) ?? { lastStart: 0, verdicts: new Map() };
	looks.set(key, mine);
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
