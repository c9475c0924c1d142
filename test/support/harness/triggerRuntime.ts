/**
 * Runs the Messaging Relay Trigger through n8n-core's HookContext (webhook lifecycle) and
 * WebhookContext (deliveries), with deliveries arriving over real HTTP: the simulator POSTs to
 * a loopback receiver that stands in for n8n's webhook server.
 */
import { HookContext, WebhookContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IWebhookData,
	IWebhookFunctions,
	IWorkflowExecuteAdditionalData,
	WorkflowActivateMode,
} from 'n8n-workflow';
import { sleep, Workflow } from 'n8n-workflow';

import type { RelaySimulator } from '../../simulator';
import { startWebhookReceiver, type WebhookReceiver } from '../../fixtures/webhook-receiver';
import {
	PackageNodeTypes,
	TRIGGER_TYPE,
	additionalDataFor,
	packageNode,
	relayCredentials,
	triggerAt,
} from './n8nRuntime';

export const WEBHOOK_ID = '6f1c2a9e-4d51-4b7a-9a33-0c2d5e7f8a10';

type LifecycleMethod = 'checkExists' | 'create' | 'delete';

export interface TriggerRun {
	path: string;
	/** Output 0 "Events", output 1 "Invalid Events". */
	events: IDataObject[];
	invalid: IDataObject[];
	/** When the execution was "started" (before the delivery is answered, as in n8n). */
	startedAt: number;
}

export class TriggerHarness {
	readonly runs: TriggerRun[] = [];

	/** When each delivery's answer was handed to its connection (the response's 'finish'), in order. */
	readonly answeredAt: number[] = [];

	/** The trigger's node type at this node's version. */
	get trigger() {
		return triggerAt(this.node.typeVersion);
	}

	/** Makes starting an execution fail, as when n8n cannot save it: the delivery then gets a 500. */
	failStarts = false;

	readonly node: INode;

	readonly workflow: Workflow;

	private receiver!: WebhookReceiver;

	private constructor(
		parameters: INodeParameters,
		private credentials: ICredentialDataDecryptedObject,
		webhookId: string,
		workflowId: string,
	) {
		this.node = packageNode('trigger-node', 'Messaging Relay Trigger', TRIGGER_TYPE, parameters, {
			webhookId,
		});
		this.workflow = new Workflow({
			id: workflowId,
			nodes: [this.node],
			connections: {},
			active: true,
			nodeTypes: new PackageNodeTypes(),
			staticData: {},
		});
	}

	static async start(
		sim: RelaySimulator,
		parameters: INodeParameters = {},
		/** workflowId: n8n gives each workflow its own (what a process keeps per trigger is keyed by it). */
		options: {
			apiKey?: string;
			webhookSecret?: string;
			webhookId?: string;
			workflowId?: string;
		} = {},
	): Promise<TriggerHarness> {
		const credentials = {
			...relayCredentials(sim.baseUrl, options.apiKey),
			webhookSecret: options.webhookSecret ?? '',
		};
		const harness = new TriggerHarness(
			parameters,
			credentials,
			options.webhookId ?? WEBHOOK_ID,
			options.workflowId ?? 'wf-trigger',
		);
		harness.receiver = await startWebhookReceiver(async (path, request, response) => {
			response.once('finish', () => harness.answeredAt.push(Date.now()));
			const isTest = path.startsWith('/webhook-test/');
			if (!path.endsWith(`/${harness.node.webhookId}/webhook`)) {
				response.status(404).json({ error: 'no such webhook' });
				return undefined;
			}
			const additionalData = {
				...harness.additionalData(),
				httpRequest: request,
				httpResponse: response,
			} as unknown as IWorkflowExecuteAdditionalData;
			const context = new WebhookContext(
				harness.workflow,
				harness.node,
				additionalData,
				isTest ? 'manual' : 'webhook',
				harness.webhookData(isTest),
				[],
				null,
			);
			const result = await harness.trigger.webhook.call(context as unknown as IWebhookFunctions);
			// n8n saves what webhook() changed, then clears the flag (this harness keeps it in memory).
			const data = harness.workflow.staticData as { __dataChanged?: boolean };
			if (!result.workflowData && data.__dataChanged === true) data.__dataChanged = false;
			if (result.workflowData) {
				if (harness.failStarts) throw new Error('the execution could not be saved');
				harness.runsStarting++;
				if (harness.runStartMs > 0) await sleep(harness.runStartMs);
				const [events = [], invalid = []] = result.workflowData as INodeExecutionData[][];
				harness.runs.push({
					path,
					events: events.map((i) => i.json),
					invalid: invalid.map((i) => i.json),
					startedAt: Date.now(),
				});
			}
			return result;
		});
		return harness;
	}

