/* eslint-disable @n8n/community-nodes/no-restricted-globals -- outside n8n (a test's setup): PROPERTY_SEED, set by the mutation runs */
/**
 * Under the mutation gate (test/mutation/jest.config.js) every property of fast-check runs on one seed,
 * `PROPERTY_SEED`: each mutant meets the same cases, so a measure made again kills what the last one
 * killed and a record can be repeated. A test's own `seed` still wins. The suites keep random seeds.
 */
import fc from 'fast-check';

const seed = process.env.PROPERTY_SEED;
if (seed !== undefined) fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(seed) });
