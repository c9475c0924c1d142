/**
 * The end-to-end suites' view of the stack their globalSetup started (test/e2e/globalSetup.ts):
 * its addresses and keys, and the support's clients bound to it, under the short names the
 * suites use (api, rest, sim, eventually, ...).
 */
import type { IDataObject } from 'n8n-workflow';

import { receivedIn } from '../fixtures/events';
import { deliverWithRetries } from '../fixtures/retrying-sender';
import type { RecordedRequest } from '../simulator';
import * as executionList from './executions';
import type { Execution } from './executions';
import { N8nClient } from './n8nClient';
import { SimClient } from './simClient';
import * as stackFile from './stack/stackFile';
import { waitUntil } from './waitUntil';
import * as workflows from './workflows';

export type { Execution } from './executions';
export { nodeItems } from './executions';
export { report } from './report';

/** What the e2e globalSetup always starts: the simulator, the balancer, an artifacts folder. */
export type E2eStackInfo = stackFile.StackInfo &
	Required<Pick<stackFile.StackInfo, 'simUrl' | 'balancerUrl' | 'artifacts'>>;

/** The stack as its file says now (a restart changes n8n's pid). */
export const stackInfo = () => stackFile.readStackFile(stackFile.stackFilePath()) as E2eStackInfo;

export const info = stackInfo();

/**
 * The suites' n8n client. It continues the owner's session opened at setup rather than logging
 * in once per suite file: n8n refuses a sixth login within a minute (N8nClient.session).
 */
export const n8n = new N8nClient(info.n8nUrl, {
	apiKey: info.apiKey,
	owner: info.owner,
	browserId: 'e2e',
	session: info.session,
});
/** The suites' client of the simulator process (deliver through it: test/support/deliver.ts). */
export const simulator = new SimClient(info.simUrl);

export const api = (method: string, path: string, body?: unknown) => n8n.api(method, path, body);
export const rest = (method: string, path: string, body?: unknown) => n8n.rest(method, path, body);
export const sessionCookie = () => n8n.sessionCookie();

/** A simulator control route (/__sim + path); its answer's body, whatever the status. */
export const sim = async (method: string, path: string, body?: unknown) =>
	(await simulator.call<IDataObject>(method, path, body)).body;

/** The account's webhook as the service has it registered now (its URL and secret), or null. */
export const currentWebhook = async (account: string) =>
	(await simulator.webhooks())[account] ?? null;

export type SimRequest = Omit<RecordedRequest, 'body'> & { body: IDataObject };
export const simRequests = async (since: number) =>
	(await simulator.requests(since)) as SimRequest[];

/** The texts `account` sent to `chat` since `since` (the simulator's record of POST /v1/messages). */
export const sentTo = async (account: string, chat: string, since: number): Promise<string[]> =>
	(await simRequests(since))
		.filter(
			(r) =>
				r.method === 'POST' &&
				r.path === '/v1/messages' &&
				r.account === account &&
				r.body.to === chat,
		)
		.map((r) => String(r.body.text));

/**
 * A contact writes `text` in `chat`, as the service delivers it to the account's registered webhook:
 * again on anything but a 2xx, for up to `deadlineMs`.
 */
export async function contactWrites(
	account: string,
	chat: string,
	text: string,
	deadlineMs = 60_000,
) {
	const webhook = await currentWebhook(account);
	if (!webhook) throw new Error(`no webhook on ${account}`);
	return await deliverWithRetries(
		webhook.url,
		JSON.stringify(receivedIn(chat, { text })),
		webhook.secret,
		{ deadlineMs },
	);
}

/** Polls until `check` holds, for at most `timeoutMs`; its value. */
export const eventually = <T>(check: () => Promise<T | undefined | false>, timeoutMs = 60_000) =>
	waitUntil('the condition', check, { timeoutMs, intervalMs: 200 });

/**
 * The executions n8n 1.x's public API leaves out: it hides every execution n8n keeps among its
 * active ones (1.123.81: public-api/v1/handlers/executions/executions.handler.js:76-85), and
 * n8n 1.123 keeps a waiting execution there (active-executions.js:89-95). The editor's REST list
 * names them; the public API gives each by id, with its data.
 */
async function waitingOn1x(workflowId: string): Promise<Execution[]> {
	if (Number(info.n8nVersion.split('.')[0]) >= 2) return [];
	const filter = encodeURIComponent(JSON.stringify({ workflowId, status: ['waiting'] }));
	const { body } = await n8n.rest('GET', `/executions?filter=${filter}`);
	const ids = (
		((body.data as IDataObject | undefined)?.results as IDataObject[] | undefined) ?? []
	).map((e) => e.id as string);
	return await Promise.all(
		ids.map(
			async (id) =>
				(await n8n.api('GET', `/executions/${id}?includeData=true`)) as unknown as Execution,
		),
	);
}

