/**
 * Runs tasks with at most `limit` in flight, while tasks that share a key (a chat) run one after the other in
 * their input order: messages to one person never overtake each other, whatever the concurrency. Of the chats
 * with nothing in flight, the one whose waiting task came first in the input goes next, so with a limit of 1
 * everything runs in input order. `worker` resolves to false to stop starting new tasks (the node stops at the
 * first error unless "Continue On Fail" is set); tasks already in flight finish.
 */
export async function runChatOrdered<T extends { key: string }>(
	tasks: T[],
	limit: number,
	worker: (task: T) => Promise<boolean>,
): Promise<void> {
	// Each chat's task positions in input order.
	const queues = new Map<string, number[]>();
	for (let position = 0; position < tasks.length; position++) {
		const key = tasks[position].key;
		const queue = queues.get(key);
		if (queue) queue.push(position);
		else queues.set(key, [position]);
	}
	// The first waiting task of every chat with nothing in flight, earliest first. A heap keeps
	// picking O(log n) for thousands of items to as many chats.
	const ready = new MinHeap();
	for (const queue of queues.values()) ready.push(queue.shift()!);
	let stopped = false;

	await new Promise<void>((resolve, reject) => {
		let running = 0;
		const pump = () => {
			while (!stopped && running < Math.max(1, limit) && ready.size > 0) {
				const task = tasks[ready.pop()];
				running++;
				worker(task).then(
					(keepGoing) => {
						running--;
						// The chat's next task may start now.
						const next = queues.get(task.key)!.shift();
						if (next !== undefined) ready.push(next);
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

/** A binary min-heap of task positions. */
class MinHeap {
	private readonly items: number[] = [];

	get size(): number {
		return this.items.length;
	}

	push(value: number): void {
		const items = this.items;
		items.push(value);
		let i = items.length - 1;
		while (i > 0) {
			const parent = (i - 1) >> 1;
			if (items[parent] <= value) break;
			items[i] = items[parent];
			i = parent;
		}
		items[i] = value;
	}

	pop(): number {
		const items = this.items;
		const top = items[0];
		const last = items.pop()!;
		if (items.length > 0) {
			let i = 0;
			for (;;) {
				const left = 2 * i + 1;
				if (left >= items.length) break;
				const child = left + 1 < items.length && items[left + 1] < items[left] ? left + 1 : left;
				if (items[child] >= last) break;
				items[i] = items[child];
				i = child;
			}
			items[i] = last;
		}
		return top;
	}
}
