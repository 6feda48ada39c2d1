import fs from "node:fs";
import { createRequire } from "node:module";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { expect } from "vitest";
import { Client, startTestServer, type TestServer } from "../harness.js";

/**
 * Debian's Chromium, headless; test tools never download a browser. Every context reports CSP
 * violations. The journeys run in its headless shell when installed (sharedBrowser).
 */
export async function launchBrowser(executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"): Promise<Browser> {
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
 * What the Content-Security-Policy refused in any page (a script, a stylesheet, an inline style, a
 * connection, a form's target) since the last look: test/e2e/setup-file.ts fails each test with the
 * list when it ends. The hooks are there, not here: this module is imported once per worker process
 * (vitest.config.ts, `isolate: false`), and a hook registered here would watch its first file only.
 */
const cspViolations: string[] = [];
export const takeCspViolations = (): string[] => cspViolations.splice(0);

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

/**
 * The same Chromium's headless shell (Debian's chromium-headless-shell, Playwright's usual headless
 * browser): the same engine without the full browser's windows, a third as many renderer processes and
 * a third less CPU on the journeys. page-budget measures pages in the full browser (launchBrowser).
 */
const HEADLESS_SHELL = "/usr/bin/chromium-headless-shell";

/**
 * One Chromium per worker process, launched when a file first asks and shared by the files the
 * process runs one after another (vitest.config.ts: the e2e project's `isolate: false`); Playwright
 * closes it when the process exits. A file gets only contexts of its own (closeContexts).
 */
let shared: Promise<Browser> | undefined;
export function sharedBrowser(): Promise<Browser> {
  if (!shared) {
    const launching = launchBrowser(process.env.CHROMIUM_PATH ?? (fs.existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : undefined));
    shared = launching;
    launching.then(
      (b) => b.on("disconnected", () => shared === launching && (shared = undefined)),
      () => shared === launching && (shared = undefined),
    );
  }
  return shared;
}

/** Closes every context of the shared browser: at a file's end (a process runs one file at a time). */
export async function closeContexts(browser: Browser): Promise<void> {
  await Promise.all(browser.contexts().map((ctx) => ctx.close()));
}

export type E2E = { srv: TestServer; browser: Browser; close(): Promise<void> };

export async function startE2E(): Promise<E2E> {
  const [srv, browser] = await Promise.all([startTestServer({ portal: true }), sharedBrowser()]);
  return {
    srv,
    browser,
    async close() {
      await closeContexts(browser);
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
  // Once per document: after a client-side navigation the page still has it.
  if (!(await page.evaluate(() => typeof (window as any).axe?.run === "function"))) await page.evaluate(axeSource);
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
