/**
 * The files StrykerJS mutates (issue 33: the code that guards events and secrets), in groups, each
 * with the fast unit tests that call its functions directly. Only those tests run against a group's
 * mutants: the harness suites (real HTTP over loopback to the simulator) wait out their time-outs
 * when a mutant breaks a check, 17 minutes for serviceSecret.ts's first 47 mutants (2026-11-26).
 * Read by stryker.config.mjs and scripts/mutation.mjs.
 */
export const groups = {
	secrets: {
		mutate: [
			'nodes/shared/serviceSecret.ts',
			'nodes/MessagingRelayTrigger/managedSecret.ts',
			'nodes/MessagingRelayTrigger/whoIsCalling.ts',
			'nodes/shared/sharedWebhook/signedHandoff.ts',
		],
		tests: [
			'test/nodes/shared/serviceSecretCheck.test.ts',
			'test/nodes/MessagingRelay/waitingHolder.test.ts',
			'test/nodes/MessagingRelayTrigger/managedSecretReads.test.ts',
			'test/nodes/MessagingRelayTrigger/whoIsCalling.test.ts',
			'test/nodes/shared/sharedWebhook/handoffSignatures.test.ts',
		],
	},
	ledgers: {
		mutate: [
			'nodes/MessagingRelayTrigger/sharing/deliveryLedger.ts',
			'nodes/shared/sendAndWait/waitingRuns.ts',
			'nodes/shared/sendAndWait/replyRouting.ts',
			'nodes/MessagingRelayTrigger/sharing/memberHealth.ts',
			'nodes/MessagingRelayTrigger/chatPause.ts',
		],
		tests: [
			'test/nodes/MessagingRelayTrigger/sharing/deliveryLedger.test.ts',
			'test/nodes/shared/sendAndWait/waitingRuns.test.ts',
			'test/nodes/shared/sendAndWait/waitRecord.test.ts',
			'test/nodes/shared/sendAndWait/replyOffers.test.ts',
			'test/nodes/MessagingRelayTrigger/sharing/memberHealth.test.ts',
			'test/nodes/MessagingRelayTrigger/chatPauseRules.test.ts',
			'test/nodes/shared/sharedWebhook/mergeLaws.test.ts',
		],
	},
	judges: {
		mutate: ['test/support/judges/hardKillRules.ts', 'test/support/judges/hardKillJudge.ts'],
		tests: [
			'test/judges/hardKillRules.test.ts',
			'test/judges/hardKillJudge.test.ts',
			'test/judges/hardKillEdges.test.ts',
		],
	},
};

/** Every mutated file, in group order. */
export const allFiles = Object.values(groups).flatMap((g) => g.mutate);

/** The group a file belongs to, or undefined. */
export function groupOf(file) {
	return Object.keys(groups).find((name) => groups[name].mutate.includes(file));
}
