/* eslint-disable @n8n/community-nodes/no-restricted-imports -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * The triggers' protocol as the sender reads it (protocol/handoffs.ts through peerClient.ts): real
 * HTTP from n8n-core's TriggerContext to a stand-in member on loopback, which proves itself (or not)
 * and answers what each test says. Membership comes from the proof; the body from the hand-off's
 * schema, and an answer this version cannot read is no body, never a guess.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { TriggerContext } from 'n8n-core';
import type { ITriggerFunctions } from 'n8n-workflow';

import { readHandoffRequest } from '../../../../nodes/shared/protocol/handoffs';
import { resumeEventSchema, resumeRequestSchema } from '../../../../nodes/shared/protocol/resume';
import { sendHandoff } from '../../../../nodes/shared/sharedWebhook/peerClient';
import {
	deriveShareKey,
	HANDOFF_HEADERS,
	proofFor,
	type ShareOp,
} from '../../../../nodes/shared/sharedWebhook/signedHandoff';
import { startRelaySimulator, type RelaySimulator } from '../../../simulator';
import { TriggerHarness } from '../../../support/harness/triggerRuntime';

const KEY = deriveShareKey('key_protocol_contract');
const PATH = '/webhook/member/webhook';

/** What the stand-in member answers next: its status, its body, and whether it proves itself. */
let next: { status: number; body: unknown; prove: boolean } = {
	status: 200,
	body: {},
	prove: true,
};
let sim: RelaySimulator;
let harness: TriggerHarness;
let member: Server;
let url: string;
let context: ITriggerFunctions;

beforeAll(async () => {
	sim = await startRelaySimulator();
	harness = await TriggerHarness.start(sim, { events: ['message.received'] });
	context = new TriggerContext(
		harness.workflow,
		harness.node,
		harness.additionalData(),
		'trigger',
		'activate',
	) as unknown as ITriggerFunctions;
	member = createServer((request, response) => {
		const nonce = String(request.headers[HANDOFF_HEADERS.nonce] ?? '');
		const proof = next.prove ? proofFor(KEY, nonce, PATH) : 'not-the-proof';
		const body =
			next.body !== null && typeof next.body === 'object' && !Array.isArray(next.body)
				? { proof, ...next.body }
				: next.body;
		request.resume();
		request.on('end', () => {
			response.writeHead(next.status, { 'content-type': 'application/json' });
			response.end(JSON.stringify(body));
		});
	});
	await new Promise<void>((resolve) => member.listen(0, '127.0.0.1', resolve));
	url = `http://127.0.0.1:${(member.address() as AddressInfo).port}${PATH}`;
});
afterAll(async () => {
	await new Promise((resolve) => member.close(resolve));
	await harness.stop();
	await sim.stop();
});

async function ask(op: ShareOp, answer: Partial<typeof next>) {
	next = { status: 200, body: {}, prove: true, ...answer };
	return await sendHandoff(context, KEY, op, url, '{}');
}

test('each hand-off answer is read by its own schema: the fields this version knows, no proof, nothing else', async () => {
	await expect(ask('pause', { body: { applied: true, reason: 'r', extra: 1 } })).resolves.toEqual({
		kind: 'member',
		body: { applied: true, reason: 'r' },
	});
	await expect(ask('resume', { body: { consumed: true, reAsked: true } })).resolves.toEqual({
		kind: 'member',
		body: { consumed: true, reAsked: true },
	});
	await expect(ask('repair', { body: { result: 'intact' } })).resolves.toEqual({
		kind: 'member',
		body: { result: 'intact' },
	});
	await expect(ask('repair', { body: { result: 'registered' } })).resolves.toEqual({
		kind: 'member',
		body: { result: 'registered' },
	});
	for (const result of ['registered', 'moved-on'])
		await expect(ask('takeover', { body: { result } })).resolves.toEqual({
			kind: 'member',
			body: { result },
		});
	await expect(ask('missed', { body: { missed: null } })).resolves.toEqual({
		kind: 'member',
		body: { missed: null },
	});
	// The `wait` answer's lists that an earlier holder leaves out come back empty.
	await expect(ask('wait', { body: { recorded: [true] } })).resolves.toEqual({
		kind: 'member',
		body: { recorded: [true], confirmed: [], otherWaitsInChat: [] },
	});
});

