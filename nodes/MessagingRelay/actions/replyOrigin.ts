import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * Where Reply's message came from: the input item directly after the trigger; after an AI Agent (`{ output }`)
 * or any other node, the item n8n's item pairing leads back to, across any number of nodes, found as
 * `{{ $('Trigger').itemMatching(i) }}` finds it: the workflow data proxy of IExecuteFunctions,
 * `this.getWorkflowDataProxy(i).$(nodeName).itemMatching(i)`, never a walk of the run data by hand (why:
 * docs/ai-assistant.md, "Reply after the agent").
 */

export interface ReplyTarget {
	channelId: string;
	chatId: string;
}

function asTarget(value: unknown): ReplyTarget | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const { channelId, chatId } = value as Record<string, unknown>;
	if (typeof channelId === 'string' && channelId && typeof chatId === 'string' && chatId) {
		return { channelId, chatId };
	}
	return undefined;
}

/**
 * The chat and number of the message held in one item: the trigger puts `chatId` and
 * `channelId` at the top of its message items; a raw event body (for example from n8n's own
 * Webhook node) has them under `message`, or under `body.message`.
 */
export function findReplyTarget(json: IDataObject): ReplyTarget | undefined {
	const body = json.body as IDataObject | undefined;
	return (
		asTarget(json) ??
		asTarget(json.message) ??
		asTarget((json.event as IDataObject | undefined)?.message) ??
		asTarget(body?.message)
	);
}

/** The upstream nodes to look in: Messaging Relay Triggers first, then the others, nearest first. */
function upstreamNodes(context: IExecuteFunctions): string[] {
	const own = context.getNode();
	// The trigger's type is the action's type + "Trigger", whatever the package is installed as.
	const triggerType = `${own.type}Trigger`;
	const parents = context.getParentNodes(own.name).filter((node) => !node.disabled);
	return [
		...parents.filter((node) => node.type === triggerType),
		...parents.filter((node) => node.type !== triggerType),
	].map((node) => node.name);
}

function jsonOf(resolved: unknown): IDataObject | undefined {
	if (typeof resolved !== 'object' || resolved === null) return undefined;
	// The data proxy returns the whole item, or only its json in n8n's "combined" binary mode.
	const item = resolved as INodeExecutionData;
	return typeof item.json === 'object' && item.json !== null
		? item.json
		: (resolved as IDataObject);
}

type MatchingItem = (nodeName: string) => { itemMatching: (index: number) => unknown };

/**
 * The received message item `itemIndex` answers: the input item itself when it holds one, else
 * the item it is paired with in the nearest upstream node that holds one. Throws an error that
 * says what to connect when there is none.
 */
export function resolveReplyTarget(this: IExecuteFunctions, itemIndex: number): ReplyTarget {
	const direct = findReplyTarget(this.getInputData()[itemIndex].json);
	if (direct) return direct;

	const problems: string[] = [];
	const candidates = upstreamNodes(this);
	if (candidates.length > 0) {
		const $ = this.getWorkflowDataProxy(itemIndex).$ as MatchingItem;
		for (const name of candidates) {
			try {
				const json = jsonOf($(name).itemMatching(itemIndex));
				const target = json && findReplyTarget(json);
				if (target) return target;
			} catch (error) {
				// A node off the pairing chain (another branch, a node that drops pairing) is skipped.
				problems.push(`${name}: ${(error as Error).message}`);
			}
		}
	}

	throw new NodeOperationError(
		this.getNode(),
		`The input item holds no received message to reply to [item ${itemIndex}]`,
		{
			itemIndex,
			description:
				'Reply answers a message from a Messaging Relay Trigger (event "message.received"): it reads "chatId" and "channelId" from its input item, ' +
				(candidates.length === 0
					? 'and no node is connected before this one. '
					: "or finds them through n8n's item pairing in the nodes before it, and none of them leads back to such a message. ") +
				'Connect this node after the trigger, or use Send and set From Number and To. Nodes in between are fine when they keep item pairing (the AI Agent does, as do Edit Fields and Code in "Run Once for Each Item" mode).' +
				(problems.length > 0 ? ` Details: ${problems.join('; ')}` : ''),
		},
	);
}

/**
 * The AI Agent's answer in the input item, which Reply sends when its Text is left empty.
 * n8n's AI Agent outputs `{ output: "<answer>" }`; `text` is deliberately not read, since a
 * trigger item's `text` is the contact's own message.
 */
export function agentAnswerOf(json: IDataObject): string | undefined {
	return typeof json.output === 'string' && json.output.trim() !== '' ? json.output : undefined;
}
