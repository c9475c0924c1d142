/**
 * Values that the trigger's description (its parameters) and its logic both need. They live here
 * so that the description imports no logic.
 */

/** The "All Events" choice of the Events parameter. */
export const ALL_EVENTS = '*';

/** The largest "Combine Messages Within (Seconds)" (burstMerge.ts). */
export const MAX_QUIET_SECONDS = 30;

/** "Check Registration Every" when the user has not set it (registrationRepair.ts). */
export const DEFAULT_REPAIR_INTERVAL = '5m';
