import type { IWebhookDescription } from 'n8n-workflow';

import { fieldsFromParameters } from '../shared/n8n/webhookResolvers';

/**
 * What each version's webhook description tells n8n about answering the service
 * (acknowledgement.ts), fixed per version so that n8n evaluates no expression for it on a delivery
 * (docs/performance.md, "What n8n evaluates per delivery").
 */
export type AnswerFields = Pick<IWebhookDescription, 'responseMode' | 'responseData'>;

/**
 * Versions 1 and 2: n8n answers once the execution has started (`onReceived`) with webhook()'s
 * `webhookResponse` ({"received":true}), as `responseData` is empty; left out, n8n 2.41 answers with
 * its default's name, "firstEntryJson". Plain strings: n8n evaluates nothing for them.
 */
const WHEN_STARTED: AnswerFields = { responseMode: 'onReceived', responseData: '' };

/**
 * Version 3: "Acknowledge Events" picks the mode; each field a template with its native resolver, so
 * n8n 2.41.1 evaluates no expression (1.123.81 evaluates the templates in the isolate it takes for
 * every webhook request anyway). "When the Workflow Finishes" answers at the run's end with an empty
 * 200 (`noData`), never the last node's output. 'whenFinished' is ACKNOWLEDGE.whenFinished written
 * out: each function travels as text (noExpressionPerDelivery.test.ts evaluates both values).
 */
const BY_SETTING: AnswerFields = fieldsFromParameters({
	responseMode: (parameters) =>
		parameters.acknowledge === 'whenFinished' ? 'lastNode' : 'onReceived',
	// The source is the published template's text: formatting must not change it (listed-types.json).
	// prettier-ignore
	responseData: (parameters) => parameters.acknowledge === 'whenFinished' ? 'noData' : '',
});

/** The answer fields of the webhook description that these versions share (all below 3, or all 3 and above). */
export function answerFields(versions: number[]): AnswerFields {
	const chosen = versions.every((v) => v >= 3);
	if (!chosen && versions.some((v) => v >= 3))
		throw new Error(
			'Versions below 3 and from 3 on answer differently: give them descriptions of their own',
		);
	return chosen ? BY_SETTING : WHEN_STARTED;
}
