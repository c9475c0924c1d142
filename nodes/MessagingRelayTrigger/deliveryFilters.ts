import type { IDataObject } from 'n8n-workflow';

import { channelOf } from './eventItem';

/** The trigger's "Options", as the user set them. */
export interface FilterOptions {
	channelIds?: string;
	maxAgeMinutes?: number;
	chatType?: 'all' | 'direct' | 'group';
}

/**
 * Why an event should start nothing, or undefined when it passes. Works on the raw body so the
 * same rules apply to valid, invalid and unknown events.
 */
export function skipReason(body: IDataObject, options: FilterOptions, now = Date.now()): string | undefined {
	const wanted = (options.channelIds ?? '')
		.split(',')
		.map((id) => id.trim())
		.filter(Boolean);
	if (wanted.length > 0) {
		const channel = channelOf(body);
		if (channel === undefined || !wanted.includes(channel)) return 'number not selected';
	}

	const maxAge = options.maxAgeMinutes ?? 0;
	if (maxAge > 0 && typeof body.occurredAt === 'string') {
		const occurred = Date.parse(body.occurredAt);
		if (!Number.isNaN(occurred) && now - occurred > maxAge * 60_000) return 'event too old';
	}

	const chatType = options.chatType ?? 'all';
	const message = body.message as IDataObject | undefined;
	if (chatType !== 'all' && message && typeof message === 'object') {
		const isGroup = message.group !== undefined && message.group !== null;
		if (chatType === 'group' && !isGroup) return 'not a group message';
		if (chatType === 'direct' && isGroup) return 'not a direct message';
	}
	return undefined;
}
