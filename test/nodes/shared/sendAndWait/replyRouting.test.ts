/**
 * The holder's side of Send and Wait for Reply (replyRouting.ts) over real HTTP: the simulator
 * delivers to stand-in n8n workflows; the waiting run is stood in at n8n's `/webhook-waiting/`
 * route and answers what n8n or the waiting node would (docs/design/durability-and-conversations.md §5).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import {
	deriveShareKey,
	proofFor,
	signHandoff,
} from '../../../../nodes/shared/sharedWebhook/signedHandoff';
import {
	waitsInStaticData,
	type WaitEntry,
} from '../../../../nodes/shared/sendAndWait/waitingRuns';
import type { WebhookState } from '../../../../nodes/shared/sharedWebhook/webhookState';
import { ADA_CHAT, receivedIn } from '../../../fixtures/events';
import type { RelaySimulator } from '../../../simulator';
import type { ReceivedRequest } from '../../../fixtures/webhook-receiver';
import {
	withSharedN8nPerTest,
	type SharedN8n,
	type SharedWorkflow,
} from '../../../support/harness/sharedN8n';

let sim: RelaySimulator;
let n8n: SharedN8n;
withSharedN8nPerTest((s, n) => ([sim, n8n] = [s, n]));

const KEY = deriveShareKey('sim-key-full');
let execution = 100;

/** A published trigger workflow (the holder) and a run waiting in ADA's chat, as the node's `wait` hand-off records it. */
async function holderWithWait(
	wait: Partial<WaitEntry> = {},
): Promise<{ holder: SharedWorkflow; executionId: string }> {
	const holder = n8n.addWorkflow('assistant', { events: ['message.received'] } as INodeParameters);
	await holder.publish();
	const executionId = String(execution++);
	const entry = {
		executionId,
		resumePath: `/webhook-waiting/${executionId}/node-1?chat=${ADA_CHAT}&signature=abc`,
		chat: ADA_CHAT,
		channelId: 'num_main',
		since: Date.now(),
		until: Date.now() + 3_600_000,
		questionId: null,
		...wait,
	};
	const body = JSON.stringify(entry);
	const response = await fetch(holder.productionUrl, {
		method: 'POST',
		headers: {
			...signHandoff(KEY, 'wait', holder.productionPath, body).headers,
			'content-type': 'application/json',
		},
		body,
	});
	expect([response.status, ((await response.json()) as IDataObject).recorded]).toEqual([
		200,
		[true],
	]);
	return { holder, executionId };
}

/** The waiting node's answer: its proof of the holder's nonce, and whether it took the reply. */
function nodeAnswers(body: IDataObject) {
	const seen: ReceivedRequest[] = [];
	n8n.waitingRoute = (path, request, response) => {
		seen.push(request);
		const nonce = request.headers['x-relay-nonce'] as string;
		response.status(200).json({ proof: proofFor(KEY, nonce, path.split('?')[0]), ...body });
	};
	return seen;
}

const ran = (w: SharedWorkflow) => w.productionEvents.length;

