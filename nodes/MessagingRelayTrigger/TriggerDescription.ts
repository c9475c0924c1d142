import type { INodeProperties } from 'n8n-workflow';

import { acknowledgeProperty } from './acknowledgement';
import { repairIntervalOption } from './registrationRepair';
import {
	chatTypeOption,
	combineMessagesOption,
	eventsProperty,
	ignoreChatsOption,
	manualRegistrationNotice,
	maxAgeOption,
	onlyNumbersOption,
	pauseWhenPersonRepliesOption,
	registrationProperty,
} from './triggerSettings';
import { replaceExistingOption } from './webhookLifecycle';

/**
 * The trigger's parameters, in the order the editor shows them. Each setting's property lives beside
 * the code that reads it (triggerSettings.ts for what a delivery reads, acknowledgement.ts,
 * registrationRepair.ts, webhookLifecycle.ts); this file only orders them.
 */
export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			'Several workflows can each have a trigger on the same account: use the same Messaging Relay credential and each one receives the events it selects. The account\'s one webhook is shared between them automatically, and "Listen for test event" does not take events away from published workflows.',
		name: 'oneWebhookNotice',
		type: 'notice',
		default: '',
	},
	registrationProperty,
	manualRegistrationNotice,
	eventsProperty,
	acknowledgeProperty,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			chatTypeOption,
			combineMessagesOption,
			ignoreChatsOption,
			maxAgeOption,
			onlyNumbersOption,
			pauseWhenPersonRepliesOption,
			replaceExistingOption,
			repairIntervalOption,
		],
	},
];
