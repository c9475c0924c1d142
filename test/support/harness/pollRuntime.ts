/**
 * Runs the Messaging Relay Watch node's poll() through n8n-core's PollContext, as n8n's
 * ActiveWorkflowTriggers does at each Poll Times tick, against the simulator over HTTP.
 *
 * Static data is kept the way n8n 2.41.1 keeps it: the poll works on the workflow's in-memory
 * static data, and n8n writes it to the database when the poll emits items (its __emit calls
 * saveStaticData, trigger-execution-context.factory.js:222) and after publishing
 * (active-workflow-manager.js:433). `restart()` builds the workflow again from what would be
 * in the database, as n8n does when it starts.
 */
import { PollContext } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeParameters,
	IPollFunctions,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import { MessagingRelayWatch } from '../../../nodes/MessagingRelayWatch/MessagingRelayWatch.node';
import { NODE_TYPES } from '../workflows';
import { PackageNodeTypes, additionalDataFor, packageNode } from './n8nRuntime';

export const WATCH_TYPE = NODE_TYPES.watch;

/** The n8n address additionalDataFor() gives the context (getInstanceBaseUrl). */
export const N8N_BASE = 'http://127.0.0.1:5678';

export class WatchHarness {
	readonly watch = new MessagingRelayWatch();

	readonly node: INode;

	private workflow!: Workflow;

	/** What n8n would have written to the database. */
	private saved: IDataObject = {};

	constructor(
		parameters: INodeParameters,
		private credentials: ICredentialDataDecryptedObject,
	) {
		this.node = packageNode('watch-node', 'Messaging Relay Watch', WATCH_TYPE, parameters);
		this.restart();
	}

	/** n8n starts again: the workflow comes back with the static data last saved. */
	restart() {
		this.workflow = new Workflow({
			id: 'wf-watch',
			nodes: [this.node],
			connections: {},
			active: true,
			nodeTypes: new PackageNodeTypes({ [WATCH_TYPE]: this.watch }),
			staticData: JSON.parse(JSON.stringify(this.saved)) as IDataObject,
		});
	}

	/** The node's static data as the running n8n holds it. */
	get state(): IDataObject {
		return this.workflow.getStaticData('node', this.node) as IDataObject;
	}

	private context(mode: 'trigger' | 'manual', activation: 'activate' | 'init' | 'manual') {
		return new PollContext(
			this.workflow,
			this.node,
			additionalDataFor(this.credentials),
			mode,
			activation,
		) as unknown as IPollFunctions;
	}

	private save() {
		this.saved = JSON.parse(JSON.stringify(this.workflow.staticData)) as IDataObject;
	}

	/** The first poll, run when the workflow is published; n8n saves static data after it. */
	async publish(): Promise<IDataObject[] | null> {
		const items = await this.poll('activate');
		this.save();
		return items;
	}

	/** One scheduled poll; its items, or null when it emitted nothing. */
	async poll(activation: 'activate' | 'init' = 'init'): Promise<IDataObject[] | null> {
		const result = await this.watch.poll.call(this.context('trigger', activation));
		if (result === null) return null;
		this.save();
		return result[0].map((item) => item.json);
	}

	/** "Fetch Test Event" in the editor. */
	async manual(): Promise<IDataObject[]> {
		const result = await this.watch.poll.call(this.context('manual', 'manual'));
		return (result ?? [[]])[0].map((item) => item.json);
	}
}
