import { NodeOperationError, sleep } from 'n8n-workflow';

import { forgetListenerMemory } from '../processMemory';
import { deleteWebhook, readWebhook } from '../webhookApi';
import { ping, sendHandoff, type ShareContext } from './peerClient';
import { conflictError, registerOrExplain } from './registrationFailures';
import {
	formatRegistration,
	lists,
	mergeMemberships,
	parseRegistration,
	registrationStamp,
	withoutPaths,
	type Membership,
	type Registration,
} from './registeredUrl';
import type { Wait } from '../protocol/wait';
import { waitFromUrl } from '../protocol/waitingRunUrl';
import { heldSecret } from '../serviceSecret';
import { forgetHolder, forgetMembership, rememberHolder, webhookState } from './webhookState';
import { rememberMembership } from './accountKey';

/**
 * Joining, leaving and taking over the account's one webhook (docs/shared-webhook.md: "Join",
 * "checkExists", "Leave"; the repair's look at it is registrationCheck.ts). Whoever PUTs the registration becomes the holder and
 * receives the secret from the service itself, so no secret ever travels between triggers.
 */

/** Who this trigger is: its own webhook URL (production or test) and the account key. */
export interface Me {
	url: string;
	key: string;
	isTest: boolean;
}

const NOBODY: Membership = { members: [], testMembers: [] };
const MAX_JOIN_ROUNDS = 5;
/** Long enough for a racing join's PUT to land before we look again. */
const CONFIRM_PAUSE_MS = 250;

const pathOf = (url: string) => new URL(url).pathname;
const originOf = (url: string) => new URL(url).origin;

/** The registration, when a trigger of this n8n (this public address) could have made it. */
function ourRegistration(url: string | undefined, me: Me): Registration | undefined {
	if (!url) return undefined;
	const registration = parseRegistration(url);
	return registration && registration.origin === originOf(me.url) ? registration : undefined;
}

/** The holder, as a member of the list the joiner will register. */
function holderAsMember(registration: Registration): Membership {
	return registration.holderTest
		? { members: [], testMembers: [registration.holderPath] }
		: { members: [registration.holderPath], testMembers: [] };
}

/**
 * Everyone the joiner must keep, from the registration it found. Throws the conflict error when
 * the registration belongs to something that is not a trigger with this API key.
 */
async function othersToKeep(
	context: ShareContext,
	me: Me,
	currentUrl: string | undefined,
	replaceExisting: boolean,
	keepWaits: KeepWaits,
): Promise<Membership> {
	if (!currentUrl) return NOBODY;
	// A Send and Wait run holds the webhook (no trigger was published): keep its wait, route its
	// answer from now on (docs/design/durability-and-conversations.md §5b).
	const heldByRun = waitFromUrl(currentUrl);
	if (heldByRun && originOf(currentUrl) === originOf(me.url)) {
		keepWaits([heldByRun]);
		return NOBODY;
	}
	const registration = ourRegistration(currentUrl, me);
	let refusal: 'foreign' | 'otherKey' = 'foreign';
	if (registration) {
		if (registration.holderPath === pathOf(me.url)) return registration;
		const answer = await ping(context, me.key, registration.holderUrl);
		if (answer.kind === 'member')
			return mergeMemberships(holderAsMember(registration), registration);
		if (registration.shared && answer.kind === 'gone') return registration;
		if (registration.shared && answer.kind === 'unavailable') {
			return mergeMemberships(holderAsMember(registration), registration);
		}
		if (answer.kind === 'stranger') refusal = 'otherKey';
	}
	if (replaceExisting) return NOBODY;
	throw conflictError(context.getNode(), currentUrl, refusal);
}

/** Drops members n8n no longer serves (404) or that do not prove the account key. Busy ones stay. */
async function withoutGone(
	context: ShareContext,
	me: Me,
	membership: Membership,
): Promise<Membership> {
	const origin = originOf(me.url);
	const paths = [...membership.members, ...membership.testMembers];
	const answers = await Promise.all(
		paths.map(async (path) => await ping(context, me.key, `${origin}${path}`)),
	);
	const dropped = paths.filter(
		(_, i) => answers[i].kind === 'gone' || answers[i].kind === 'stranger',
	);
	return withoutPaths(membership, dropped);
}

/** PUTs this trigger's URL with `membership` and keeps what the holder needs. */
async function registerAsHolder(
	context: ShareContext,
	me: Me,
	membership: Membership,
): Promise<string> {
	// Stamped, so that every process can tell this registration from the one it has saved.
	const url = formatRegistration(me.url, membership, me.isTest, registrationStamp());
	const secret = await registerOrExplain(context, url);
	const state = webhookState(context);
	rememberHolder(state, url, secret);
	rememberMembership(state, me.key, me.isTest ? undefined : me.url);
	return url;
}

/**
 * How the joiner keeps the waits it takes on as the holder (the trigger records them in its wait
 * table, sendAndWait/waitingRuns.ts): called at once, before the registration is confirmed, so that
 * their answers are routed from the moment this trigger holds the webhook.
 */
export type KeepWaits = (waits: Wait[]) => void;

/** n8n's `create`: become the holder, keeping every live member (see "Join"). */

