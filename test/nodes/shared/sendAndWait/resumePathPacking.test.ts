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
import { signedWaitParams } from '../../../../nodes/shared/protocol/waitingRunUrl';
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

/**
 * The packed forms themselves, written out by hand: the round trip above holds for any packer (a
 * packer that never packs passes it, since packResumePath falls back to the whole path), so these
 * fix what is kept (issue 42: an independent oracle).
 */
describe('the packed form, byte for byte', () => {
	const fields = { chat: '4917600000001@c.us', channelId: 'num_main', since: 1, until: 2 };
	const query = 'chat=4917600000001%40c.us&relay-wait=v1&channel=num_main&since=1&until=2';
	const signature = '0123456789abcdef'.repeat(4);
	// The 32 bytes of the signature, and the 16 of the UUID below, in base64url.
	const signature64 = 'ASNFZ4mrze8BI0VniavN7wEjRWeJq83vASNFZ4mrze8';
	const uuid = '4e0d1f5a-2b7c-4a4e-9f3e-8c1d2e3f4a5b';
	const uuid64 = 'Tg0fWit8Sk6fPowdLj9KWw';

	test.each([
		[
			"n8n's default prefix and a UUID node id: no prefix, the node id as 22 characters",
			`/webhook-waiting/7/${uuid}?${query}&signature=${signature}`,
			`~~*${uuid64}~${signature64}`,
		],
		[
			'another prefix (N8N_ENDPOINT_WEBHOOK_WAIT) is kept; a node id that is not a UUID as it is',
			`/custom-wait/7/ask?${query}&signature=${signature}`,
			`~/custom-wait~ask~${signature64}`,
		],
		[
			'a node id that only contains a UUID is not one',
			`/webhook-waiting/7/x${uuid}?${query}&signature=${signature}`,
			`~~x${uuid}~${signature64}`,
		],
		[
			'an upper-case UUID is not the lower-case one n8n makes',
			`/webhook-waiting/7/${uuid.toUpperCase()}?${query}&signature=${signature}`,
			`~~${uuid.toUpperCase()}~${signature64}`,
		],
		[
			'a UUID with a group one digit short is not one',
			`/webhook-waiting/7/${uuid.slice(0, -1)}?${query}&signature=${signature}`,
			`~~${uuid.slice(0, -1)}~${signature64}`,
		],
	])('%s', (_, path, packed) => {
		expect(packResumePath('7', path, fields)).toBe(packed);
		expect(unpackResumePath('7', packed, fields)).toBe(path);
		expect(isPacked(packed)).toBe(true);
	});

	// Each group of the UUID one character long, or of letters that are not hex digits, and one
	// digit too many at the end: none is a UUID, so each is kept as it is.
	const groups = uuid.split('-');
	const shapes = [
		...groups.map((_, i) => groups.map((g, j) => (j === i ? g[0] : g)).join('-')),
		...groups.map((_, i) => groups.map((g, j) => (j === i ? 'g'.repeat(g.length) : g)).join('-')),
		`${uuid}0`,
	];
	test.each(shapes.map((node) => [node]))(
		'a node id %s in the shape of a UUID but not one is kept as it is',
		(node) => {
			const path = `/webhook-waiting/7/${node}?${query}&signature=${signature}`;
			expect(packResumePath('7', path, fields)).toBe(`~~${node}~${signature64}`);
		},
	);

	test('a stored whole path comes back as it is, even with "~" inside; a packed form missing a part too', () => {
		const whole = `/webhook-waiting/7/ask?chat=a~b~c&signature=${signature}`;
		expect(unpackResumePath('7', whole, fields)).toBe(whole);
		expect(unpackResumePath('7', '~only-a-prefix', fields)).toBe('~only-a-prefix');
		expect(unpackResumePath('7', '~~ask', fields)).toBe('~~ask');
		expect(isPacked(whole)).toBe(false);
		expect(isPacked(`~~ask~${signature64}x`)).toBe(false);
		expect(isPacked(`x~~ask~${signature64}`)).toBe(false);
	});
});
