/**
 * The editor as a person sees it: Debian's Chromium, driven by playwright-core, logs in, opens
 * the auto-reply workflow, checks that both nodes render with their icons, saves a screenshot.
 * Then it imports each shipped example (examples/*.json) as a user does, opens it on the canvas,
 * zooms to fit and takes its picture: into docs/images/<example>.png when the README shows it, so
 * the pictures are always of the examples as they ship, otherwise into the run's artifacts
 * (docs/images ships in the package: test/docs/readme.test.ts fails on a picture there that the
 * README does not show).
 */
import { chromium, type BrowserContext, type Page } from 'playwright-core';

import { importExample, info, openAiCredential } from '../support/e2e';
import { exampleForSimulator } from '../support/examples';
import { readText, repoPath } from '../support/repo';

/** The README's pictures: a readable size on a page, the workflow filling it. */
const PICTURE = { width: 1200, height: 600 };
const EXAMPLES = [
	'auto-reply',
	'disconnect-alert',
	'ai-assistant',
	'number-watch',
	'appointment-confirmation',
] as const;

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
	const page = await browser.newPage();
	await page.goto(`${info.n8nUrl}/signin`);
	await page
		.locator('input[type="email"], input[name="emailOrLdapLoginId"], input[name="email"]')
		.first()
		.fill(info.owner.email);
	await page.locator('input[type="password"]').first().fill(info.owner.password);
	await page.locator('button[type="submit"], [data-test-id="form-submit-button"]').first().click();
	await page.waitForURL((url) => !url.pathname.includes('signin'), { timeout: 60000 });
	await page.close();
});
afterAll(async () => await browser?.close());

/** Waits until the canvas has stopped moving (zoom to fit animates). */
async function settledViewport(page: Page) {
	const transform = async () =>
		await page.locator('.vue-flow__viewport').first().getAttribute('style');
	let last = await transform();
	for (let i = 0; i < 40; i++) {
		await page.waitForTimeout(250);
		const now = await transform();
		if (now === last) return;
		last = now;
	}
	throw new Error(`the canvas kept moving: ${last}`);
}

/** Waits until every node name is on the canvas and every image on the page has loaded. */
async function nodesShown(page: Page, names: string[]) {
	for (const name of names)
		await page.getByText(name, { exact: true }).first().waitFor({ timeout: 60000 });
	await page.waitForFunction(
		'[...document.images].every((img) => img.complete && img.naturalWidth > 0)',
		undefined,
		{ timeout: 30000 },
	);
}

test('the auto-reply workflow opens with both nodes and their icons', async () => {
	const page = await browser.newPage();
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

describe('the README pictures: each shipped example, imported and opened on the canvas', () => {
	let openAi: { id: string; name: string };
	beforeAll(async () => {
		// Never called: the picture needs the credential picked, not a model behind it.
		openAi = await openAiCredential('OpenAI account', 'http://127.0.0.1:9/v1');
	});

	test.each(EXAMPLES)('%s', async (example) => {
		// As a user has it once the README's steps are done: credentials picked, and what the example
		// leaves to the user filled in (the simulator's choices), so no node is marked as unfinished.
		const workflow = exampleForSimulator(`${example}.json`);
		const id = await importExample(workflow, {
			messagingRelayApi: info.credentials.main,
			openAiApi: openAi,
		});
		const page = await browser.newPage();
		await page.setViewportSize(PICTURE);
		await page.goto(`${info.n8nUrl}/workflow/${id}`);
		const names = workflow.nodes.map((n) => n.name as string);
		await nodesShown(page, names);
		const zoomToFit = page.locator('[data-test-id="zoom-to-fit"]');
		await zoomToFit.click();
		// Leave the button as it was (not hovered or focused) and the pointer over empty canvas.
		await zoomToFit.blur();
		await page.mouse.move(PICTURE.width - 100, PICTURE.height - 150);
		await settledViewport(page);

		// The picture shows the workflow: the editor (not the sign-in page), nothing over it, and
		// every node's name inside the picture.
		expect(new URL(page.url()).pathname).toBe(`/workflow/${id}`);
		expect(
			await page
				.locator('[role="dialog"], .el-overlay, .el-message-box')
				.filter({ visible: true })
				.count(),
		).toBe(0);
		for (const name of names) {
			const box = await page.getByText(name, { exact: true }).first().boundingBox();
			expect(box).not.toBeNull();
			expect([
				box!.x >= 0,
				box!.y >= 0,
				box!.x + box!.width <= PICTURE.width,
				box!.y + box!.height <= PICTURE.height,
			]).toEqual([true, true, true, true]);
		}
		const inReadme = readText('README.md').includes(`docs/images/${example}.png`);
		await page.screenshot({
			path: inReadme
				? repoPath('docs', 'images', `${example}.png`)
				: `${info.artifacts}/${example}.png`,
		});
		await page.close();
	});
});

test('the README picture of "Pause When a Person Replies": the AI assistant\'s trigger, opened', async () => {
	const workflow = exampleForSimulator('ai-assistant.json');
	const id = await importExample(workflow, { messagingRelayApi: info.credentials.main });
	const page = await browser.newPage();
	await page.setViewportSize({ width: 1200, height: 800 });
	await page.goto(`${info.n8nUrl}/workflow/${id}`);
	await nodesShown(page, ['On WhatsApp message']);
	// The node, not its label under it (the canvas pane takes pointer events there).
	await page
		.locator('[data-test-id="canvas-node"]')
		.filter({ hasText: 'On WhatsApp message' })
		.first()
		.dblclick({ force: true });
	// The node's panel, scrolled to the option: its three settings are on the picture.
	await page
		.getByText('Pause When a Person Replies', { exact: true })
		.first()
		.waitFor({ timeout: 30000 });
	await page.getByText('API Origins', { exact: true }).first().scrollIntoViewIfNeeded();
	for (const setting of [
		'Pause When a Person Replies',
		'Pause For (Minutes)',
		'Resume Keyword',
		'API Origins',
	]) {
		const box = await page.getByText(setting, { exact: true }).first().boundingBox();
		expect(box).not.toBeNull();
		expect([box!.y >= 0, box!.y + box!.height <= 800]).toEqual([true, true]);
	}
	await page.mouse.move(5, 795);
	await page.waitForTimeout(500);
	await page.screenshot({ path: repoPath('docs', 'images', 'pause-when-a-person-replies.png') });
	await page.close();
});
