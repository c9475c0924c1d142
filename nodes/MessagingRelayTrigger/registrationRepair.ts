import type { CronExpression, INodeProperties, ITriggerFunctions, ITriggerResponse } from 'n8n-workflow';
import { NodeOperationError, randomInt } from 'n8n-workflow';

import { readWebhook } from '../shared/webhookApi';
import { ping } from './share/peerClient';
import { parseRegistration } from './share/registeredUrl';
import { triggerState } from './triggerState';

/**
 * While the workflow is published, the trigger looks at the account's webhook at a fixed
 * interval and gets a registration the service lost back, so that it does not stay lost until
 * someone publishes again. How, in n8n 2.41.1 terms:
 *
 * - The check runs in `trigger()` on a cron registered with `this.helpers.registerCron`. n8n's
 *   ScheduledTaskManager registers and fires crons only on the leader (scheduled-task-manager.js:45
 *   and :78), and adds trigger() nodes only on the leader (active-workflow-manager.js:699-701):
 *   in queue mode and multi-main exactly one main checks. Unpublishing deregisters the cron
 *   (active-workflow-triggers.js:209).
 * - A lost registration is handed to n8n with `emitError`: n8n removes the trigger, and 1 s
 *   later publishes the workflow again (active-workflow-manager.js:230-241, 540-592), which runs
 *   checkExists → create (a new PUT) and saves the new secret to the database
 *   (active-workflow-manager.js:170 and :433). The repair does not PUT itself: a secret stored
 *   from trigger() would stay in memory, and webhook() reads the workflow (and the secret) from
 *   the database on every delivery (live-webhooks.js:105-117), so it would refuse every event.
 * - A webhook that points anywhere else (another system, another workflow, this node's test URL)
 *   is reported as a failed execution (`saveFailedExecution`, which also runs the error
 *   workflow; the workflow stays published), once per URL, and never taken over.
 */

/**
 * The cron of each interval offered. Like n8n's own Poll Times (n8n-workflow cron.js:5-25), the
 * minute-based ones start at a random second (and the hourly one at a random minute), so the
 * checks of many workflows do not all fire in the same second.
 */
function cronFor(interval: string): CronExpression | undefined {
	const second = randomInt(60);
	switch (interval) {
		case '5s':
			return '*/5 * * * * *';
		case '30s':
			return '*/30 * * * * *';
		case '1m':
			return `${second} * * * * *`;
		case '5m':
			return `${second} */5 * * * *`;
		case '15m':
			return `${second} */15 * * * *`;
		case '1h':
			return `${second} ${randomInt(60)} * * * *`;
		default:
			return undefined;
	}
}
export const DEFAULT_REPAIR_INTERVAL = '5m';

/** The trigger option that sets the interval (in the trigger's Options collection). */
export const repairIntervalOption: INodeProperties = {
	displayName: 'Check Registration Every',
	name: 'repairInterval',
	type: 'options',
	default: DEFAULT_REPAIR_INTERVAL,
	description:
		'While published, how often the trigger checks that the service still has its webhook, and registers it again if the service lost it. Each check is one GET /v1/webhook. A webhook that points elsewhere is reported, never taken over.',
	options: [
		{ name: 'Every 15 Minutes', value: '15m' },
		{ name: 'Every 30 Seconds', value: '30s' },
		{ name: 'Every 5 Minutes', value: '5m' },
		{ name: 'Every 5 Seconds (Testing)', value: '5s' },
		{ name: 'Every Hour', value: '1h' },
		{ name: 'Every Minute', value: '1m' },
		{ name: 'Never', value: 'off' },
	],
};

export type RegistrationCheck =
	| { kind: 'intact' }
	| { kind: 'lost' }
	/** The account's shared webhook (same API key) no longer lists this trigger: join again. */
	| { kind: 'not listed' }
	| { kind: 'elsewhere'; url: string }
	| { kind: 'not registered by this node' };

