/**
 * Webhook Managed Elsewhere (managedSecret.ts), called directly with a stand-in for n8n's context
 * whose credential reads the test finishes one by one, and this process's clock in the test's hand:
 * which read a delivery is compared with, when the credential is read again, and how many reads a
 * burst of wrong secrets costs. managedSecret.test.ts shows the same over HTTP with the harness.
 */
import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	keepManagedSecret,
	managedSecretFor,
	managedSecretPolicy,
} from '../../../../nodes/shared/sharing/managedSecret';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';

const OLD = 'whsec_before_the_rotation_0001';
const NEW = 'whsec_after_the_rotation_00002';
const T0 = 1_900_000_000_000;

let clock = T0;
beforeEach(() => {
	jest.spyOn(Date, 'now').mockImplementation(() => clock);
});
afterEach(() => jest.restoreAllMocks());

/** A read of the credential that the test finishes (or fails). */
interface PendingRead {
	finish(secret: string | undefined): void;
	fail(): void;
}

let workflows = 0;

/** A trigger of its own (a new workflow id), whose credential reads wait for the test. */
function trigger(
	options: {
		workflowId?: string;
		nodeName?: string;
		credentialId?: string | null | 'another credential only';
	} = {},
) {
	const reads: PendingRead[] = [];
	const workflowId = options.workflowId ?? `wf-reads-${++workflows}`;
	const node = {
		name: options.nodeName ?? 'Messaging Relay Trigger',
		...(options.credentialId === null
			? {}
			: options.credentialId === 'another credential only'
				? { credentials: { httpHeaderAuth: { id: 'cred-9', name: 'y' } } }
				: {
						credentials: { messagingRelayApi: { id: options.credentialId ?? 'cred-1', name: 'x' } },
					}),
	};
	const context = {
		getNode: () => node,
		getWorkflow: () => ({ id: workflowId }),
		getCredentials: jest.fn(
			async (name: string) =>
				await new Promise<Record<string, unknown>>((resolve, reject) => {
					expect(name).toBe('messagingRelayApi');
					reads.push({
						finish: (secret) => resolve(secret === undefined ? {} : { webhookSecret: secret }),
						fail: () => reject(new Error('the database is away')),
					});
				}),
		),
	};
	return {
		context: context as unknown as IWebhookFunctions & IHookFunctions,
		reads,
		/** How many reads of the credential started. */
		started: () => context.getCredentials.mock.calls.length,
	};
}

/**
 * managedSecretFor and keepManagedSecret with their outcome caught at once: a failed read is an Error
 * here, not a rejection left unhandled while the test waits (which would end the process).
 */
const compare = async (context: IWebhookFunctions, provided: unknown): Promise<string | Error> =>
	await managedSecretFor(context, provided).catch((error: Error) => error);
/**
 * A promise's outcome by the next turn of the event loop: once the test has finished the reads an
 * answer waits for, the answer is given within the same turn (promise jobs only), so one still
 * pending then is a failure here rather than a wait for jest's time-out.
 */
const now = async <T>(pending: Promise<T>): Promise<T | Error> =>
	await Promise.race([pending, sleep(0).then(() => new Error('still waiting'))]);
const publish = async (context: IHookFunctions, state: WebhookState): Promise<void | Error> =>
	await keepManagedSecret(context, state).catch((error: Error) => error);

/** Lets every promise that can settle settle. */
const settle = async () => {
	for (let i = 0; i < 10; i++) await Promise.resolve();
};

/** A trigger published with `secret` in its credential (its first read finished). */
async function published(secret = OLD, options?: Parameters<typeof trigger>[0]) {
	const t = trigger(options);
	const state: WebhookState = {};
	const publishing = publish(t.context, state);
	t.reads[0].finish(secret);
	expect(await now(publishing)).toBeUndefined();
	return t;
}

test('publishing reads the credential once and removes the copy earlier versions kept in static data', async () => {
	const t = trigger();
	const state = { managedSecret: OLD } as WebhookState;
	const publishing = publish(t.context, state);
	expect(state).toEqual({});
	expect(t.started()).toBe(1);
	t.reads[0].finish(OLD);
	expect(await now(publishing)).toBeUndefined();
	// The first delivery compares at once, with no read of its own.
	expect(await now(compare(t.context, OLD))).toBe(OLD);
	expect(t.started()).toBe(1);
});

test('within the bound, the right secret is compared with memory; from the bound on, with a new read', async () => {
	clock = T0;
	const t = await published();
	clock = T0 + managedSecretPolicy.rereadAfterMs - 1;
	expect(await now(compare(t.context, OLD))).toBe(OLD);
	expect(t.started()).toBe(1);

	clock = T0 + managedSecretPolicy.rereadAfterMs;
	const late = compare(t.context, OLD);
	await settle();
	expect(t.started()).toBe(2);
	t.reads[1].finish(NEW);
	// Edited meanwhile: the old secret is compared with what the credential holds now.
	expect(await now(late)).toBe(NEW);
	// The bound counts from when that read started.
	clock = T0 + 2 * managedSecretPolicy.rereadAfterMs - 1;
	expect(await now(compare(t.context, NEW))).toBe(NEW);
	expect(t.started()).toBe(2);
});

