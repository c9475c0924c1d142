/**
 * Runs tasks with at most `limit` in flight, while tasks that share a key (a chat) run one
 * after the other in their input order: messages to one person never overtake each other,
 * whatever the concurrency.
 *
 * `worker` resolves to false to stop starting new tasks (the node stops at the first error
 * unless "Continue On Fail" is set); tasks already in flight finish.
 */
export async function runChatOrdered<T extends { key: string }>(
	tasks: T[],
	limit: number,
	worker: (task: T) => Promise<boolean>,
): Promise<void> {
	const queues = new Map<string, T[]>();
	for (const task of tasks) {
		const queue = queues.get(task.key);
		if (queue) queue.push(task);
		else queues.set(task.key, [task]);
	}
	const busy = new Set<string>();
	let stopped = false;

	// The next task whose chat has nothing in flight, oldest chat first.
	const next = (): T | undefined => {
		for (const [key, queue] of queues) {
			if (!busy.has(key) && queue.length > 0) {
				busy.add(key);
				return queue.shift();
			}
		}
		return undefined;
	};

	await new Promise<void>((resolve, reject) => {
		let running = 0;
		const pump = () => {
			while (!stopped && running < Math.max(1, limit)) {
				const task = next();
				if (!task) break;
				running++;
				worker(task).then(
					(keepGoing) => {
						running--;
						busy.delete(task.key);
						if (!keepGoing) stopped = true;
						pump();
					},
					(error) => {
						stopped = true;
						reject(error);
					},
				);
			}
			if (running === 0) resolve();
		};
		pump();
	});
}
