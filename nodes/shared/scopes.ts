/**
 * The scope each operation needs (spec part 5). Named in every refusal, because a 403 is only
 * curable by issuing a key that carries the scope.
 */
export type RelayScope = 'messages:send' | 'numbers:read' | 'webhooks:manage';

export const CREDENTIAL_NAME = 'messagingRelayApi';
