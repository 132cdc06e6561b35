// Signing in to a console that is a team's service (OpenID Connect), in Chromium, as a person
// does: the console's Sign in link, the provider's login and consent pages; a person still
// signed in at the provider comes straight back. And a POST from the signed-in page itself.
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/** Signs in at `base`; resolves on /connectors, or on the refusal page when `refused` (its text). */
export async function signInAt(page: Page, base: string, login: string, options: { refused?: boolean } = {}): Promise<string> {
  const first = await page.goto(`${base}/connectors`);
  assert.equal(first?.status(), 403, 'not signed in yet');
  await page.click('a:has-text("Sign in")');
  const done = options.refused
    ? page.waitForSelector('h1:has-text("refused")', { timeout: 30_000 }).then(() => true)
    : page.waitForURL((url) => url.href.startsWith(base) && /^\/ctx\/[^/]+\/connectors$/.test(url.pathname), { timeout: 30_000 }).then(() => true);
  const form = page.locator('input[name=login]');
  const back = await Promise.race([form.waitFor({ timeout: 30_000 }).then(() => false), done]);
  if (!back) {
    await page.fill('input[name=login]', login);
    await page.fill('input[name=password]', 'any password: the development login accepts it');
    await page.click('button[type=submit]');
    // Consent is asked once per user and client.
    const consent = page.locator('button:has-text("Continue")');
    await Promise.race([consent.waitFor({ timeout: 30_000 }).then(() => consent.click()), done]);
    await done;
  }
  return (await page.textContent('main')) ?? '';
}

/** A POST from the signed-in page (same origin, its cookie and CSRF token): what a crafted request can do. */
export async function forge(page: Page, path: string, fields: Record<string, string>): Promise<{ status: number; body: string }> {
  return page.evaluate(async ({ path, fields }) => {
    const csrf = (document.querySelector('input[name=csrf]') as HTMLInputElement | null)?.value ?? '';
    // Sent in the context of the page it is sent from, as the page's own forms are.
    const here = /^\/ctx\/[^/]+/.exec(location.pathname)?.[0] ?? '';
    const res = await fetch(path.startsWith('/ctx/') ? path : `${here}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf, ...fields }).toString() });
    return { status: res.status, body: await res.text() };
  }, { path, fields });
}
