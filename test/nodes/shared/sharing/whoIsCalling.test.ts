/**
 * Step 1 of a delivery (whoIsCalling.ts), called directly with a stand-in for n8n's webhook
 * context: the service proven by its secret (held as a digest, or managed elsewhere), another
 * trigger proven by a signed hand-off, and every refusal with its status and Retry-After. The one
 * collaborator that would ask the service over HTTP (unsavedRegistration.ts) is replaced by a
 * stand-in whose verdict the test sets; the harness suites (registration.test.ts,
 * managedSecret.test.ts, protocol.test.ts) go through all of it over HTTP.
 */
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import {
	whoIsCalling as settleCaller,
	type Caller,
} from '../../../../nodes/shared/sharing/whoIsCalling';
import { receiveHandoff as handle } from '../../../../nodes/shared/sharing/receiveHandoff';
import { keyCheckOf, upgradeStoredKey } from '../../../../nodes/shared/sharedWebhook/accountKey';
import { secretDigest, upgradeStoredSecret } from '../../../../nodes/shared/serviceSecret';
import { unsavedRegistration } from '../../../../nodes/shared/sharing/unsavedRegistration';
import {
	applyPauseCommand,
	pausesInStaticData,
} from '../../../../nodes/MessagingRelayTrigger/chatPause';
import { isManagedElsewhere } from '../../../../nodes/MessagingRelayTrigger/triggerSettings';
import {
	rememberHolder,
	type WebhookState,
} from '../../../../nodes/shared/sharedWebhook/webhookState';
import {
	deriveShareKey,
	proofFor,
	signHandoff,
	type ShareOp,
} from '../../../../nodes/shared/sharedWebhook/signedHandoff';

/** As the trigger asks (triggerVersion.ts): with its Registration setting, and its chat pauses. */
type Settle = Parameters<typeof settleCaller>;
const whoIsCalling = async (context: Settle[0], state: Settle[1]) =>
	await settleCaller(context, state, isManagedElsewhere(context));
type Handle = Parameters<typeof handle>;
const receiveHandoff = async (context: Handle[0], state: Handle[1], handoff: Handle[2]) =>
	await handle(context, state, handoff, applyPauseCommand);

jest.mock('../../../../nodes/shared/sharing/unsavedRegistration', () => ({
	unsavedRegistration: jest.fn(async () => 'none'),
}));
const verdict = unsavedRegistration as jest.MockedFunction<typeof unsavedRegistration>;
beforeEach(() => verdict.mockReset().mockResolvedValue('none'));

const ISSUED = 'whsec_the_service_issued_0001';
const WRONG = 'whsec_wrong';
const NEWER = 'whsec_newer_one_000000000001';
const TYPED = 'whsec_typed_by_the_user_0001';
const KEY = deriveShareKey('sim-key-full');
const OWN_URL = 'https://n8n.example.com/webhook/abc/webhook';
const OWN_PATH = '/webhook/abc/webhook';
const EVENT = '{"type":"message.received","id":"evt_1"}';

let workflows = 0;

interface Request {
	headers?: Record<string, unknown>;
	body?: string;
	mode?: 'webhook' | 'manual';
	registration?: 'automatic' | 'manual';
	/** The credential's Webhook Secret (Webhook Managed Elsewhere). */
	credentialSecret?: string;
	pauseOption?: IDataObject;
	/** The credential's API key (K derives from it). */
	credentialApiKey?: string;
	/** The same workflow as an earlier request (one process's memory of K is per workflow). */
	workflowId?: string;
}

function context(request: Request = {}) {
	const body = request.body ?? EVENT;
	const workflowId = request.workflowId ?? `wf-who-${++workflows}`;
	const parameters: Record<string, unknown> = {
		registration: request.registration ?? 'automatic',
		'options.pauseWhenPersonReplies': request.pauseOption ?? {},
	};
	const credentialReads = jest.fn(async () => ({
		apiKey: request.credentialApiKey,
		webhookSecret: request.credentialSecret,
	}));
	return {
		credentialReads,
		context: {
			getHeaderData: () => request.headers ?? {},
			getRequestObject: () => ({ rawBody: Buffer.from(body, 'utf8'), body: JSON.parse(body) }),
			getBodyData: () => JSON.parse(body) as IDataObject,
			getMode: () => request.mode ?? 'webhook',
			getNodeParameter: (name: string, fallback: unknown) =>
				name in parameters ? parameters[name] : fallback,
			getWebhookResourceUrl: () => OWN_URL,
			getNode: () => ({ name: 'Trigger', credentials: { messagingRelayApi: { id: 'cred-1' } } }),
			getWorkflow: () => ({ id: workflowId }),
			getCredentials: credentialReads,
		} as unknown as IWebhookFunctions,
	};
}

