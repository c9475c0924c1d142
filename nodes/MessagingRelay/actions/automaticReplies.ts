import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { chatKey } from '../../shared/chatIds';
import { accountTriggers, tellAllTriggers } from '../accountTriggers';
import type { PauseCommand } from '../../shared/protocol/pauseCommand';
import { resolveReplyTarget } from './replyOrigin';

/**
 * Message → Pause / Resume Automatic Replies (docs/design/durability-and-conversations.md §5a): as if a person
 * wrote in the chat from the phone (or sent the resume keyword), for every published trigger of the account
 * with "Pause When a Person Replies" on. The registered webhook lists them (registeredUrl.ts); each gets a
 * `pause` hand-off signed with a key derived from the API key (signedHandoff.ts): nobody else can pause a chat.
 */
export async function executeAutomaticReplies(
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
): Promise<IDataObject> {
	if (operation !== 'pauseReplies' && operation !== 'resumeReplies') {
		throw new NodeOperationError(this.getNode(), `Unknown message operation "${operation}"`, {
			itemIndex,
		});
	}
	const pause = operation === 'pauseReplies';
	const chat = chatOf.call(this, itemIndex);
	const minutes = pause
		? (this.getNodeParameter('pauseMinutes', itemIndex, 60) as number)
		: undefined;
	const registration = await accountTriggers.call(this, itemIndex, 'pause automatic replies');
	const at = Date.now();
	const command: PauseCommand = {
		chat: chatKey(chat),
		pause,
		at,
		...(minutes !== undefined ? { minutes } : {}),
	};
	const { answers } = await tellAllTriggers(
		this,
		registration,
		itemIndex,
		'pause',
		JSON.stringify(command),
	);
	const triggerAnswers = answers.map(({ answer }) => answer);
	const applied = triggerAnswers.filter(
		(a) => a.kind === 'member' && a.body?.applied === true,
	).length;
	const notReached = triggerAnswers.filter((a) => a.kind === 'unavailable').length;

	if (applied === 0) {
		throw new NodeOperationError(
			this.getNode(),
			notReached > 0
				? `Could not reach the account's Messaging Relay Triggers to ${pause ? 'pause' : 'resume'} automatic replies [item ${itemIndex}]`
				: `No published Messaging Relay Trigger on this account has "Pause When a Person Replies" on [item ${itemIndex}]`,
			{
				itemIndex,
				description:
					notReached > 0
						? `${notReached} of ${triggerAnswers.length} trigger(s) did not answer (n8n busy or restarting). Run this again, or turn on "Retry On Fail" in this node's settings.`
						: 'Pause and Resume Automatic Replies act on the triggers that pause chats: open the Messaging Relay Trigger of the workflow that answers automatically, add the option "Pause When a Person Replies", and publish it.',
			},
		);
	}
	return {
		chatId: chat,
		automaticReplies: pause ? 'paused' : 'resumed',
		until: !pause
			? null
			: minutes === 0
				? 'resumed by hand'
				: new Date(at + (minutes as number) * 60_000).toISOString(),
		workflows: applied,
		...(notReached > 0 ? { notReached } : {}),
	};
}

/** The chat: as given in "Chat", or, left empty, the chat of the trigger item this item came from (as Reply finds it). */
function chatOf(this: IExecuteFunctions, itemIndex: number): string {
	const given = this.getNodeParameter('chat', itemIndex, '') as unknown;
	if (typeof given === 'string' && given.trim() !== '') return given.trim();
	try {
		return resolveReplyTarget.call(this, itemIndex).chatId;
	} catch {
		throw new NodeOperationError(
			this.getNode(),
			`No chat to ${this.getNodeParameter('operation', itemIndex) === 'pauseReplies' ? 'pause' : 'resume'} [item ${itemIndex}]`,
			{
				itemIndex,
				description:
					'Type a chat ID or phone number in "Chat", or connect this node after a Messaging Relay Trigger (directly or through an AI Agent) and leave "Chat" empty: it then acts on the chat of the message the item came from.',
			},
		);
	}
}
