import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { answerAfterSave, answersAfterSave, mayWrite, OVERLOADED } from '../answerAfterSave';
import type { Answer } from '../answerRequest';
import { memorySlot } from '../processMemory';
import { sendHandoff } from '../sharedWebhook/peerClient';
import { parseWaitBatch, type WaitBatch } from '../protocol/wait';
import {
	endingsOf,
	liveWaits,
	otherWaitsInChat,
	planWaits,
	repairWaits,
	updateWaits,
	WAIT_CAPACITY,
	waitIdOf,
	waitStored,
	type IdentifiedWait,
} from '../sendAndWait/waitingRuns';
import type { WebhookState } from '../sharedWebhook/webhookState';

/**
 * A `wait` hand-off (docs/design/conversations-at-scale.md, "Recording a wait"): new waits, waits whose
 * presence in the database is asked, rows to end; applied in one write and answered after n8n saved it. Only
 * the holder refuses a new wait at the account's capacity, and only once the oldest waits were checked: a
 * member records whatever the holder recorded, for a hand-over.
 */

/** At capacity: how many of the oldest waits are checked, how many at once, and how long a check holds. */
export const capacityCheck = { oldest: 64, atOnce: 8, validForMs: 10 * 60_000, settlingMs: 60_000 };
const checkedAt = memorySlot<true>('waits checked', {
	holds:
		'waits found still waiting at capacity, by row id; a check is cheap to repeat after a restart',
	maxEntries: () => 4 * capacityCheck.oldest * 16,
	maxAgeMs: () => capacityCheck.validForMs,
});

function badBody(): Answer {
	return { status: 400, body: { error: 'A wait hand-off carries waits, confirms or ends' } };
}

/**
 * The oldest live waits not checked lately, asked with a signed ping at their resume path whether
 * their run still waits on that question: those without a proof are ended. Returns how many were
 * asked. A run that cannot be reached (n8n busy) counts as waiting.
 */
async function checkOldest(
	context: IWebhookFunctions,
	state: WebhookState,
	key: string,
	now: number,
): Promise<{ asked: number; ended: string[] }> {
	if (!state.webhookUrl) return { asked: 0, ended: [] };
	const origin = new URL(state.webhookUrl).origin;
	const candidates = liveWaits(context, state, now)
		.filter((w) => now - w.since > capacityCheck.settlingMs && !checkedAt.has(w.id, now))
		.sort((a, b) => a.since - b.since)
		.slice(0, capacityCheck.oldest);
	const ended: string[] = [];
	for (let i = 0; i < candidates.length; i += capacityCheck.atOnce) {
		await Promise.all(
			candidates.slice(i, i + capacityCheck.atOnce).map(async (wait: IdentifiedWait) => {
				const url = new URL(wait.resumePath, origin);
				const answer =
					url.origin === origin
						? await sendHandoff(context, key, 'ping', url.toString(), '{}')
						: ({ kind: 'gone' } as const);
				if (answer.kind === 'member' || answer.kind === 'unavailable')
					checkedAt.set(wait.id, true, now);
				else ended.push(wait.id);
			}),
		);
	}
	return { asked: candidates.length, ended };
}

/** `body`: the hand-off's bytes (the signature covered them); `proof`: the answer's proof. */
export async function receiveWaits(
	context: IWebhookFunctions,
	state: WebhookState,
	body: string,
	proof: string,
	key: string,
): Promise<Answer | { response: IWebhookResponseData }> {
	let batch: WaitBatch | undefined;
	try {
		batch = parseWaitBatch(JSON.parse(body));
	} catch {
		batch = undefined;
	}
	if (!batch) return badBody();
	if (!mayWrite()) return OVERLOADED;

	const now = Date.now();
	// Asked whether it is in the database: what this request loaded says (before anything is written).
	const confirmed = batch.confirm.map((wait) => waitStored(context, state, wait));
	// What this process holds that static data lacks goes with this write (a flush asks for nothing else).
	repairWaits(context, state, now);
	const holder = state.webhookUrl !== undefined;
	const capacity = holder ? WAIT_CAPACITY : undefined;
	let plan = planWaits(context, state, batch.waits, now, capacity);
	let checked: { asked: number; ended: string[] } | undefined;
	if (plan.outcomes.some((o) => !o.recorded)) {
		// At capacity: only runs that really wait count. The oldest are asked before anything is refused.
		checked = await checkOldest(context, state, key, now);
		// Other requests may have filled the held answers while the oldest were asked: none is passed.
		if (!mayWrite()) return OVERLOADED;
		if (checked.ended.length > 0) {
			updateWaits(context, state, endingsOf(context, state, checked.ended, now), now);
			plan = planWaits(context, state, batch.waits, now, capacity);
		}
	}
	// One not there is written again.
	const rewrites: Array<[string, (typeof batch.confirm)[number]]> = batch.confirm
		.filter((_, i) => !confirmed[i])
		.map((wait) => [waitIdOf(wait), wait]);
	if (rewrites.length > 0)
		context.logger.debug(
			`Messaging Relay Trigger: ${rewrites.length} recorded wait(s) were not in the static data this request loaded (a save that carried them was lost); written again`,
		);
	updateWaits(
		context,
		state,
		[...plan.changes, ...rewrites, ...endingsOf(context, state, batch.ends, now)],
		now,
	);
	const answer: IDataObject = {
		proof,
		recorded: plan.outcomes.map((o) => o.recorded),
		confirmed,
		otherWaitsInChat: batch.waits.map((wait) => otherWaitsInChat(context, state, wait, now)),
	};
	if (batch.export)
		answer.exported = liveWaits(context, state, now).map((wait) => ({
			executionId: wait.executionId,
			resumePath: wait.resumePath,
			chat: wait.chat,
			channelId: wait.channelId,
			since: wait.since,
			until: wait.until,
			questionId: wait.questionId ?? null,
			...(wait.passOn ? { passOn: true } : {}),
		}));
	if (plan.outcomes.some((o) => !o.recorded)) {
		answer.capacity = WAIT_CAPACITY;
		answer.waiting = liveWaits(context, state, now).length;
		if (checked) answer.checked = checked.asked;
	}
	const ok: Answer = { status: 200, body: answer };
	if (!answersAfterSave(context)) return { ...ok, afterSave: true };
	return { response: answerAfterSave(context, () => ok) };
}
