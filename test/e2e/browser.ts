import fs from "node:fs";
import { createRequire } from "node:module";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { expect } from "vitest";
import { Client, startTestServer, type TestServer } from "../harness.js";

/** Debian's Chromium, headless; test tools never download a browser. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!fs.existsSync(executablePath)) throw new Error(`Chromium not found at ${executablePath}: apt-get install -y chromium`);
  return chromium.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export type E2E = { srv: TestServer; browser: Browser; close(): Promise<void> };

export async function startE2E(): Promise<E2E> {
  const srv = await startTestServer({ portal: true });
  const browser = await launchBrowser();
  return {
    srv,
    browser,
    async close() {
      await browser.close();
      await srv.close();
    },
  };
}

/**
 * A browser context already signed in, by a session made through the API (Epic Stack style):
 * tests of later pages do not repeat the sign-in form.
 */
export async function signedInContext(e: E2E, email: string, password?: string): Promise<BrowserContext> {
  const api = new Client(e.srv.url);
  await api.signIn(email, password);
  const ctx = await e.browser.newContext();
  const url = new URL(e.srv.url);
  await ctx.addCookies(
    [...api.cookies].map(([name, value]) => ({ name, value, domain: url.hostname, path: "/", httpOnly: true, sameSite: "Lax" as const })),
  );
  return ctx;
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Runs axe-core (WCAG 2.0/2.1 A and AA rules) on the page and fails with the violations listed. */
export async function expectNoAxeViolations(page: Page): Promise<void> {
  await page.addScriptTag({ content: axeSource });
  const violations = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(" ")) }));
  });
  expect(violations, `${page.url()} has accessibility violations`).toEqual([]);
}

/**
 * Waits until the portal's client-side router is idle and the page has drawn: a client-side
 * navigation changes the URL (and a form its fields) a moment before the new page is on screen.
 */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const r = (window as any).__remixRouter;
    return !r || (r.state.navigation.state === "idle" && r.state.revalidation === "idle" && [...r.state.fetchers.values()].every((f: any) => f.state === "idle"));
  });
  await page.evaluate(() => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))));
}
