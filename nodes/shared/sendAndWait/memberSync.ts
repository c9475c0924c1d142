import { sendHandoff, type ShareContext } from '../sharedWebhook/peerClient';
import { allMembers, parseRegistration } from '../sharedWebhook/registeredUrl';
import type { WebhookState } from '../sharedWebhook/webhookState';
import { WAITS_PER_HANDOFF } from '../protocol/wait';
import { memorySlot } from '../processMemory';

/**
 * Members end what the holder ends (docs/design/conversations-at-scale.md, "Members"): the waits the holder
 * saw resumed or ended go to every member as `ends` of a `wait` hand-off, batched per process (one hand-off in
 * flight per member list), in the background. A member that misses one keeps a wait live that its run no
 * longer has: it never routes with it unless it becomes the holder, and then the offer finds no proof.
 */
const pending = memorySlot<{ ids: Set<string>; sending: boolean }>('ends to share', {
	holds: 'wait ids to end at the members, by registration; a restart drops those not sent yet',
	maxEntries: 1_000,
});

export function shareEnds(
	context: ShareContext,
	state: WebhookState,
	key: string,
	ids: string[],
): void {
	const registration = state.webhookUrl ? parseRegistration(state.webhookUrl) : undefined;
	const members = registration ? allMembers(registration) : [];
	if (!registration || members.length === 0 || ids.length === 0) return;
	const name = `${registration.origin}${registration.holderPath}`;
	const queue = pending.set(name, pending.get(name) ?? { ids: new Set(), sending: false });
	for (const id of ids) queue.ids.add(id);
	if (queue.sending) return;
	queue.sending = true;
	const send = async (batch: string[]) =>
		await Promise.all(
			members.map(
				async (path) =>
					await sendHandoff(
						context,
						key,
						'wait',
						`${registration.origin}${path}`,
						JSON.stringify({ waits: [], confirm: [], ends: batch }),
					),
			),
		);
	void (async () => {
		const current = queue;
		try {
			while (current.ids.size > 0) {
				const batch = [...current.ids].slice(0, WAITS_PER_HANDOFF);
				for (const id of batch) current.ids.delete(id);
				await send(batch);
			}
		} finally {
			current.sending = false;
		}
	})();
}
