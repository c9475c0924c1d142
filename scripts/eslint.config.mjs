/** The scripts are linted as the tests and their support are (test/eslint.config.mjs says why). */
export { default } from '../test/eslint.config.mjs';
