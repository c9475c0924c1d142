/**
 * What a trigger's 2xx means to the service (docs/shared-webhook.md, "What a 2xx means"): the values
 * of the trigger's "Acknowledge Events" (MessagingRelayTrigger/acknowledgement.ts). The holder of a
 * shared webhook answers for its members by the same rule, so the sharing code reads it too.
 */
export const ACKNOWLEDGE = { whenFinished: 'whenFinished', whenStarted: 'whenStarted' } as const;

/** One value of Acknowledge Events, carried as it is from the parameter to every decision that reads it. */
export type Acknowledge = (typeof ACKNOWLEDGE)[keyof typeof ACKNOWLEDGE];