	get n8nBaseUrl() {
		return this.receiver.baseUrl;
	}

	get productionUrl() {
		return `${this.receiver.baseUrl}/webhook/${this.node.webhookId}/webhook`;
	}

	/**
	 * What a lone trigger registers: its production URL marked as shareable, and the stamp that
	 * makes each registration's URL its own (docs/shared-webhook.md). A matcher: the stamp is new
	 * at every PUT.
	 */
	get registeredUrl(): string {
		const exact = `${this.productionUrl}?relay-share=v1`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		return expect.stringMatching(new RegExp(`^${exact}&reg=[0-9a-f]{12}$`)) as string;
	}

	get testUrl() {
		return `${this.receiver.baseUrl}/webhook-test/${this.node.webhookId}/webhook`;
	}

	/** The node's static data, where the registration keeps its URL and secret. */
	get stored(): IDataObject {
		return (this.workflow.staticData[`node:${this.node.name}`] ?? {}) as IDataObject;
	}

	setParameters(parameters: INodeParameters) {
		this.node.parameters = parameters;
	}

	/** How long n8n takes to start a run webhook() returned (to save the execution) before it answers. */
	runStartMs = 0;

	/** Runs webhook() returned, counted before they start (runs: once started). */
	runsStarting = 0;

	/** How often the node read (n8n: decrypted) its credential, for tests of the delivery path. */
	credentialReads = 0;

	/** How long each read of the credential takes (n8n: a database read, a decryption and an isolate). */
	credentialReadMs = 0;

	additionalData(): IWorkflowExecuteAdditionalData {
		const data = additionalDataFor(this.credentials, undefined, this.receiver.baseUrl);
		const helper = data.credentialsHelper;
		const read = helper.getDecrypted.bind(helper);
		helper.getDecrypted = async (...args: Parameters<typeof read>) => {
			this.credentialReads++;
			if (this.credentialReadMs > 0) await sleep(this.credentialReadMs);
			return await read(...args);
		};
		return data;
	}

	/** The user edits the credential in n8n (no republish follows). */
	editCredential(data: ICredentialDataDecryptedObject) {
		Object.assign(this.credentials, data);
	}

	webhookData(isTest: boolean): IWebhookData {
		return {
			httpMethod: 'POST',
			node: this.node.name,
			path: `${this.node.webhookId}/webhook`,
			webhookDescription: this.trigger.description.webhooks![0],
			workflowId: this.workflow.id,
			workflowExecuteAdditionalData: this.additionalData(),
			webhookId: this.node.webhookId,
			isTest,
		};
	}

	/** Calls checkExists / create / delete as n8n does on publish, unpublish and test listening. */
	async lifecycle(method: LifecycleMethod, { test = false } = {}): Promise<boolean> {
		const activation: WorkflowActivateMode = test ? 'manual' : 'activate';
		const context = new HookContext(
			this.workflow,
			this.node,
			this.additionalData(),
			test ? 'manual' : 'trigger',
			activation,
			this.webhookData(test),
		);
		return await this.trigger.webhookMethods.default[method].call(context);
	}

	/** n8n's activation: create only when checkExists says the registration is missing. */
	async activate(options: { test?: boolean } = {}) {
		if (!(await this.lifecycle('checkExists', options))) await this.lifecycle('create', options);
	}

	async stop() {
		await this.receiver.stop();
	}
}
