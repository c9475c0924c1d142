/**
 * A wait's resume path is kept packed (resumePathPacking.ts) only when it comes back byte for byte:
 * resume URLs built exactly as n8n-core's getSignedResumeUrl builds them (its own signature
 * helpers, any chat, number, times, node id and n8n prefix) round-trip through the packed table and
 * still pass n8n-core's signature check; anything else is kept whole.
 */
import fc from 'fast-check';
import {
	buildResumeUrlSuffix,
	generateUrlSignature,
	prepareUrlForSigning,
	validateUrlSignature,
} from 'n8n-core';

import {
	isPacked,
	packResumePath,
	unpackResumePath,
} from '../../../../nodes/shared/sendAndWait/resumePathPacking';
import {
	recordWait,
	waitIdOf,
	waitsInStaticData,
} from '../../../../nodes/shared/sendAndWait/waitingRuns';
import { signedWaitParams } from '../../../../nodes/shared/sendAndWait/waitingRunUrl';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

const SECRET = 'n8n-hmac-secret';

/** n8n-core's getSignedResumeUrl (node-execution-context.js), step for step. */
function signedResumeUrl(
	base: string,
	executionId: string,
	nodeId: string,
	parameters: Record<string, string>,
): URL {
	const url = new URL(`${base}${buildResumeUrlSuffix(executionId, nodeId)}`);
	for (const [key, value] of Object.entries(parameters)) url.searchParams.set(key, value);
	url.searchParams.set('signature', generateUrlSignature(prepareUrlForSigning(url), SECRET));
	return url;
}

const listener = {
	getWorkflow: () => ({ id: 'wf-paths' }),
	getNode: () => ({ name: 'Messaging Relay Trigger' }),
	getMode: () => 'webhook',
};
const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 30 });

test("n8n's signed resume paths are packed and come back byte for byte, and still pass n8n's signature check", () => {
	let n = 0;
	fc.assert(
		fc.property(
			text,
			text,
			fc.integer({ min: 0, max: 4_102_444_800_000 }),
			fc.integer({ min: 0, max: 32_503_680_000_000 }),
			fc.boolean(),
			fc.oneof(fc.uuid(), text),
			fc.constantFrom(
				'http://127.0.0.1:5678/webhook-waiting',
				'https://n8n.example.com/custom-wait',
				'https://example.com/n8n/webhook-waiting',
			),
			(chat, channelId, since, until, passOn, nodeId, base) => {
				const executionId = String(++n);
				const url = signedResumeUrl(
					base,
					executionId,
					nodeId,
					signedWaitParams({ chat, channelId, since, until, passOn }),
				);
				const resumePath = `${url.pathname}${url.search}`;
				const fields = { chat, channelId, since, until, passOn };
				const packed = packResumePath(executionId, resumePath, fields);
				expect(unpackResumePath(executionId, packed, fields)).toBe(resumePath);
				// Through the table and a JSON save and load, as n8n keeps it.
				const state: WebhookState = {};
				recordWait(
					listener,
					state,
					{ executionId, resumePath, chat, channelId, since, until, passOn, questionId: null },
					0,
				);
				const stored = waitsInStaticData(JSON.parse(JSON.stringify(state)) as WebhookState)[
					waitIdOf({ executionId, since })
				];
				expect(stored.resumePath).toBe(resumePath);
				const again = new URL(`${new URL(base).origin}${stored.resumePath}`);
				expect(validateUrlSignature(again.searchParams.get('signature')!, again, SECRET)).toBe(
					true,
				);
			},
		),
		{ numRuns: 300 },
	);
});

test("a plain UUID node id on n8n's default prefix packs to about a third of the path", () => {
	const fields = {
		chat: '4917612345678@c.us',
		channelId: 'num_main',
		since: 1_764_172_000_000,
		until: 32_503_680_000_000,
	};
	const url = signedResumeUrl(
		'http://127.0.0.1:5678/webhook-waiting',
		'12345',
		'4e0d1f5a-2b7c-4a4e-9f3e-8c1d2e3f4a5b',
		signedWaitParams(fields),
	);
	const path = `${url.pathname}${url.search}`;
	const packed = packResumePath('12345', path, fields);
	expect(isPacked(packed)).toBe(true);
	expect(packed.length).toBeLessThan(path.length / 2.5);
});

test("kept whole: a path whose fields differ from the row (a wait ended early), another shape, or not n8n's signature", () => {
	const fields = {
		chat: '4917612345678@c.us',
		channelId: 'num_main',
		since: 1_764_172_000_000,
		until: 32_503_680_000_000,
	};
	const url = signedResumeUrl(
		'http://127.0.0.1:5678/webhook-waiting',
		'7',
		'node-1',
		signedWaitParams(fields),
	);
	const path = `${url.pathname}${url.search}`;
	expect(packResumePath('7', path, { ...fields, until: 1_764_172_100_000 })).toBe(path);
	expect(packResumePath('8', path, fields)).toBe(path);
	for (const other of [
		'/webhook-waiting/7/node-1?chat=x',
		`/webhook-waiting/7/node-1?signature=${'A'.repeat(64)}`,
		'/form-waiting/7',
	])
		expect(packResumePath('7', other, fields)).toBe(other);
});