/** The newest 250 finished executions of a workflow (waiting ones included), with their data, newest first. */
export const executions = async (workflowId: string) => {
	const listed = (await executionList.executionsPage(n8n, { workflowId, includeData: true })).data;
	const waiting = (await waitingOn1x(workflowId)).filter(
		(w) => !listed.some((e) => String(e.id) === String(w.id)),
	);
	return [...listed, ...waiting].sort((a, b) => Number(b.id) - Number(a.id));
};
/** Every finished execution of a workflow, with its data, page after page. */
export const allExecutions = (workflowId: string) =>
	executionList.allExecutions(n8n, { workflowId, includeData: true });
/** The workflow's running executions (the public API lists them only when asked for by status). */
export const runningExecutions = async (workflowId: string) =>
	(await executionList.executionsPage(n8n, { workflowId, status: 'running' })).data;
/**
 * Waits until none of the workflows has a running execution and two reads of their executions, a
 * second apart, list the same ones: every run has ended and n8n has saved it. The positive signal to
 * count runs on, in place of a fixed sleep (issue 42).
 */
export async function executionsSettled(workflowIds: string[], timeoutMs = 60_000): Promise<void> {
	let previous: string | undefined;
	await waitUntil(
		'the executions of the workflows to settle',
		async () => {
			const running = (await Promise.all(workflowIds.map(runningExecutions))).flat();
			const listed = await Promise.all(
				workflowIds.map((workflowId) => executionList.allExecutions(n8n, { workflowId })),
			);
			const now = listed
				.flat()
				.map((e) => `${e.id}:${e.status}`)
				.sort()
				.join(',');
			const settled = running.length === 0 && now === previous;
			previous = now;
			return settled;
		},
		{ timeoutMs, intervalMs: 1_000 },
	);
}

/** Waits until the service has had `count` more `GET /v1/webhook` of the account (registration checks) after `since`. */
export const checksSince = (account: string, since: number, count: number, timeoutMs = 30_000) =>
	waitUntil(
		`${count} registration checks of ${account}`,
		async () =>
			(await simRequests(since)).filter(
				(r) => r.account === account && r.method === 'GET' && r.path === '/v1/webhook',
			).length >= count,
		{ timeoutMs, intervalMs: 250 },
	);
export const finishedExecutions = (workflowId: string, count: number, timeoutMs?: number) =>
	executionList.finishedExecutions(n8n, workflowId, count, timeoutMs);

/** A Messaging Relay credential for one of the simulator's keys. */
export const relayCredential = (name: string, apiKey: string, authHeader = 'xApiKey') =>
	workflows.relayCredential(n8n, name, { baseUrl: info.simUrl, apiKey, authHeader });

export const openAiCredential = (name: string, baseUrl: string) =>
	workflows.openAiCredential(n8n, name, baseUrl);

/** Imports an example workflow with each credential placeholder pointed at the credential of that type; its id. */
export const importExample = async (
	example: workflows.WorkflowData,
	credentials: Record<string, workflows.CredentialRef>,
) => (await workflows.importExample(n8n, example, credentials)).id;

/**
 * A workflow with a Messaging Relay Trigger ("Relay Trigger") on the given key's account (a
 * credential of its own), optionally followed by a Message → Reply ("Reply"). Not yet published.
 */
export async function triggerWorkflow(
	options: Omit<Parameters<typeof workflows.triggerWorkflowData>[0], 'credential'> & {
		apiKey: string;
	},
) {
	const credential = await relayCredential(`${options.name} account`, options.apiKey);
	const workflowId = await workflows.createWorkflow(
		n8n,
		workflows.triggerWorkflowData({ ...options, credential }),
	);
	return { workflowId, credential };
}

/** A registered URL as the public address reaches it: through the balancer in front of n8n (as the service does). */
export function viaBalancer(url: string): string {
	const target = new URL(url);
	target.host = new URL(info.balancerUrl).host;
	return target.toString();
}

/** The production webhook URL n8n gives a trigger node. */
export const productionUrl = (webhookId: string) => workflows.productionUrl(info.n8nUrl, webhookId);
/**
 * What a lone trigger registers: its production URL marked as a shared registration, with the stamp
 * that makes each registration's URL its own (docs/shared-webhook.md). A matcher (for toEqual, or
 * its asymmetricMatch): the stamp is new at every registration.
 */
export const registeredUrl = (webhookId: string) => {
	const exact = `${productionUrl(webhookId)}?relay-share=v1`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
	return expect.stringMatching(new RegExp(`^${exact}&reg=[0-9a-f]{12}$`)) as {
		asymmetricMatch(other: unknown): boolean;
	};
};

export const readN8nLog = () => stackFile.readN8nLog(stackInfo());
export const runN8nCli = (args: string[], extraEnv?: Record<string, string>) =>
	stackFile.runN8nCli(stackInfo(), args, extraEnv);
export const n8nMemoryMb = () => stackFile.n8nMemoryMb(stackInfo());
export const restartN8n = (options?: Parameters<typeof stackFile.restartN8n>[1]) =>
	stackFile.restartN8n(stackFile.stackFilePath(), options);
