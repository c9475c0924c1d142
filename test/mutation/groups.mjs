/**
 * The one list of the files StrykerJS mutates (issues 33 and 42: the code where the state, routing,
 * secrets and the judges' rules live), in groups, each with the fast unit tests that call its
 * functions directly; test/mutation/report.json holds each file's measured score
 * (scripts/mutationGate.cjs). Only those tests run against a group's
 * mutants: the harness suites (real HTTP over loopback to the simulator) wait out their time-outs
 * when a mutant breaks a check, 17 minutes for serviceSecret.ts's first 47 mutants (2026-11-26).
 * Read by stryker.config.mjs and scripts/mutation.mjs.
 */
export const groups = {
	secrets: {
		mutate: [
			'nodes/shared/serviceSecret.ts',
			'nodes/shared/sharing/managedSecret.ts',
			'nodes/shared/sharing/whoIsCalling.ts',
			'nodes/shared/sharing/authenticateHandoff.ts',
			'nodes/shared/sharedWebhook/signedHandoff.ts',
		],
		tests: [
			'test/nodes/shared/serviceSecretCheck.test.ts',
			'test/nodes/MessagingRelay/waitingHolder.test.ts',
			'test/nodes/shared/sharing/managedSecretReads.test.ts',
			'test/nodes/shared/sharing/whoIsCalling.test.ts',
			'test/nodes/shared/sharedWebhook/handoffSignatures.test.ts',
			// Every slot of process memory is named, documented and says what it holds.
			'test/nodes/shared/processMemory.test.ts',
		],
	},
	ledgers: {
		mutate: [
			'nodes/shared/sharing/deliveryLedger.ts',
			'nodes/shared/sendAndWait/waitingRuns.ts',
			'nodes/shared/sendAndWait/replyRouting.ts',
			'nodes/shared/sharing/memberHealth.ts',
			'nodes/MessagingRelayTrigger/chatPause.ts',
			'nodes/shared/sendAndWait/resumePathPacking.ts',
		],
		tests: [
			'test/nodes/shared/sharing/deliveryLedger.test.ts',
			'test/nodes/shared/sendAndWait/waitingRuns.test.ts',
			'test/nodes/shared/sendAndWait/waitRecord.test.ts',
			'test/nodes/shared/sendAndWait/replyOffers.test.ts',
			'test/nodes/shared/sharing/memberHealth.test.ts',
			'test/nodes/MessagingRelayTrigger/chatPauseRules.test.ts',
			'test/nodes/shared/sharedWebhook/mergeLaws.test.ts',
			'test/nodes/shared/sharedWebhook/accountState.test.ts',
			'test/nodes/shared/sharedWebhook/endedStaysEnded.test.ts',
			'test/nodes/shared/sendAndWait/resumePathPacking.test.ts',
			'test/nodes/shared/sharing/forgottenOnLeave.test.ts',
		],
	},
	// The account tables: their oracle is the model of the account state (each process a module
	// instance of its own), which the mutation jest config runs 3 walks per process count, on one seed.
	tables: {
		mutate: ['nodes/shared/sharedWebhook/accountTable.ts'],
		tests: [
			'test/nodes/shared/sharedWebhook/accountStateModel.test.ts',
			'test/nodes/shared/sharedWebhook/accountTable.test.ts',
			'test/nodes/shared/sharedWebhook/accountTableEdges.test.ts',
			'test/nodes/shared/sharedWebhook/accountState.test.ts',
			'test/nodes/shared/sharedWebhook/endedStaysEnded.test.ts',
			'test/nodes/shared/sharedWebhook/mergeLaws.test.ts',
			'test/nodes/shared/sendAndWait/waitingRuns.test.ts',
			'test/nodes/shared/sendAndWait/waitRecord.test.ts',
			'test/nodes/shared/sendAndWait/replyOffers.test.ts',
			'test/nodes/MessagingRelayTrigger/chatPauseRules.test.ts',
		],
	},
	protocol: {
		mutate: [
			'nodes/shared/protocol/handoffs.ts',
			'nodes/shared/protocol/missed.ts',
			'nodes/shared/protocol/resume.ts',
		],
		tests: [
			'test/nodes/shared/protocol/handoffAnswers.test.ts',
			'test/nodes/shared/sharing/memberHealth.test.ts',
			'test/nodes/MessagingRelay/askedTwice.test.ts',
		],
	},
	judges: {
		mutate: [
			'test/support/judges/hardKillRules.ts',
			'test/support/judges/hardKillJudge.ts',
			'test/support/judges/workerShutdownRace.ts',
		],
		tests: [
			'test/judges/hardKillRules.test.ts',
			'test/judges/hardKillJudge.test.ts',
			'test/judges/hardKillEdges.test.ts',
			'test/judges/takenAsItDied.test.ts',
			'test/judges/workerShutdownRace.test.ts',
			'test/judges/workerShutdownLines.test.ts',
		],
	},
};

