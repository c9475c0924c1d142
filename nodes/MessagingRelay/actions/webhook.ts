import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { deleteWebhook, readWebhook, registerWebhook } from '../../shared/webhookApi';
import { requireHttpsUrl } from '../validation';

export async function executeWebhook(
	this: IExecuteFunctions,
	operation: string,
	itemIndex: number,
): Promise<IDataObject> {
	if (operation === 'get') {
		const webhook = await readWebhook.call(this, itemIndex);
		if (!webhook) return { registered: false, url: null, active: false };
		// A GET should not carry the secret, but if a server sends it, it stays out of the item.
		const visible: IDataObject = { registered: true, ...webhook };
		delete visible.secret;
		return visible;
	}

	if (operation === 'set') {
		const url = requireHttpsUrl(
			this.getNode(),
			this.getNodeParameter('url', itemIndex),
			'URL',
			itemIndex,
		);
		const includeSecret = this.getNodeParameter('includeSecret', itemIndex, false) as boolean;
		const webhook = await registerWebhook.call(this, url, itemIndex);
		const { secret, ...visible } = webhook;
		return includeSecret
			? { registered: true, ...visible, secret }
			: { registered: true, ...visible, secretIssued: secret !== undefined };
	}

	if (operation === 'delete') {
		const deleted = await deleteWebhook.call(this, itemIndex);
		return { deleted };
	}

	throw new NodeOperationError(this.getNode(), `Unknown webhook operation "${operation}"`, {
		itemIndex,
	});
}