/** A trigger that holds the registration: the digest of ISSUED in its static data, and K. */
function holderState(): WebhookState {
	const state: WebhookState = { shareKey: KEY };
	rememberHolder(state, OWN_URL, ISSUED);
	return state;
}

const signed = (op: ShareOp, body = EVENT) => ({
	headers: signHandoff(KEY, op, OWN_PATH, body).headers,
	body,
});

describe('the service', () => {
	test('with the secret whose digest the holder keeps: the service, and nobody is asked about a registration', async () => {
		const { context: c } = context({ headers: { 'x-service-secret': ISSUED } });
		expect(await whoIsCalling(c, holderState())).toEqual({ kind: 'service' });
		expect(verdict).not.toHaveBeenCalled();
	});

	test('a wrong or missing secret: 401, after asking whether a registration not saved yet explains it (a string only)', async () => {
		const state = holderState();
		const { context: c } = context({ headers: { 'x-service-secret': WRONG } });
		expect(await whoIsCalling(c, state)).toEqual({
			kind: 'answered',
			answer: { status: 401, body: { error: 'Invalid or missing x-service-secret' } },
		});
		expect(verdict).toHaveBeenCalledWith(c, state, WRONG);

		verdict.mockClear();
		const missing = context();
		const refused = await whoIsCalling(missing.context, state);
		expect(refused).toEqual({
			kind: 'answered',
			answer: { status: 401, body: { error: 'Invalid or missing x-service-secret' } },
		});
		expect(
			refused.kind === 'answered' && 'headers' in refused.answer && refused.answer.headers,
		).toBeFalsy();
		expect(verdict).not.toHaveBeenCalled();
	});

	test('a secret a registration not saved yet may carry (unsaved, or the look failed): 503, deliver again in 2 s', async () => {
		for (const v of ['unsaved', 'unknown'] as const) {
			verdict.mockResolvedValueOnce(v);
			const { context: c } = context({
				headers: { 'x-service-secret': NEWER },
			});
			expect(await whoIsCalling(c, holderState())).toEqual({
				kind: 'answered',
				answer: {
					status: 503,
					body: {
						error:
							'This trigger registered its webhook a moment ago; deliver the event again shortly',
					},
					headers: { 'Retry-After': '2' },
				},
			});
		}
	});

	test('a holder that has not stored the secret yet: 503, retry in 5 s, whatever the header says', async () => {
		const notYet = {
			kind: 'answered',
			answer: {
				status: 503,
				body: { error: 'Webhook secret not configured yet' },
				headers: { 'Retry-After': '5' },
			},
		};
		for (const state of [
			{},
			{ webhookSecret: '' },
			{ webhookSecretDigest: '' },
		] as WebhookState[]) {
			const { context: c } = context({ headers: { 'x-service-secret': ISSUED } });
			expect(await whoIsCalling(c, state)).toEqual(notYet);
		}
		expect(verdict).not.toHaveBeenCalled();
	});

	test('a secret kept in clear by an earlier version still proves the service; only the upgrade replaces it by its digest', async () => {
		const state = { webhookSecret: ISSUED } as WebhookState;
		const { context: c } = context({ headers: { 'x-service-secret': ISSUED } });
		expect(await whoIsCalling(c, state)).toEqual({ kind: 'service' });
		expect(state).toEqual({ webhookSecret: ISSUED });
		const wrong = context({ headers: { 'x-service-secret': WRONG } });
		expect((await whoIsCalling(wrong.context, state)).kind).toBe('answered');

		upgradeStoredSecret(state);
		expect(state).toEqual({
			webhookSecretDigest: secretDigest(ISSUED),
			webhookSecretLength: ISSUED.length,
		});
		expect(await whoIsCalling(c, state)).toEqual({ kind: 'service' });
	});
});

