/**
 * The editor as a person sees it: Debian's Chromium, driven by playwright-core, logs in, opens
 * the auto-reply workflow, checks that both nodes render with their icons, saves a screenshot.
 */
import { chromium, type BrowserContext } from 'playwright-core';

import { info } from '../support/e2e';

let browser: BrowserContext;
beforeAll(async () => {
	// A fresh profile directory, as the machine's notes require for Debian's Chromium.
	browser = await chromium.launchPersistentContext(`${info.artifacts}/chromium-profile`, {
		executablePath: '/usr/bin/chromium',
		viewport: { width: 1400, height: 900 },
		args: [
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
		],
	});
});
afterAll(async () => await browser?.close());

test('the auto-reply workflow opens with both nodes and their icons', async () => {
	const page = await browser.newPage();
	await page.goto(`${info.n8nUrl}/signin`);
	await page.locator('input[type="email"], input[name="emailOrLdapLoginId"], input[name="email"]').first().fill(info.owner.email);
	await page.locator('input[type="password"]').first().fill(info.owner.password);
	await page.locator('button[type="submit"], [data-test-id="form-submit-button"]').first().click();
	await page.waitForURL((url) => !url.pathname.includes('signin'), { timeout: 60000 });

	await page.goto(`${info.n8nUrl}/workflow/${info.workflows.autoReply.id}`);
	for (const name of ['On inbound message', 'Reply on the same chat']) {
		await page.getByText(name, { exact: true }).first().waitFor({ timeout: 60000 });
	}
	// Each node's icon is our SVG, served by n8n from the installed package, and it loaded.
	const icons = page.locator('img[src*="n8n-nodes-messaging-relay"]');
	await icons.first().waitFor({ timeout: 30000 });
	const loaded = await icons.evaluateAll((imgs) =>
		imgs.map((img) => {
			const { src, naturalWidth } = img as unknown as { src: string; naturalWidth: number };
			return { src, width: naturalWidth };
		}),
	);
	expect(loaded.length).toBeGreaterThanOrEqual(2);
	expect(loaded.every((i) => i.width > 0)).toBe(true);
	expect(loaded.some((i) => i.src.includes('messagingRelayTrigger'))).toBe(true);
	expect(loaded.some((i) => /messagingRelay(\.dark)?\.svg/.test(i.src))).toBe(true);

	await page.screenshot({ path: `${info.artifacts}/auto-reply-workflow.png` });
	await page.close();
});
