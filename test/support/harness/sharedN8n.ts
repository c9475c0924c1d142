/**
 * One stand-in n8n instance hosting several workflows, each with its own Messaging Relay Trigger,
 * for the shared-webhook protocol tests. It keeps n8n 2.41.1's rules that the protocol relies on
 * (docs/shared-webhook.md, facts):
 *   - each workflow's static data lives in a "database" (a JSON string); every webhook request and
 *     every activation loads a fresh copy and saves it afterwards only if the node changed it, so
 *     two requests of one workflow at once race exactly like in n8n (last write wins); a request
 *     that starts an execution saves nothing, as in n8n;
 *   - a `webhookResponse` without workflow data is answered after the save;
 *   - a production route exists while the workflow is published (also during its create and
 *     delete); anything else gets n8n's 404;
 *   - a test listener has in-memory static data, and ends after the first request that started
 *     an execution (then n8n calls its delete).
 * Deliveries and hand-offs are real HTTP over loopback; the trigger runs in n8n-core's
 * WebhookContext and HookContext.
 */
import { HookContext, TriggerContext, WebhookContext } from 'n8n-core';
import type {
	ExecutionError,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IWebhookData,
	IWebhookFunctions,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
	ITriggerFunctions,
} from 'n8n-workflow';
import { sleep, Workflow } from 'n8n-workflow';

import { registrationCheck } from '../../../nodes/MessagingRelayTrigger/registrationRepair';
import { checkRegistration } from '../../../nodes/shared/sharedWebhook/registrationCheck';
import { startRelaySimulator, type RelaySimulator } from '../../simulator';
import {
	startWebhookReceiver,
	type ExpressLikeResponse,
	type ReceivedRequest,
	type WebhookReceiver,
} from '../../fixtures/webhook-receiver';
import type { ContextKind } from './n8n1';
import {
	PackageNodeTypes,
	TRIGGER_TYPE,
	additionalDataFor,
	packageNode,
	relayCredentials,
	triggerAt,
} from './n8nRuntime';

export interface Execution {
	mode: 'production' | 'test';
	events: IDataObject[];
	invalid: IDataObject[];
	/** The run ended in an error (runsFail). */
	failed?: boolean;
}

type Lifecycle = 'checkExists' | 'create' | 'delete';
let nextId = 1;

export class SharedWorkflow {
	readonly executions: Execution[] = [];

	/** The "database" copy of the workflow's static data. */
	db = '{}';

	published = false;

	testListening = false;

	/**
	 * Answer the next N requests to the production URL with this status instead of running; with
	 * `onlyTypes`, only requests whose event has one of these types (the others are served).
	 */
	failNext: { status: number; times: number; onlyTypes?: string[] } = { status: 500, times: 0 };

	/**
	 * The next N executions this workflow starts end in an error (a node after the trigger that
	 * fails, as one with a revoked credential does). Answering at the run's end (version 3, "When
	 * the Workflow Finishes"), n8n then answers 500 {"message":"Error in workflow"}
	 * (webhook-helpers.js:747-758); answering at its start, the answer was already sent.
	 */
	runsFail = 0;

	/**
	 * Answer the signed `missed` hand-off as a holder of the version before a missed event carried
	 * its id (memberHealth.ts before issue 26's last item): the same summary without `events`. For
	 * mixed versions during an upgrade; the rest of the holder is this version's.
	 */
	answersMissedWithoutIds = false;

	private testStaticData: IDataObject = {};

	readonly node: INode;

	/** The trigger's node type at this node's version. */
	get trigger() {
		return triggerAt(this.node.typeVersion);
	}

	constructor(
		private readonly n8n: SharedN8n,
		readonly name: string,
		parameters: INodeParameters,
		readonly apiKey: string,
		typeVersion = 1,
	) {
		this.node = packageNode(`node-${nextId}`, 'Messaging Relay Trigger', TRIGGER_TYPE, parameters, {
			typeVersion,
			webhookId: `00000000-0000-4000-8000-${String(nextId++).padStart(12, '0')}`,
			// A credential per API key: triggers on one key share its account's webhook.
			credentials: { messagingRelayApi: { id: `cred-${apiKey}`, name: apiKey } },
		});
	}