/** Every mutated file, in group order. */
export const allFiles = Object.values(groups).flatMap((g) => g.mutate);

/** The group a file belongs to, or undefined. */
export function groupOf(file) {
	return Object.keys(groups).find((name) => groups[name].mutate.includes(file));
}

/**
 * The folders where every source file is guarded above or exempted here with why: a new file there
 * is one or the other, or the gate refuses the tree (scripts/mutationGate.cjs, `unlisted`).
 */
export const watchedFolders = [
	'nodes/shared/protocol',
	'nodes/shared/sendAndWait',
	'nodes/shared/sharedWebhook',
	'nodes/shared/sharing',
	'test/support/judges',
];

/** Why each file of the watched folders that is not mutated is left out. */
const HARNESS =
	'talks HTTP or wires modules together: what it does is shown by the harness suites over loopback, whose mutants each wait out time-outs (seconds to a minute), which no run of this gate has room for';
export const exempt = {
	'nodes/shared/protocol/pauseCommand.ts': 'zod schema of the pause hand-off: no logic of its own',
	'nodes/shared/protocol/wait.ts': 'zod schemas of the wait hand-off: no logic of its own',
	'nodes/shared/protocol/waitingRunUrl.ts': HARNESS,
	'nodes/shared/protocol/acknowledge.ts': 'the two values of a setting: no logic of its own',
	'nodes/shared/sendAndWait/memberSync.ts': HARNESS,
	'nodes/shared/sendAndWait/waitOutbox.ts': HARNESS,
	'nodes/shared/sharedWebhook/accountKey.ts': HARNESS,
	'nodes/shared/sharedWebhook/peerClient.ts': HARNESS,
	'nodes/shared/sharedWebhook/registeredUrl.ts': HARNESS,
	'nodes/shared/sharedWebhook/registration.ts': HARNESS,
	'nodes/shared/sharedWebhook/registrationCheck.ts': HARNESS,
	'nodes/shared/sharedWebhook/registrationFailures.ts': HARNESS,
	'nodes/shared/sharedWebhook/webhookState.ts':
		'types and zod schemas of static data: no logic of its own',
	'nodes/shared/sharing/closingGate.ts':
		"holds n8n's webhook responses while n8n stops a workflow: shown by the harness and restart suites, where a mutant waits out a shutdown",
	'nodes/shared/sharing/fanOut.ts': HARNESS,
	'nodes/shared/sharing/missedEventId.ts': HARNESS,
	'nodes/shared/sharing/missedReport.ts': HARNESS,
	'nodes/shared/sharing/ownRuns.ts': HARNESS,
	'nodes/shared/sharing/receiveHandoff.ts': HARNESS,
	'nodes/shared/sharing/receiveWaits.ts': HARNESS,
	'nodes/shared/sharing/setAsideNotice.ts': 'the text of one log line',
	'nodes/shared/sharing/shareDelivery.ts': HARNESS,
	'nodes/shared/sharing/unsavedRegistration.ts': HARNESS,
	'test/support/judges/activeJobs.ts':
		"reads BullMQ's keys from Redis for the queue suite: runs only there",
};
