import { signedWaitParams } from '../protocol/waitingRunUrl';

/**
 * A wait's resume path as kept in the packed table (waitingRuns.ts). n8n's signed resume path of a Send and Wait
 * run, `<prefix>/<execution id>/<node id>?<the wait's own fields>&signature=<64 hex>` (n8n-core's `getSignedResumeUrl`,
 * `buildResumeUrlSuffix`), 230 bytes, mostly repeats the row: it is kept as `~<prefix>~<node id>~<signature>` (the
 * default prefix empty, a UUID node id, the signature in base64url) when rebuilding it from the row gives it back
 * byte for byte, otherwise whole (docs/design/account-state.md, "What the nodes keep now: the AccountTable").
 */

/** The fields of a wait the path is rebuilt from. */
export interface PathFields {
	chat: string;
	channelId: string;
	since: number;
	until: number;
	passOn?: boolean;
}

const DEFAULT_PREFIX = '/webhook-waiting';
const PACKED = '~';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SIGNATURE = /^[0-9a-f]{64}$/;

export function packResumePath(
	executionId: string,
	resumePath: string,
	fields: PathFields,
): string {
	const match = /^(\/[^?~]*)\/([^/?~]+)\?[^~]*&signature=([0-9a-f]{64})$/.exec(resumePath);
	if (!match) return resumePath;
	const [, pathBeforeNode, node, signature] = match;
	const suffix = `/${executionId}`;
	if (!pathBeforeNode.endsWith(suffix)) return resumePath;
	const prefix = pathBeforeNode.slice(0, -suffix.length);
	const packed = [
		PACKED + (prefix === DEFAULT_PREFIX ? '' : prefix),
		packNode(node),
		Buffer.from(signature, 'hex').toString('base64url'),
	].join(PACKED);
	return unpackResumePath(executionId, packed, fields) === resumePath ? packed : resumePath;
}

export function unpackResumePath(executionId: string, stored: string, fields: PathFields): string {
	if (!stored.startsWith(PACKED)) return stored;
	const [prefix, node, signature] = stored.slice(1).split(PACKED);
	if (node === undefined || signature === undefined) return stored;
	const query = new URLSearchParams(signedWaitParams(fields)).toString();
	return `${prefix || DEFAULT_PREFIX}/${executionId}/${unpackNode(node)}?${query}&signature=${Buffer.from(signature, 'base64url').toString('hex')}`;
}

/** A UUID node id as 22 base64url characters after "*"; any other node id as it is. */
function packNode(node: string): string {
	return UUID.test(node)
		? `*${Buffer.from(node.replace(/-/g, ''), 'hex').toString('base64url')}`
		: node;
}

function unpackNode(node: string): string {
	if (!node.startsWith('*')) return node;
	const hex = Buffer.from(node.slice(1), 'base64url').toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** For tests: whether a stored path is the packed form. */
export const isPacked = (stored: string) =>
	stored.startsWith(PACKED) &&
	SIGNATURE.test(Buffer.from(stored.split(PACKED).pop() ?? '', 'base64url').toString('hex'));
