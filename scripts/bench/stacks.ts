/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test, its support or a script): n8n's rules for node code do not apply */
/**
 * One n8n with the simulator per setting, all up at once (each on its own ports), so that every
 * section can load them in alternating rounds: drift of the machine hits every setting alike.
 */
import { SimClient } from '../../test/support/simClient';
import { startStack, type Stack } from '../../test/support/stack/single';
import { relayCredential, type CredentialRef } from '../../test/support/workflows';
import { fromEnv, type Setting } from './settings';

/** The webhook id of bench workflow n: section 1 uses 1-5 and 7-11; section 5 uses 6 (section 7, retired, used 12-14). */
export const benchWebhookId = (n: number) =>
	`b3e0c1d2-0000-4000-8000-${String(n).padStart(12, '0')}`;

export interface BenchStack {
	setting: Setting;
	stack: Stack;
	simulator: SimClient;
	/** A Messaging Relay credential on a simulator account of its own, created once per name. */
	credential(name: string, apiKey: string): Promise<CredentialRef>;
}

/** Starts a stack per setting (ports BENCH_N8N_PORT 5878 and BENCH_SIM_PORT 5880, + 100 per setting), runs `work`, stops them. */
export async function withStacks<T>(
	settings: Setting[],
	work: (stacks: BenchStack[]) => Promise<T>,
): Promise<T> {
	const stacks: BenchStack[] = [];
	try {
		for (const [i, setting] of settings.entries()) {
			const stack = await startStack({
				n8nPort: fromEnv('BENCH_N8N_PORT', 5878) + 100 * i,
				simPort: fromEnv('BENCH_SIM_PORT', 5880) + 100 * i,
				examples: false,
				keepUserFolder: !!process.env.BENCH_KEEP,
				env: setting.env,
			});
			const created = new Map<string, CredentialRef>();
			stacks.push({
				setting,
				stack,
				simulator: new SimClient(stack.simUrl as string),
				credential: async (name, apiKey) => {
					if (!created.has(name))
						created.set(
							name,
							await relayCredential(stack.client, name, {
								baseUrl: stack.simUrl as string,
								apiKey,
							}),
						);
					return created.get(name) as CredentialRef;
				},
			});
		}
		return await work(stacks);
	} finally {
		for (const { stack } of stacks) await stack.stop();
	}
}
