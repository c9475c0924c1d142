import type {
	CronExpression,
	INodeProperties,
	ITriggerFunctions,
	ITriggerResponse,
} from 'n8n-workflow';
import { NodeOperationError, randomInt } from 'n8n-workflow';

import { saveFailedExecution } from '../shared/n8n/capabilities';
import type { MissedSummary } from '../shared/protocol/missed';
import { askWhatWasMissed, confirmReported } from '../shared/sharing/missedReport';
import { checkRegistration } from '../shared/sharedWebhook/registrationCheck';
import { DEFAULT_REPAIR_INTERVAL } from './constants';
import { isManagedElsewhere } from './triggerSettings';
import { repairThroughOwnWebhook } from './repairThroughOwnWebhook';

/**
 * While the workflow is published, the trigger checks the account's webhook on n8n's leader-only cron
 * (`helpers.registerCron`) and gets a registration the service lost back through its own webhook URL
 * (repairThroughOwnWebhook.ts); only if that fails does it go to n8n with `emitError`, and n8n publishes the
 * workflow again. A set-aside member reports what it missed (missedReport.ts); a webhook pointing elsewhere is
 * reported once per URL, never taken over. Why: docs/registration.md, "The check while published (self-repair)".
 */

/**
 * The cron of each interval offered. Like n8n's own Poll Times (n8n-workflow's toCronExpression), the
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

/** What the log and the error say for each registration the repair registers again. */
const REPAIRED = {
	lost: [
		'the service lost the webhook registration',
		"The Messaging Relay service no longer has this trigger's webhook registration",
	],
	inactive: [
		'the service marked the webhook registration inactive',
		"The Messaging Relay service marked this trigger's webhook inactive (it delivers no events to it)",
	],
	notListed: [
		"the account's shared webhook no longer lists this trigger",
		"The account's shared webhook no longer lists this trigger",
	],
} as const;