export async function join(
	context: ShareContext,
	me: Me,
	replaceExisting: boolean,
	keepWaits: KeepWaits,
): Promise<void> {
	const ownPath = pathOf(me.url);
	for (let round = 1; round <= MAX_JOIN_ROUNDS; round++) {
		const current = await readWebhook.call(context);
		const others = await othersToKeep(context, me, current?.url, replaceExisting, keepWaits);
		const previous = ourRegistration(current?.url, me);
		const live = await withoutGone(context, me, withoutPaths(others, [ownPath]));
		await registerAsHolder(context, me, live);

		await sleep(CONFIRM_PAUSE_MS + Math.floor(Math.random() * CONFIRM_PAUSE_MS));
		const confirmed = ourRegistration((await readWebhook.call(context))?.url, me);
		if (confirmed && lists(confirmed, ownPath)) {
			// A racing join may have made us a member of its registration: then it holds the secret.
			if (confirmed.holderPath !== ownPath) forgetHolding(context);
			// Holder now, in place of another trigger: it routes the answers of the runs that wait.
			else if (previous?.shared && previous.holderPath !== ownPath)
				await takeWaitsOf(context, me, previous.holderUrl, keepWaits);
			return;
		}
		// Another trigger's PUT replaced ours without listing us: join again, now keeping it.
		replaceExisting = false;
	}
	throw new NodeOperationError(
		context.getNode(),
		"Could not join the account's webhook: other triggers kept replacing it",
		{
			description: `After ${MAX_JOIN_ROUNDS} rounds the registration still did not list this trigger. Something outside n8n may be setting the account's webhook at the same time; publish again in a moment.`,
		},
	);
}

/**
 * The live waits of the trigger this one replaced as the holder (docs/design/conversations-at-scale.md,
 * "Members"): asked with a `wait` hand-off `{ export: true }`, recorded here. Not reached (unpublished
 * meanwhile, n8n busy): what it had is routed by nobody until it is asked again at the next join.
 */
async function takeWaitsOf(context: ShareContext, me: Me, holderUrl: string, keepWaits: KeepWaits) {
	const body = JSON.stringify({ waits: [], confirm: [], ends: [], export: true });
	const answer = await sendHandoff(context, me.key, 'wait', holderUrl, body);
	const exported = (answer.kind === 'member' && answer.body?.exported) || [];
	if (exported.length > 0) keepWaits(exported);
}

/**
 * n8n's `checkExists`: true when this trigger holds the registration with the stored URL and
 * secret, or is listed as a member. Keeps the account key in either case.
 */
export async function isRegistered(context: ShareContext, me: Me): Promise<boolean> {
	const state = webhookState(context);
	rememberMembership(state, me.key, me.isTest ? undefined : me.url);
	const current = await readWebhook.call(context);
	const registration = ourRegistration(current?.url, me);
	if (!current || !registration) return false;
	// Inactive: publishing registers it again (checkRegistration's repair goes through here).
	if (current.active === false) return false;
	if (registration.holderPath === pathOf(me.url)) {
		return heldSecret(state) !== undefined && state.webhookUrl === current.url;
	}
	if (!lists(registration, pathOf(me.url))) return false;
	forgetHolding(context);
	return true;
}

/**
 * n8n's `delete`. A member does nothing (the holder's forwards to it get 404 from then on). The
 * holder asks each production member in turn to take over; when none does, it deletes the
 * registration like a lone trigger.
 */
export async function leave(context: ShareContext, me: Me): Promise<void> {
	const state = webhookState(context);
	const current = await readWebhook.call(context);
	const registration = ourRegistration(current?.url, me);
	const ownPath = pathOf(me.url);
	if (registration && registration.holderPath === ownPath) {
		const body = JSON.stringify({ leaving: ownPath });
		let handedOver = false;
		for (const path of registration.members.filter((p) => p !== ownPath)) {
			const answer = await sendHandoff(
				context,
				me.key,
				'takeover',
				`${registration.origin}${path}`,
				body,
			);
			if (answer.kind === 'member') {
				handedOver = true;
				break;
			}
		}
		if (!handedOver) await deleteWebhook.call(context);
	}
	forgetMembership(state);
	forgetListenerMemory(context, 'membership');
}

/** This node no longer holds the registration: what it kept as the holder goes, here and in memory. */
function forgetHolding(context: ShareContext) {
	forgetHolder(webhookState(context));
	forgetListenerMemory(context, 'holder');
}

/**
 * A `takeover` hand-off, run inside this member's webhook call: register as the new holder,
 * listing everyone but the leaver and those n8n no longer serves. When the registration has
 * already moved on (a join won), the new holder is somebody else and there is nothing to do.
 */
export async function takeOver(
	context: ShareContext,
	me: Me,
	leaving: string,
): Promise<'registered' | 'moved-on'> {
	const current = await readWebhook.call(context);
	const registration = ourRegistration(current?.url, me);
	if (current && (!registration || registration.holderPath !== leaving)) return 'moved-on';
	// Like a join (step 3): members unpublished meanwhile are dropped, or every delivery would
	// still be forwarded to them (a 404 each) until the next join.
	const others = registration
		? await withoutGone(context, me, withoutPaths(registration, [leaving, pathOf(me.url)]))
		: NOBODY;
	await registerAsHolder(context, me, others);
	return 'registered';
}
