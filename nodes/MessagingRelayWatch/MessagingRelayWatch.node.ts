import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { testMessagingRelayApi } from '../shared/credentialTest/credentialTest';
import { listNumbers } from '../shared/numbersApi';
import { readWebhook } from '../shared/webhookApi';
import { detectChanges } from './detectChanges';
import { type WatchSettings, watchProperties } from './WatchDescription';
import { classifyWebhook, type WatchState } from './watchState';
import { parseRegistration } from '../shared/sharedWebhook/registeredUrl';

function readSettings(context: IPollFunctions): WatchSettings {
	const options = context.getNodeParameter('options', {}) as IDataObject;
	return {
		offlineMinutes: Number(context.getNodeParameter('offlineMinutes', 30)),
		silenceMinutes: Number(context.getNodeParameter('silenceMinutes', 0)),
		watchWebhook: context.getNodeParameter('watchWebhook', true) as boolean,
		expectedWebhookUrl: String(options.expectedWebhookUrl ?? '').trim(),
		emitAtStart: options.emitAtStart === true,
	};
}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * Which URLs count as "this n8n": the URL the user named, else any production webhook URL of
 * this instance (n8n serves them under `<instance address>/webhook/`). Test URLs
 * (`/webhook-test/`) do not count: a published trigger receives nothing through them. A shared
 * registration (docs/shared-webhook.md) counts when its holder or one of its production members
 * does: the holder forwards to every member, so events reach them even while a test listener holds it.
 */
function urlMatchers(context: IPollFunctions, expected: string) {
	const base = withoutTrailingSlash(context.getInstanceBaseUrl());
	const matches = (url: string) =>
		expected
			? withoutTrailingSlash(url) === withoutTrailingSlash(expected)
			: url.startsWith(`${base}/webhook/`);
	const receivers = (url: string): string[] => {
		const registration = parseRegistration(url);
		if (!registration?.shared) return [url];
		const holder = registration.holderTest ? [] : [registration.holderUrl];
		return [...holder, ...registration.members.map((path) => `${registration.origin}${path}`)];
	};
	return {
		isOurs: (url: string) => receivers(url).some(matches),
		isTestUrl: (url: string) => url.startsWith(`${base}/webhook-test/`),
	};
}

export class MessagingRelayWatch implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging Relay Watch',
		name: 'messagingRelayWatch',
		icon: {
			light: 'file:../../icons/messagingRelayWatch.svg',
			dark: 'file:../../icons/messagingRelayWatch.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: 'Watch numbers and webhook',
		description:
			'Polls the numbers and the webhook and starts the workflow when one changes: a number needs relinking, a phone is offline too long, the webhook is gone',
		defaults: { name: 'Messaging Relay Watch' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// String literals, not CREDENTIAL_NAME and CREDENTIAL_TEST_NAME: n8n's verification scan reads them
		// from this file to accept a credential without a declared test (@n8n/community-nodes
		// credential-test-required, utils/file-utils.js areAllCredentialUsagesTestedByNodes, which
		// reads string literals only). test/credentials/MessagingRelayApi/credentialTestFunction.test.ts
		// checks they match.
		credentials: [{ name: 'messagingRelayApi', required: true, testedBy: 'messagingRelayApiTest' }],
		properties: watchProperties,
	};

	methods = {
		credentialTest: { messagingRelayApiTest: testMessagingRelayApi },
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const settings = readSettings(this);
		const { isOurs, isTestUrl } = urlMatchers(this, settings.expectedWebhookUrl);

		// Both reads first: an error (401/402/403/5xx, or a 429 that outlasts the waits) ends the
		// poll before anything is compared, so it never turns into a false alert.
		const numbers = await listNumbers.call(this);
		const webhook = settings.watchWebhook
			? classifyWebhook(await readWebhook.call(this), isOurs)
			: undefined;
		const seen = { numbers, webhook, now: new Date() };

		if (this.getMode() === 'manual') {
			// "Fetch Test Event" in the editor: show what would be reported now, keep no state.
			const { changes } = detectChanges({}, seen, { ...settings, emitAtStart: true }, isTestUrl);
			if (changes.length > 0) return [this.helpers.returnJsonArray(changes)];
			return [
				this.helpers.returnJsonArray([
					{
						change: 'none',
						problem: false,
						message: `No problem now: ${numbers.length} number(s) checked${webhook ? ', and the webhook points at this n8n' : ''}. Published, this node emits one item per change.`,
					},
				]),
			];
		}

		const state = this.getWorkflowStaticData('node') as WatchState;
		const { changes, next } = detectChanges(state, seen, settings, isTestUrl);
		// Written into n8n's own static-data object, which n8n saves with the workflow whenever
		// this poll emits (and at publishing), so a restart does not alert old news again.
		state.watchVersion = next.watchVersion;
		state.numbers = next.numbers;
		state.webhook = next.webhook;

		return changes.length > 0 ? [this.helpers.returnJsonArray(changes)] : null;
	}
}