test('a secret that does not match is compared with a read that started after it arrived; the new one is then kept', async () => {
	clock = T0;
	const t = await published();
	const wrong = compare(t.context, NEW);
	await settle();
	expect(t.started()).toBe(2);
	t.reads[1].finish(NEW);
	expect(await now(wrong)).toBe(NEW);
	// Now the new one matches from memory, and the old one reads again (and is refused by the caller).
	expect(await now(compare(t.context, NEW))).toBe(NEW);
	expect(t.started()).toBe(2);
	const old = compare(t.context, OLD);
	await settle();
	expect(t.started()).toBe(3);
	t.reads[2].finish(NEW);
	expect(await now(old)).toBe(NEW);
});

test('a missing header or an empty credential never matches from memory', async () => {
	const t = await published('');
	const none = compare(t.context, undefined);
	await settle();
	expect(t.started()).toBe(2);
	t.reads[1].finish(undefined);
	expect(await now(none)).toBe('');
	const empty = compare(t.context, '');
	await settle();
	expect(t.started()).toBe(3);
	t.reads[2].finish('');
	expect(await now(empty)).toBe('');
});

test('a burst of wrong secrets while a read runs: all wait for one read that started after them, shared', async () => {
	const t = await published();
	const first = compare(t.context, 'whsec_wrong_1');
	await settle();
	expect(t.started()).toBe(2);
	// These arrive after read 2 started: the secret may have changed since, so they wait for read 3.
	const burst = ['whsec_wrong_2', 'whsec_wrong_3', 'whsec_wrong_4'].map((s) =>
		compare(t.context, s),
	);
	await settle();
	expect(t.started()).toBe(2);
	t.reads[1].finish(OLD);
	expect(await now(first)).toBe(OLD);
	await settle();
	expect(t.started()).toBe(3);
	t.reads[2].finish(NEW);
	expect(await now(Promise.all(burst))).toEqual([NEW, NEW, NEW]);
	// Nothing is left running or queued: the next wrong one starts a read at once.
	const next = compare(t.context, 'whsec_wrong_5');
	expect(t.started()).toBe(4);
	t.reads[3].finish(NEW);
	expect(await now(next)).toBe(NEW);
});

test('a read that fails: the callers that waited for it get its error, those queued behind it a read of their own', async () => {
	const t = await published();
	const first = compare(t.context, 'whsec_wrong_1');
	await settle();
	const second = compare(t.context, 'whsec_wrong_2');
	await settle();
	t.reads[1].fail();
	expect(await now(first)).toEqual(new Error('the database is away'));
	await settle();
	expect(t.started()).toBe(3);
	t.reads[2].finish(NEW);
	expect(await now(second)).toBe(NEW);
	// And a failed read changes nothing of what is known: the new secret still matches from memory.
	expect(await now(compare(t.context, NEW))).toBe(NEW);
	expect(t.started()).toBe(3);
});

test("a publish while a delivery's read runs reads once more, after it: one read at a time per trigger", async () => {
	const t = await published();
	const wrong = compare(t.context, NEW);
	await settle();
	expect(t.started()).toBe(2);
	const republish = publish(t.context, {});
	await settle();
	expect(t.started()).toBe(2);
	t.reads[1].finish(OLD);
	expect(await now(wrong)).toBe(OLD);
	await settle();
	expect(t.started()).toBe(3);
	t.reads[2].finish(NEW);
	expect(await now(republish)).toBeUndefined();
	expect(await now(compare(t.context, NEW))).toBe(NEW);
	expect(t.started()).toBe(3);
});

test('each trigger keeps its own secret: by workflow, by node, by credential', async () => {
	const a = await published(OLD, { workflowId: 'wf-keyed', nodeName: 'A', credentialId: 'c1' });
	const others = [
		trigger({ workflowId: 'wf-keyed-2', nodeName: 'A', credentialId: 'c1' }),
		trigger({ workflowId: 'wf-keyed', nodeName: 'B', credentialId: 'c1' }),
		trigger({ workflowId: 'wf-keyed', nodeName: 'A', credentialId: 'c2' }),
		trigger({ workflowId: 'wf-keyed', nodeName: 'A', credentialId: null }),
		trigger({ workflowId: 'wf-keyed', nodeName: 'A', credentialId: 'another credential only' }),
	];
	for (const other of others) {
		const compared = compare(other.context, OLD);
		await settle();
		expect(other.started()).toBe(1);
		other.reads[0].finish(NEW);
		expect(await now(compared)).toBe(NEW);
	}
	expect(await now(compare(a.context, OLD))).toBe(OLD);
	expect(a.started()).toBe(1);
	// The same trigger seen again (another request's context) shares what was read.
	const again = trigger({ workflowId: 'wf-keyed', nodeName: 'A', credentialId: 'c1' });
	expect(await now(compare(again.context, OLD))).toBe(OLD);
	expect(again.started()).toBe(0);
});

test('a workflow without an id (not saved yet) is keyed as such, apart from one with an id', async () => {
	const unsaved = trigger({ workflowId: '' });
	(unsaved.context as unknown as { getWorkflow: () => object }).getWorkflow = () => ({});
	const p = compare(unsaved.context, OLD);
	await settle();
	unsaved.reads[0].finish(OLD);
	expect(await now(p)).toBe(OLD);
	const alsoUnsaved = trigger({ workflowId: '' });
	expect(await now(compare(alsoUnsaved.context, OLD))).toBe(OLD);
	expect(alsoUnsaved.started()).toBe(0);
});