describe('the service, with the webhook managed elsewhere', () => {
	test("the credential's secret proves it; the digest in static data plays no part", async () => {
		const managed = context({
			headers: { 'x-service-secret': TYPED },
			registration: 'manual',
			credentialSecret: TYPED,
		});
		expect(await whoIsCalling(managed.context, holderState())).toEqual({ kind: 'service' });
		expect(managed.credentialReads).toHaveBeenCalledTimes(1);

		const digestOnly = context({
			headers: { 'x-service-secret': ISSUED },
			registration: 'manual',
			credentialSecret: TYPED,
		});
		expect(await whoIsCalling(digestOnly.context, holderState())).toEqual({
			kind: 'answered',
			answer: { status: 401, body: { error: 'Invalid or missing x-service-secret' } },
		});
		// Nobody asks the service about a registration this trigger does not make.
		expect(verdict).not.toHaveBeenCalled();
	});

	test('a credential without a secret: 503, retry in 5 s', async () => {
		const { context: c, credentialReads } = context({
			headers: { 'x-service-secret': ISSUED },
			registration: 'manual',
		});
		expect(await whoIsCalling(c, holderState())).toEqual({
			kind: 'answered',
			answer: {
				status: 503,
				body: { error: 'Webhook secret not configured yet' },
				headers: { 'Retry-After': '5' },
			},
		});
		expect(credentialReads).toHaveBeenCalled();
	});

	test('the automatic registration never reads the credential', async () => {
		const { context: c, credentialReads } = context({ headers: { 'x-service-secret': ISSUED } });
		await whoIsCalling(c, holderState());
		expect(credentialReads).not.toHaveBeenCalled();
	});
});

describe('another trigger of the account', () => {
	test('a signed event: a trigger, with the body text its signature covered', async () => {
		const { context: c } = context(signed('event'));
		expect(await whoIsCalling(c, holderState())).toEqual({ kind: 'trigger', bodyText: EVENT });
	});

	test('a hand-off is never taken for the service, even with the right service secret beside it', async () => {
		const h = signed('event');
		const { context: c } = context({
			...h,
			headers: { ...h.headers, 'x-relay-signature': '0'.repeat(64), 'x-service-secret': ISSUED },
		});
		expect(await whoIsCalling(c, holderState())).toEqual({
			kind: 'answered',
			answer: {
				status: 401,
				body: { error: 'Invalid hand-off: hand-off signature does not match' },
			},
		});
	});

	test('a trigger that has no K yet (published a moment ago): 503, deliver again in 2 s', async () => {
		const { context: c } = context(signed('ping', '{}'));
		expect(await whoIsCalling(c, { webhookSecretDigest: secretDigest(ISSUED) })).toEqual({
			kind: 'answered',
			answer: {
				status: 503,
				body: { error: 'This trigger is not ready for hand-offs yet' },
				headers: { 'Retry-After': '2' },
			},
		});
	});

	test('n8n gives no URL for this webhook: 503, deliver again in 2 s, and nothing is verified', async () => {
		const { context: c } = context(signed('ping', '{}'));
		const noUrl = { ...c, getWebhookResourceUrl: () => undefined } as unknown as IWebhookFunctions;
		expect(await whoIsCalling(noUrl, holderState())).toEqual({
			kind: 'answered',
			answer: {
				status: 503,
				body: { error: 'This trigger is not ready for hand-offs yet' },
				headers: { 'Retry-After': '2' },
			},
		});
	});

	test('a control hand-off is named with what its handler needs, and done only by receiveHandoff', async () => {
		const h = signed('ping', '{}');
		const { context: c } = context(h);
		const proof = proofFor(KEY, h.headers['x-relay-nonce'], OWN_PATH);
		const caller = await whoIsCalling(c, holderState());
		expect(caller).toEqual({
			kind: 'handoff',
			handoff: { op: 'ping', body: '{}', proof, key: KEY, ownUrl: OWN_URL },
		});
		if (caller.kind !== 'handoff') return;
		expect(await receiveHandoff(c, holderState(), caller.handoff)).toEqual({
			kind: 'answered',
			answer: { status: 200, body: { proof } },
		});
	});

	test('a takeover reaching a test listener is refused as such; a published one reads its request', async () => {
		const body = '{"leaving":"nowhere"}';
		const test = context({ ...signed('takeover', body), mode: 'manual' });
		const answered = await handled(test.context, holderState());
		expect(answered.kind === 'answered' && answered.answer.status).toBe(409);
		const published = context(signed('takeover', body));
		const read = await handled(published.context, holderState());
		expect(read.kind === 'answered' && read.answer.status).toBe(400);
	});

	test('a trigger does not take a resume: 400', async () => {
		const { context: c } = context(signed('resume', '{}'));
		expect(await handled(c, holderState())).toEqual({
			kind: 'answered',
			answer: { status: 400, body: { error: 'A trigger does not take resumes' } },
		});
	});

	test('a pause is applied by its handler, and answered with the proof once n8n has saved it', async () => {
		const body = JSON.stringify({ chat: '4917612345678@c.us', pause: true, at: Date.now() });
		const h = signed('pause', body);
		const on = context({
			...h,
			pauseOption: { settings: { minutes: 30, keyword: '#bot', apiOrigins: 'api' } },
		});
		const state = holderState();
		const caller = await whoIsCalling(on.context, state);
		expect(pausesInStaticData(state)).toEqual({});
		expect(caller.kind).toBe('handoff');
		if (caller.kind !== 'handoff') return;
		expect(await receiveHandoff(on.context, state, caller.handoff)).toEqual({
			kind: 'answered',
			answer: {
				status: 200,
				body: { proof: proofFor(KEY, h.headers['x-relay-nonce'], OWN_PATH), applied: true },
				afterSave: true,
			},
		});
		expect(Object.keys(pausesInStaticData(state))).toEqual(['4917612345678@c.us']);

		const h2 = signed('pause', body);
		const off = context(h2);
		expect(await handled(off.context, holderState())).toEqual({
			kind: 'answered',
			answer: {
				status: 200,
				body: {
					proof: proofFor(KEY, h2.headers['x-relay-nonce'], OWN_PATH),
					applied: false,
					reason: 'Pause When a Person Replies is off in this trigger',
				},
				afterSave: true,
			},
		});
	});
});