/** Options → Check Registration Every (read by startRegistrationRepair, below). */
export const repairIntervalOption: INodeProperties = {
	displayName: 'Check Registration Every',
	name: 'repairInterval',
	type: 'options',
	default: DEFAULT_REPAIR_INTERVAL,
	description:
		'While published, how often the trigger checks that the service still has its webhook, and registers it again if the service lost it. Each check is one GET /v1/webhook. A webhook that points elsewhere is reported, never taken over. It registers again through its own webhook URL: nothing fails and your error workflow does not run; n8n\'s log names the repair. Only if n8n cannot reach that URL does n8n publish the workflow again, and then your error workflow, if set, runs with "The workflow was deactivated because its trigger node … failed".',
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

/**
 * The entry point for `trigger()` of a published trigger: schedules the check and returns the
 * trigger response. In manual mode (a test event) it is not called; see testEventPassThrough.
 */
export function startRegistrationRepair(this: ITriggerFunctions): ITriggerResponse {
	const interval = this.getNodeParameter(
		'options.repairInterval',
		DEFAULT_REPAIR_INTERVAL,
	) as string;
	const expression = cronFor(interval);
	if (isManagedElsewhere(this) || !expression) return {};

	const repair = registrationCheck(this);
	this.helpers.registerCron({ expression }, () => void repair.check());
	return {
		// n8n removes the cron itself when the workflow is unpublished; this stops a check in flight.
		closeFunction: async () => repair.stop(),
	};
}

/** One published trigger's check, with what it remembers between ticks (what it already reported). */
export function registrationCheck(context: ITriggerFunctions): {
	check: () => Promise<void>;
	stop: () => void;
} {
	const node = context.getNode();
	let stopped = false;
	let checking = false;
	let reportedUrl: string | undefined;

	const check = async () => {
		if (stopped || checking) return;
		checking = true;
		try {
			let holderUrl: string | undefined;
			const result = await checkRegistration.call(context, (url) => (holderUrl = url));
			if (stopped) return;
			if (result.kind === 'lost' || result.kind === 'inactive' || result.kind === 'notListed') {
				const [what, message] = REPAIRED[result.kind];
				const repaired = await repairThroughOwnWebhook(context);
				if (stopped) return;
				if (repaired.ok) {
					context.logger.warn(
						`Messaging Relay Trigger "${node.name}": ${what}; registered it again through the trigger's own webhook URL, without publishing the workflow again`,
					);
					return;
				}
				// The fallback: n8n publishes the workflow again, and runs the error workflow on the way.
				stopped = true;
				context.logger.warn(
					`Messaging Relay Trigger "${node.name}": ${what}; registering it through the trigger's own webhook URL failed (${repaired.why}), so n8n publishes the workflow again to register it`,
				);
				context.emitError(
					new NodeOperationError(node, message, {
						description:
							'n8n publishes the workflow again in a moment, which registers the webhook again (the other workflows of the account keep receiving). Events the service tried to deliver to this workflow in the meantime were not received.',
					}),
				);
			} else if (result.kind === 'elsewhere') {
				if (result.url === reportedUrl) return;
				reportedUrl = result.url;
				saveFailedExecution(
					context,
					new NodeOperationError(
						node,
						`The account's webhook now points at ${result.url}, not at this trigger`,
						{
							description:
								'Someone or something set the account\'s one webhook to another URL, so this workflow receives no events. The trigger does not take it over. To receive events here again, publish this workflow again with "Replace Existing Webhook" on (the receiver at that URL then stops getting events).',
						},
					),
				);
			} else {
				reportedUrl = undefined;
				if (holderUrl) await reportMissedEvents(context, holderUrl);
			}
		} catch (error) {
			// The service did not answer (5xx, network, 429 beyond the waits): try at the next tick.
			context.logger.warn(
				`Messaging Relay Trigger "${node.name}": could not check the webhook registration: ${(error as Error).message}`,
			);
		} finally {
			checking = false;
		}
	};

	return {
		check,
		stop: () => {
			stopped = true;
		},
	};
}

/** Why the events were missed and what to do: the start of the report's description. */
const MISSED_WHY =
	"Its trigger failed to take the events forwarded to it for too long (an error or no answer: for example an expression in its trigger that fails), so the account's shared webhook went on without it: the other workflows received these events, and the service was told they were received and will not send them again. It takes events again since it answers. To have them, fetch them from their source or replay them.";

/**
 * The missed events one by one, for the report's description: which to fetch or replay. Each is
 * named by its own id where it has one (missedEventId.ts). A holder of an earlier version sends
 * counts only: then there is no list.
 */
function missedEventsList(missed: MissedSummary): string {
	if (!missed.events) return '';
	const listed = missed.events.map(
		({ id, type, at }) => `${id}, ${type}, ${new Date(at).toISOString()}`,
	);
	const notKept = missed.count - missed.events.length;
	const rest =
		notKept > 0
			? ` ${notKept} more were missed, counted only (beyond the ${missed.events.length} kept one by one).`
			: '';
	return `\n\nMissed events (id, type, when): ${listed.join('; ')}.${rest}`;
}

/**
 * What this workflow missed while the holder had it set aside (memberHealth.ts), as a failed
 * execution of the workflow: visible in its executions list, and it runs the error workflow. The
 * message gives the counts; the description names the events.
 */
async function reportMissedEvents(context: ITriggerFunctions, holderUrl: string) {
	const missed = await askWhatWasMissed(context, holderUrl);
	if (!missed) return;
	const types = Object.entries(missed.types ?? {})
		.sort(([, a], [, b]) => b - a)
		.map(([type, count]) => `${type} × ${count}`);
	if (missed.uncounted > 0) types.push(`${missed.uncounted} more of types not kept`);
	const from = new Date(missed.firstAt).toISOString();
	const to = new Date(missed.lastAt).toISOString();
	saveFailedExecution(
		context,
		new NodeOperationError(
			context.getNode(),
			`This workflow missed ${missed.count} event(s) while it could not take them (${from} to ${to}): ${types.join(', ')}`,
			{
				description: MISSED_WHY + missedEventsList(missed),
			},
		),
	);
	await confirmReported(context, holderUrl, missed.upTo);
}
