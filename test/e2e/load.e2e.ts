import { info, n8n, readN8nLog, rest, sessionCookie } from '../support/e2e';

/**
 * The node and credential type lists the editor loads (they need a session). Through the client's
 * `request`: as this file's first request to n8n it may get a keep-alive socket an earlier file in
 * the same jest worker left idle, which n8n closes after 5 s ("other side closed", CI 2026-11-26);
 * `request` sends such a GET again.
 */
async function typesFile(name: string) {
	const { status, body } = await n8n.request('GET', `/types/${name}`, {
		cookie: await sessionCookie(),
		'browser-id': n8n.browserId,
	});
	expect(status).toBe(200);
	return body as unknown;
}

describe('the package loads in the real n8n', () => {
	test('the three node types and the credential type are known under the package name', async () => {
		const nodes = (await typesFile('nodes.json')) as Array<{
			name: string;
			version: number | number[];
			defaultVersion?: number;
		}>;
		// The trigger is a versioned node type: n8n lists a description per version set
		// (n8n-core nodes-loader/directory-loader.js:179-182, 239-250).
		const trigger = nodes.filter(
			(n) => n.name === 'n8n-nodes-messaging-relay.messagingRelayTrigger',
		);
		expect(trigger).toHaveLength(2);
		expect(trigger.map((n) => [n.version, n.defaultVersion])).toEqual(
			expect.arrayContaining([
				[3, 3],
				[[1, 2], 3],
			]),
		);
		const ours = [
			...new Set(
				nodes.map((n) => n.name).filter((name) => name.startsWith('n8n-nodes-messaging-relay.')),
			),
		];
		// n8n adds the Tool variant itself because the action node is usableAsTool, and the
		// human-in-the-loop tool variant because it has a `sendAndWait` operation and a webhook
		// (n8n/dist/tool-generation/hitl-tools.js:8-28): the AI Agent's "Human in the Loop" tools.
		// n8n 1.x generates no human-in-the-loop tools (1.123.81 has no tool-generation/hitl-tools.js).
		const hitl =
			Number(info.n8nVersion.split('.')[0]) >= 2
				? ['n8n-nodes-messaging-relay.messagingRelayHitlTool']
				: [];
		expect(ours.sort()).toEqual([
			'n8n-nodes-messaging-relay.messagingRelay',
			...hitl,
			'n8n-nodes-messaging-relay.messagingRelayTool',
			'n8n-nodes-messaging-relay.messagingRelayTrigger',
			'n8n-nodes-messaging-relay.messagingRelayWatch',
		]);
		const credentials = (await typesFile('credentials.json')) as Array<{ name: string }>;
		expect(credentials.map((c) => c.name)).toContain('messagingRelayApi');
	});

	test("no package load error in n8n's log", () => {
		const log = readN8nLog();
		expect(log).not.toMatch(/Failed to load package/i);
		expect(log).not.toMatch(/n8n-nodes-messaging-relay.*(error|failed)/i);
	});

	test('the example workflows were published', async () => {
		const { body } = await rest('GET', `/workflows/${info.workflows.autoReply.id}`);
		expect((body.data as { active: boolean }).active).toBe(true);
	});

	test('the suites continue the session opened at setup instead of logging in (n8n refuses a sixth login a minute)', async () => {
		expect(info.session?.cookie).toBeTruthy();
		await typesFile('credentials.json');
		expect((await rest('GET', '/settings')).status).toBe(200);
		expect(n8n.logins).toBe(0);
	});
});