/** whoIsCalling, then (a control hand-off) its handler, as webhook() does. */
async function handled(c: IWebhookFunctions, state: WebhookState) {
	const caller = await whoIsCalling(c, state);
	if (caller.kind !== 'handoff') throw new Error(`not a control hand-off: ${caller.kind}`);
	return await receiveHandoff(c, state, caller.handoff);
}

describe('who is calling only reads', () => {
	/** A holder as this version keeps it: K's check, never K (accountKey.ts). */
	function currentHolder(): WebhookState {
		const state: WebhookState = { shareKeyCheck: keyCheckOf(KEY) };
		rememberHolder(state, OWN_URL, ISSUED);
		return state;
	}
	const pause = JSON.stringify({ chat: '4917612345678@c.us', pause: true, at: 1 });
	const waits = JSON.stringify({ waits: [], confirm: [], ends: ['w1'] });
	const requests: Array<[string, Request, Caller['kind']]> = [
		['the service', { headers: { 'x-service-secret': ISSUED } }, 'service'],
		['a wrong secret', { headers: { 'x-service-secret': WRONG } }, 'answered'],
		['a forwarded event', signed('event'), 'trigger'],
		['a ping', signed('ping', '{}'), 'handoff'],
		[
			'a pause',
			{ ...signed('pause', pause), pauseOption: { settings: { minutes: 30 } } },
			'handoff',
		],
		['waits to record and end', signed('wait', waits), 'handoff'],
		['a takeover', signed('takeover', '{"leaving":"/webhook/gone/webhook"}'), 'handoff'],
		['a repair', signed('repair', '{}'), 'handoff'],
		[
			'a question about what a member missed',
			signed('missed', '{"member":"/webhook/m"}'),
			'handoff',
		],
		[
			'a forged hand-off',
			{ ...signed('pause', pause), body: pause.replace('true', 'false') },
			'answered',
		],
	];

	test.each(requests)(
		'%s: static data is as it was, and nothing asked the service',
		async (_, request, kind) => {
			const state = currentHolder();
			const before = JSON.stringify(state);
			const { context: c } = context({ ...request, credentialApiKey: 'sim-key-full' });
			const caller = await whoIsCalling(c, state);
			expect(caller.kind).toBe(kind);
			expect(JSON.stringify(state)).toBe(before);
			expect(verdict).toHaveBeenCalledTimes(
				request.headers?.['x-service-secret'] === WRONG ? 1 : 0,
			);
		},
	);

	test('a K kept by an earlier version still verifies; only the upgrade replaces it by its check', async () => {
		const state = holderState();
		const { context: c } = context(signed('ping', '{}'));
		expect((await whoIsCalling(c, state)).kind).toBe('handoff');
		expect(state.shareKey).toBe(KEY);
		upgradeStoredKey(c, state);
		expect(state.shareKey).toBeUndefined();
		expect(state.shareKeyCheck).toBe(keyCheckOf(KEY));
		// The process that upgraded keeps K in memory: its next hand-off verifies without the credential.
		const again = context({ ...signed('ping', '{}'), workflowId: c.getWorkflow().id });
		expect((await whoIsCalling(again.context, state)).kind).toBe('handoff');
		expect(again.credentialReads).not.toHaveBeenCalled();
	});
});