	get productionPath() {
		return `/webhook/${this.node.webhookId}/webhook`;
	}

	get testPath() {
		return `/webhook-test/${this.node.webhookId}/webhook`;
	}

	get productionUrl() {
		return `${this.n8n.baseUrl}${this.productionPath}`;
	}

	get stored(): IDataObject {
		return ((JSON.parse(this.db) as IDataObject)[`node:${this.node.name}`] ?? {}) as IDataObject;
	}

	/** Version 3 with "When the Workflow Finishes" (the default there): n8n answers at the run's end. */
	get answersAtRunEnd(): boolean {
		return this.node.typeVersion >= 3 && this.node.parameters.acknowledge !== 'whenStarted';
	}

	get failedRuns(): number {
		return this.executions.filter((e) => e.mode === 'production' && e.failed).length;
	}

	get productionEvents(): IDataObject[] {
		return this.executions.filter((e) => e.mode === 'production').flatMap((e) => e.events);
	}

	/** A Workflow as n8n builds it for one request: static data freshly loaded. */
	private load(test: boolean): Workflow {
		return new Workflow({
			id: `wf-${this.node.webhookId}`,
			nodes: [this.node],
			connections: {},
			active: true,
			nodeTypes: new PackageNodeTypes(),
			staticData: test ? this.testStaticData : (JSON.parse(this.db) as IDataObject),
		});
	}

	/**
	 * Saves to lose: each is overwritten at once by another webhook process's save of the copy it
	 * loaded before (queue mode with two webhook processes: the last save wins).
	 */
	lostSaves = 0;

	/** n8n's saveStaticData: only when the node changed it. */
	private save(workflow: Workflow, test: boolean) {
		if (test) return; // a test registration's static data is never written to the database
		const data = workflow.staticData as IDataObject & { __dataChanged?: boolean };
		if (data.__dataChanged !== true) return;
		// A save that fails (SQLite busy): n8n logs it and leaves the flag set.
		if (this.failSaves > 0) {
			this.failSaves--;
			return;
		}
		if (this.lostSaves > 0) this.lostSaves--;
		else this.db = JSON.stringify(data);
		// n8n's saveStaticData, once saveStaticDataById succeeded (a lost save succeeded too: it is
		// overwritten later by another process's).
		data.__dataChanged = false;
	}

	/** Saves that fail, as n8n's does when its SQLite writer is busy past its lock time-out. */
	failSaves = 0;

	additionalData(): IWorkflowExecuteAdditionalData {
		return additionalDataFor(
			relayCredentials(this.n8n.sim.baseUrl, this.apiKey),
			undefined,
			this.n8n.baseUrl,
		);
	}

	private webhookData(workflow: Workflow, test: boolean): IWebhookData {
		return {
			httpMethod: 'POST',
			node: this.node.name,
			path: `${this.node.webhookId}/webhook`,
			webhookDescription: this.trigger.description.webhooks![0],
			workflowId: workflow.id,
			workflowExecuteAdditionalData: this.additionalData(),
			webhookId: this.node.webhookId,
			isTest: test,
		};
	}

	private async hook(
		method: Lifecycle,
		test: boolean,
		activation: WorkflowActivateMode,
	): Promise<boolean> {
		const workflow = this.load(test);
		const context = new HookContext(
			workflow,
			this.node,
			this.additionalData(),
			test ? 'manual' : 'trigger',
			test ? 'manual' : activation,
			this.webhookData(workflow, test),
		);
		try {
			return await this.trigger.webhookMethods.default[method].call(context);
		} finally {
			this.save(workflow, test);
		}
	}

	/** One registration check as the published trigger's cron runs it (registrationRepair.ts). */
	async checkRegistration() {
		const workflow = this.load(false);
		const refuse = () => {
			throw new Error('a check neither starts nor fails executions');
		};
		const context = this.n8n.contextOf(
			new TriggerContext(
				workflow,
				this.node,
				this.additionalData(),
				'trigger',
				'activate',
				refuse,
				refuse,
				refuse,
			),
			'trigger',
		);
		return await checkRegistration.call(context as unknown as ITriggerFunctions);
	}