describe("a contact's message and the runs waiting in its chat", () => {
	test('taken by the waiting run: the service gets 200 "answered", the trigger runs nothing; the resume carries the event, signed for the resume path', async () => {
		const { holder, executionId } = await holderWithWait();
		const seen = nodeAnswers({ consumed: true });
		const reply = receivedIn(ADA_CHAT, { text: '1' });
		const result = await sim.deliver(reply);
		expect([result.status, JSON.parse(result.body)]).toEqual([
			200,
			{ received: true, answered: 'a waiting run' },
		]);
		expect(ran(holder)).toBe(0);
		expect(seen).toHaveLength(1);
		expect(seen[0].url).toBe(
			`/webhook-waiting/${executionId}/node-1?chat=${ADA_CHAT}&signature=abc`,
		);
		expect(seen[0].headers['x-relay-op']).toBe('resume');
		expect(JSON.parse(seen[0].rawBody.toString('utf8'))).toEqual({
			asked: 0,
			questionId: null,
			event: reply,
		});
		// Its redelivery (the service lost the answer) is acknowledged again, not run, not resumed twice.
		n8n.waitingRoute = (_path, _request, response) =>
			void response.status(409).json({ message: 'running already' });
		expect(JSON.parse((await sim.deliver(reply)).body)).toEqual({
			received: true,
			answered: 'a waiting run',
		});
		expect(ran(holder)).toBe(0);
	});

	test('Pass the Reply On: taken by the run and run by the trigger too', async () => {
		const { holder } = await holderWithWait({ passOn: true });
		nodeAnswers({ consumed: true });
		expect((await sim.deliver(receivedIn(ADA_CHAT, { text: '1' }))).status).toBe(200);
		expect(ran(holder)).toBe(1);
	});

	const liveWaits = (w: { stored: IDataObject }) =>
		Object.values(waitsInStaticData(w.stored as WebhookState)).filter((x) => x.until > Date.now());

	test("the run is gone (404), or finished (200 without the node's proof): the wait is ended (saved) and the message, delivered again, runs as usual", async () => {
		const { holder } = await holderWithWait();
		const message = receivedIn(ADA_CHAT);
		// The offer was saved before it was made: the service is asked to deliver it again.
		expect((await sim.deliver(message)).status).toBe(503);
		expect(ran(holder)).toBe(0);
		expect((await sim.deliver(message)).status).toBe(200);
		expect(ran(holder)).toBe(1);
		// Saved as ended by the trigger's own hand-off (n8n saves nothing else of a request that starts a run).
		expect(liveWaits(holder)).toEqual([]);
		expect(Object.values(waitsInStaticData(holder.stored))).toEqual([
			expect.objectContaining({ until: expect.any(Number) }),
		]);

		const second = await holderWithWait();
		n8n.waitingRoute = (_path, _request, response) =>
			void response.status(200).json({ page: 'no action required' });
		const again = receivedIn(ADA_CHAT);
		expect((await sim.deliver(again)).status).toBe(503);
		expect((await sim.deliver(again)).status).toBe(200);
		expect(ran(second.holder)).toBe(1);
		expect(liveWaits(second.holder).map((w) => w.executionId)).not.toContain(second.executionId);
	});

	test('a run that is not waiting yet (409 within a minute of its wait): 503, and the redelivery resumes it', async () => {
		const { holder } = await holderWithWait();
		n8n.waitingRoute = (_path, _request, response) =>
			void response.status(409).json({ message: 'The execution is running already.' });
		const reply = receivedIn(ADA_CHAT, { text: '1' });
		expect((await sim.deliver(reply)).status).toBe(503);
		expect(ran(holder)).toBe(0);
		nodeAnswers({ consumed: true });
		expect(JSON.parse((await sim.deliver(reply)).body)).toEqual({
			received: true,
			answered: 'a waiting run',
		});
		expect(ran(holder)).toBe(0);
	});

	test('a 409 from an old wait means it ended: ended, and the message delivered again runs as usual', async () => {
		const { holder } = await holderWithWait({ since: Date.now() - 120_000 });
		n8n.waitingRoute = (_path, _request, response) =>
			void response.status(409).json({ message: 'The execution has finished with error.' });
		const message = receivedIn(ADA_CHAT);
		expect((await sim.deliver(message)).status).toBe(503);
		expect((await sim.deliver(message)).status).toBe(200);
		expect(ran(holder)).toBe(1);
	});

	test('n8n cannot take it now (5xx): 503, nothing runs, the wait stays', async () => {
		const { holder, executionId } = await holderWithWait();
		n8n.waitingRoute = (_path, _request, response) =>
			void response.status(500).json({ message: 'busy' });
		expect((await sim.deliver(receivedIn(ADA_CHAT))).status).toBe(503);
		expect(ran(holder)).toBe(0);
		expect(Object.values(waitsInStaticData(holder.stored)).map((w) => w.executionId)).toContain(
			executionId,
		);
	});

	test('the waiting node declines (it waits on another question): the wait ends, and the message delivered again goes to the trigger', async () => {
		const { holder } = await holderWithWait();
		nodeAnswers({ consumed: false });
		const message = receivedIn(ADA_CHAT);
		expect((await sim.deliver(message)).status).toBe(503);
		expect((await sim.deliver(message)).status).toBe(200);
		expect(ran(holder)).toBe(1);
	});
});
