/**
 * The unit suites shorten the transport's backoff so that retried faults take milliseconds;
 * the rules (what is retried, how often, the bounds) stay as shipped. test/faults.test.ts
 * checks the shipped numbers themselves.
 */
import { retryPolicy } from '../../../nodes/shared/retry';

retryPolicy.baseDelayMs = 5;
retryPolicy.timeoutMs = 1500;
