/**
 * "Acknowledge Events: When the Workflow Finishes" (acknowledgement.ts): n8n answers a run that ended
 * in an error with 500 "Error in workflow" (webhook-helpers.js:747-758); the trigger turns that one
 * answer into a 200, and leaves every other failure a 5xx so the service delivers the event again.
 * Over real HTTP, with the response written the way n8n's request handler writes it (status, then json).
 * The real n8n's answers are in test/e2e/hardKill.e2e.ts.
 */
import { countFailedRunAsTaken } from '../../../nodes/MessagingRelayTrigger/acknowledgement';
import { startWebhookReceiver, type WebhookReceiver } from '../../fixtures/webhook-receiver';

let receiver: WebhookReceiver;
let answer: { status: number; body: unknown };
let rewrite = true;

beforeAll(async () => {
	receiver = await startWebhookReceiver(async (_path, _request, response) => {
		if (rewrite) countFailedRunAsTaken(response);
		response.status(answer.status);
		response.json(answer.body);
		return { noWebhookResponse: true };
	});
});
afterAll(async () => await receiver.stop());

async function post() {
	const res = await fetch(`${receiver.baseUrl}/webhook/x`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
	return { status: res.status, body: await res.json() };
}

test('a run that ended in an error is answered 200: it ran, and is not run again at a redelivery', async () => {
	rewrite = true;
	answer = { status: 500, body: { message: 'Error in workflow' } };
	expect(await post()).toEqual({ status: 200, body: { received: true, execution: 'ended with an error' } });
	rewrite = false;
	expect((await post()).status).toBe(500);
});

test('a run that could not start or was cancelled stays a 5xx, so the service delivers the event again', async () => {
	rewrite = true;
	answer = { status: 500, body: { code: 0, message: 'There was a problem executing the workflow' } };
	expect((await post()).status).toBe(500);
	answer = { status: 503, body: { message: 'Error in workflow' } };
	expect((await post()).status).toBe(503);
});

test('a success is left as it is', async () => {
	rewrite = true;
	answer = { status: 200, body: { message: 'Workflow executed successfully but the last node did not return any data' } };
	expect(await post()).toEqual({ status: 200, body: answer.body });
});
