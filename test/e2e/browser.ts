import fs from "node:fs";
import { createRequire } from "node:module";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterEach, expect } from "vitest";
import { Client, startTestServer, type TestServer } from "../harness.js";

/** Debian's Chromium, headless; test tools never download a browser. Every context reports CSP violations. */
export async function launchBrowser(): Promise<Browser> {
  const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!fs.existsSync(executablePath)) throw new Error(`Chromium not found at ${executablePath}: apt-get install -y chromium`);
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  // browser.newPage() makes its context through newContext() too.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const ctx = await newContext(options);
    await watchContentSecurityPolicy(ctx);
    return ctx;
  };
  return browser;
}

/**
 * What the Content-Security-Policy refused in any page of this test (a script, a stylesheet, an
 * inline style, a connection, a form's target): the test fails with the list when it ends.
 */
const cspViolations: string[] = [];
afterEach(() => {
  const found = cspViolations.splice(0);
  expect(found, "the Content-Security-Policy refused something a page needs").toEqual([]);
});

async function watchContentSecurityPolicy(ctx: BrowserContext): Promise<void> {
  await ctx.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`CSP violation: ${e.effectiveDirective} refused ${e.blockedURI || "(inline)"} at ${e.sourceFile || e.documentURI}:${e.lineNumber}`),
    );
  });
  ctx.on("console", (msg) => {
    const text = msg.text();
    if (text.startsWith("CSP violation:") || /Content Security Policy/i.test(text)) cspViolations.push(`${msg.page()?.url() ?? "?"}: ${text}`);
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
  // Evaluated through the DevTools protocol: an inline <script> (addScriptTag) is refused by the CSP.
  await page.evaluate(axeSource);
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
