/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * Every stage of a request to the trigger ends in one DeliveryOutcome, turned into n8n's answer by
 * deliveryOutcome.ts's answerDelivery alone (issue 43, "two pipelines"): webhook() builds no answer
 * of its own. Read from the source, since any stage that answered by itself would still pass every
 * delivery test (the answer is the same; where it is made is not).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { repoRoot } from '../../support/repo';

const source = (file: string) =>
	readFileSync(join(repoRoot, 'nodes/MessagingRelayTrigger', file), 'utf8');

test('the pipelines return outcomes; only answerDelivery turns them into an answer', () => {
	const pipeline = source('triggerVersion.ts');
	expect(pipeline.match(/\banswerRequest\(|\bsendOn\(|webhookResponse:/g)).toBeNull();
	expect(pipeline.match(/\banswerDelivery\(/g)).toHaveLength(1);
	expect(pipeline).toMatch(
		/async function deliver\(this: IWebhookFunctions\): Promise<DeliveryOutcome>/,
	);
	expect(pipeline).toMatch(/async function takeEvent\([^)]*\): Promise<DeliveryOutcome>/s);
	expect(source('deliveryOutcome.ts')).toMatch(/export async function answerDelivery\(/);
});
