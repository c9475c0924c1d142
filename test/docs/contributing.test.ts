/**
 * CONTRIBUTING.md lists the relay simulator's API keys (which account, which case): a key added to
 * the simulator for a new suite must be named there too.
 */
import { defaultKeys } from '../simulator/accounts';
import { readText } from '../support/repo';

test('CONTRIBUTING.md names every API key the simulator serves (the benchmark\'s as sim-key-bench*)', () => {
	const contributing = readText('CONTRIBUTING.md');
	const named = (key: string) => contributing.includes(`\`${key}\``) || (key.startsWith('sim-key-bench') && contributing.includes('`sim-key-bench*`'));
	expect(Object.keys(defaultKeys()).filter((key) => !named(key))).toEqual([]);
});