test('a proven member whose answer this version cannot read is still a member, with no body', async () => {
	await expect(ask('pause', { body: { applied: 'yes' } })).resolves.toEqual({
		kind: 'member',
		body: undefined,
	});
	await expect(ask('repair', { body: { result: 'rebuilt' } })).resolves.toEqual({
		kind: 'member',
		body: undefined,
	});
	await expect(ask('wait', { body: { recorded: 'all' } })).resolves.toEqual({
		kind: 'member',
		body: undefined,
	});
	await expect(ask('takeover', { body: {} })).resolves.toEqual({ kind: 'member', body: undefined });
});

test('an answer without the proof is a stranger, whatever its body says', async () => {
	await expect(ask('pause', { body: { applied: true }, prove: false })).resolves.toEqual({
		kind: 'stranger',
		statusCode: 200,
	});
});

test("an event's answer needs no proof: the trigger's own words are read, a workflow's own answer is no body", async () => {
	await expect(
		ask('event', {
			body: { received: true, ignored: 'not an event it listens to', ranBefore: true },
			prove: false,
		}),
	).resolves.toEqual({
		kind: 'member',
		body: { ignored: 'not an event it listens to', ranBefore: true },
	});
	// "When the Workflow Finishes" answers with the last node's data: here a list, and a non-text `ignored`.
	await expect(ask('event', { body: [{ ignored: 1 }], prove: false })).resolves.toEqual({
		kind: 'member',
		body: undefined,
	});
	await expect(ask('event', { body: { ignored: 1 }, prove: false })).resolves.toEqual({
		kind: 'member',
		body: undefined,
	});
});

describe('what the receiving trigger reads from a request', () => {
	test('a takeover names the leaving path; anything else is not read', () => {
		expect(readHandoffRequest('takeover', '{"leaving":"/webhook/a/webhook"}')).toEqual({
			leaving: '/webhook/a/webhook',
		});
		expect(readHandoffRequest('takeover', '{"leaving":"webhook/a"}')).toBeUndefined();
		expect(readHandoffRequest('takeover', 'not json')).toBeUndefined();
	});

	test('a missed question names the member; a report time that is not a number forgets nothing', () => {
		expect(readHandoffRequest('missed', '{"member":"/m","reportedUpTo":5}')).toEqual({
			member: '/m',
			reportedUpTo: 5,
		});
		expect(readHandoffRequest('missed', '{"member":"/m","reportedUpTo":"5"}')).toEqual({
			member: '/m',
		});
		expect(readHandoffRequest('missed', '{"member":"m"}')).toBeUndefined();
	});
});

describe('what a waiting run reads from a resume (protocol/resume.ts)', () => {
	const message = { id: 'm1', chatId: '4917610000001@c.us', text: 'yes' };

	test('an event is an object with a text `type` and an object `message`; anything else is no event', () => {
		expect(resumeEventSchema.safeParse({ type: 'message.received', message }).data).toEqual({
			type: 'message.received',
			message,
		});
		for (const odd of [null, [], 'yes', 5])
			expect(resumeEventSchema.safeParse({ type: 'message.received', message: odd }).success).toBe(
				false,
			);
		expect(resumeEventSchema.safeParse({ type: 5, message }).success).toBe(false);
	});

	test("the holder's count and id are kept; what this version cannot read falls back to 0 and none", () => {
		const event = { type: 'message.received', message };
		expect(resumeRequestSchema.parse({ asked: 2, questionId: 'q1', event })).toEqual({
			asked: 2,
			questionId: 'q1',
			event,
		});
		expect(resumeRequestSchema.parse({ asked: -1, questionId: 7, event: 'yes' })).toEqual({
			asked: 0,
			questionId: null,
			event: undefined,
		});
		expect(resumeRequestSchema.parse({ asked: 1.5 })).toEqual({ asked: 0, questionId: null });
	});
});