/**
 * One look at the account's webhook (docs/shared-webhook.md, "Repair"). Every published trigger
 * of the account checks for itself; `lost` and `not listed` are repaired by joining again (n8n
 * publishes the workflow again), anything that is not this n8n's shared webhook of this account
 * key is only reported. trigger() gets no webhook URL from n8n: the URL is the one the lifecycle
 * stored at publish time.
 */
export async function checkRegistration(this: ITriggerFunctions): Promise<RegistrationCheck> {
	const { shareKey, ownUrl } = triggerState(this);
	// Never published by this version of the node (or its static data is gone): nothing to compare.
	if (!shareKey || !ownUrl) return { kind: 'not registered by this node' };
	const current = await readWebhook.call(this);
	if (!current) return { kind: 'lost' };
	const registration = parseRegistration(current.url);
	const own = new URL(ownUrl);
	// Shared only among the triggers behind one public address (one n8n); see "Two n8n instances".
	if (registration?.shared && registration.origin === own.origin) {
		const listed = (!registration.holderTest && registration.holderPath === own.pathname) || registration.members.includes(own.pathname);
		if (listed) return { kind: 'intact' };
		// Joining again only makes sense when the holder is a trigger of this account key.
		const answer = await ping(this, shareKey, registration.holderUrl);
		if (answer.kind === 'member') return { kind: 'not listed' };
	}
	return { kind: 'elsewhere', url: current.url };
}

/**
 * The entry point for `trigger()` of a published trigger: schedules the check and returns the
 * trigger response. In manual mode (a test event) it is not called; see testEventPassThrough.
 */
export function startRegistrationRepair(this: ITriggerFunctions): ITriggerResponse {
	const interval = this.getNodeParameter('options.repairInterval', DEFAULT_REPAIR_INTERVAL) as string;
	const managedElsewhere = this.getNodeParameter('registration', 'automatic') === 'manual';
	const expression = cronFor(interval);
	if (managedElsewhere || !expression) return {};

	const node = this.getNode();
	let stopped = false;
	let checking = false;
	let reportedUrl: string | undefined;

	const check = async () => {
		if (stopped || checking) return;
		checking = true;
		try {
			const result = await checkRegistration.call(this);
			if (stopped) return;
			if (result.kind === 'lost' || result.kind === 'not listed') {
				stopped = true;
				const what = result.kind === 'lost' ? 'the service lost the webhook registration' : 'the account\'s shared webhook no longer lists this trigger';
				this.logger.warn(`Messaging Relay Trigger "${node.name}": ${what}; publishing the workflow again to register it`);
				this.emitError(
					new NodeOperationError(
						node,
						result.kind === 'lost'
							? 'The Messaging Relay service no longer has this trigger\'s webhook registration'
							: 'The account\'s shared webhook no longer lists this trigger',
						{
							description:
								'n8n publishes the workflow again in a moment, which registers the webhook again (the other workflows of the account keep receiving). Events the service tried to deliver to this workflow in the meantime were not received.',
						},
					),
				);
			} else if (result.kind === 'elsewhere') {
				if (result.url === reportedUrl) return;
				reportedUrl = result.url;
				this.saveFailedExecution(
					new NodeOperationError(node, `The account's webhook now points at ${result.url}, not at this trigger`, {
						description:
							'Someone or something set the account\'s one webhook to another URL, so this workflow receives no events. The trigger does not take it over. To receive events here again, publish this workflow again with "Replace Existing Webhook" on (the receiver at that URL then stops getting events).',
					}),
				);
			} else {
				reportedUrl = undefined;
			}
		} catch (error) {
			// The service did not answer (5xx, network, 429 beyond the waits): try at the next tick.
			this.logger.warn(`Messaging Relay Trigger "${node.name}": could not check the webhook registration: ${(error as Error).message}`);
		} finally {
			checking = false;
		}
	};

	this.helpers.registerCron({ expression }, () => void check());
	return {
		// n8n removes the cron itself when the workflow is unpublished; this stops a check in flight.
		closeFunction: async () => {
			stopped = true;
		},
	};
}