	/**
	 * One tick of the published trigger's registration check as its cron runs it, with n8n's
	 * emitError and saveFailedExecution recorded (registrationRepair.ts).
	 */
	async registrationCheckTick(): Promise<{ emitted: Error[]; failed: ExecutionError[] }> {
		const workflow = this.load(false);
		const emitted: Error[] = [];
		const failed: ExecutionError[] = [];
		const context = this.n8n.contextOf(
			new TriggerContext(
				workflow,
				this.node,
				this.additionalData(),
				'trigger',
				'activate',
				() => {
					throw new Error('a check never starts an execution');
				},
				(error) => emitted.push(error),
				(error) => failed.push(error),
			),
			'trigger',
		);
		await registrationCheck(context as unknown as ITriggerFunctions).check();
		return { emitted, failed };
	}

	/** Publish (or n8n's start, activation `init`): the route exists before create runs. */
	async publish(activation: WorkflowActivateMode = 'activate') {
		this.published = true;
		let activated = false;
		try {
			if (!(await this.hook('checkExists', false, activation)))
				await this.hook('create', false, activation);
			activated = true;
		} finally {
			// n8n removes the route of a workflow whose activation failed.
			this.published = activated;
		}
	}

	/** Unpublish: delete runs while the route still exists, then the route goes. */
	async unpublish() {
		try {
			await this.hook('delete', false, 'activate');
		} finally {
			this.published = false;
		}
	}

	async listenForTest() {
		this.testStaticData = JSON.parse(this.db) as IDataObject;
		this.testListening = true;
		if (!(await this.hook('checkExists', true, 'manual')))
			await this.hook('create', true, 'manual');
	}

	async stopTest() {
		if (!this.testListening) return;
		this.testListening = false;
		await this.hook('delete', true, 'manual');
	}

	/** Serves one request to this workflow's production or test URL, as n8n's webhook server does. */
	async serve(
		test: boolean,
		request: ReceivedRequest,
		response: Parameters<Parameters<typeof startWebhookReceiver>[0]>[2],
	) {
		const type = (request.body as { type?: string } | undefined)?.type ?? '';
		if (
			!test &&
			this.failNext.times > 0 &&
			(!this.failNext.onlyTypes || this.failNext.onlyTypes.includes(type))
		) {
			this.failNext.times--;
			response.status(this.failNext.status).json({ message: 'n8n is busy' });
			return undefined;
		}
		if (this.answersMissedWithoutIds && request.headers['x-relay-op'] === 'missed') {
			const json = response.json.bind(response);
			response.json = (body: unknown) => {
				const missed = (body as { missed?: Record<string, unknown> | null } | undefined)?.missed;
				if (missed) delete missed.events;
				return json(body);
			};
		}
		const workflow = this.load(test);
		const additionalData = {
			...this.additionalData(),
			httpRequest: request,
			httpResponse: response,
		} as unknown as IWorkflowExecuteAdditionalData;
		const context = this.n8n.contextOf(
			new WebhookContext(
				workflow,
				this.node,
				additionalData,
				test ? 'manual' : 'webhook',
				this.webhookData(workflow, test),
				[],
				null,
			),
			'webhook',
		);
		const result = await this.trigger.webhook.call(context as unknown as IWebhookFunctions);
		// A request that starts a run saves nothing webhook() wrote: n8n's WorkflowRunner builds a new
		// Workflow on the same static data, which clears its __dataChanged (docs/design/account-state.md).
		if (!result.workflowData) this.save(workflow, test);
		if (result.workflowData) {
			const [events = [], invalid = []] = result.workflowData as INodeExecutionData[][];
			const failed = this.runsFail > 0;
			if (failed) this.runsFail--;
			this.executions.push({
				mode: test ? 'test' : 'production',
				events: events.map((i) => i.json),
				invalid: invalid.map((i) => i.json),
				...(failed ? { failed } : {}),
			});
			if (failed && this.answersAtRunEnd && !response.headersSent)
				response.status(500).json({ message: 'Error in workflow' });
			// n8n ends a test listener once a request started an execution.
			if (test) this.n8n.track(this.stopTest());
		}
		return result;
	}
}

export class SharedN8n {
	readonly workflows: SharedWorkflow[] = [];

	private receiver!: WebhookReceiver;

	/** How a context reaches the trigger: as n8n-core builds it, or (test/support/harness/n8n1.ts) as another n8n would. */
	contextOf: <T extends object>(context: T, kind: ContextKind) => T = (context) => context;

	private background: Array<Promise<unknown>> = [];

	/** Requests served, by path, for tests that look at who was called. */
	readonly served: Array<{ path: string; handoff: string | undefined }> = [];

	private constructor(readonly sim: RelaySimulator) {}

	static async start(sim: RelaySimulator): Promise<SharedN8n> {
		const n8n = new SharedN8n(sim);
		await n8n.listen(0);
		return n8n;
	}

	get baseUrl() {
		return this.receiver.baseUrl;
	}

	/**
	 * n8n's `/webhook-waiting/` routes (Send and Wait for Reply), stood in by the test: what a
	 * waiting run answers the holder's `resume` hand-off. Unset: 404, as for a deleted run.
	 */
	waitingRoute:
		| ((path: string, request: ReceivedRequest, response: ExpressLikeResponse) => void)
		| undefined;

	private async listen(port: number) {
		this.receiver = await startWebhookReceiver(async (path, request, response) => {
			const handoff = request.headers['x-relay-op'] as string | undefined;
			this.served.push({ path, handoff });
			if (path.startsWith('/webhook-waiting/')) {
				if (this.waitingRoute) this.waitingRoute(path, request, response);
				else response.status(404).json({ code: 404, message: 'The execution does not exist.' });
				return { noWebhookResponse: true };
			}
			const workflow = this.workflows.find((w) => path === w.productionPath || path === w.testPath);
			const test = workflow !== undefined && path === workflow.testPath;
			if (!workflow || (test ? !workflow.testListening : !workflow.published)) {
				response
					.status(404)
					.json({ code: 404, message: 'The requested webhook is not registered.' });
				return undefined;
			}
			return await workflow.serve(test, request, response);
		}, port);
	}

	/** `typeVersion` 3: n8n answers at the execution's end ("Acknowledge Events"); this stand-in answers when webhook() returns either way. */
	addWorkflow(
		name: string,
		parameters: INodeParameters,
		apiKey = 'sim-key-full',
		typeVersion = 1,
	): SharedWorkflow {
		const workflow = new SharedWorkflow(this, name, parameters, apiKey, typeVersion);
		this.workflows.push(workflow);
		return workflow;
	}

	track(promise: Promise<unknown>) {
		this.background.push(promise);
	}

	/** Waits for what n8n does after answering (a test listener ending). */
	async settled() {
		while (this.background.length) await Promise.all(this.background.splice(0));
	}

	/** n8n stops (connections refused meanwhile) and starts again, re-running activation (`init`). */
	async restart(downMs = 200) {
		const port = Number(new URL(this.baseUrl).port);
		await this.receiver.stop();
		await sleep(downMs);
		await this.listen(port);
		for (const workflow of this.workflows.filter((w) => w.published))
			await workflow.publish('init');
	}

	async stop() {
		await this.settled();
		await this.receiver.stop();
	}
}

/**
 * The set-up every shared-webhook test file uses: one simulator for the file, a fresh stand-in
 * n8n for each test (stopped after it). `use` gets both before each test.
 */
export function withSharedN8nPerTest(use: (sim: RelaySimulator, n8n: SharedN8n) => void) {
	let sim: RelaySimulator;
	let n8n: SharedN8n | undefined;
	beforeAll(async () => {
		sim = await startRelaySimulator();
	});
	afterAll(async () => await sim.stop());
	beforeEach(async () => {
		sim.reset();
		n8n = await SharedN8n.start(sim);
		use(sim, n8n);
	});
	afterEach(async () => await n8n?.stop());
}
