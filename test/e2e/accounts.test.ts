import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, DEMO } from "../harness.js";
import { expectNoAxeViolations, settled, signedInContext, startE2E, type E2E } from "./browser.js";

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(() => e?.close());

describe("a resident in the browser", () => {
  it("signs up, signs in to the dashboard, changes the password, signs out, and signs in with the new one", async () => {
    const page = await e.browser.newPage();
    await page.goto(`${e.srv.url}/`);
    await page.getByRole("link", { name: "Create an account" }).first().click();
    await page.getByLabel("Your name").fill("Robin Homeowner");
    await page.getByLabel("Email address").fill("robin@example.org");
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    // Bad input: the error is shown next to the field, and what was typed is kept.
    await expect.poll(() => page.locator("#password-error").textContent()).toMatch(/12/);
    expect(await page.getByLabel("Email address").inputValue()).toBe("robin@example.org");
    expect(await page.getByLabel("Your name").inputValue()).toBe("Robin Homeowner");

    await page.getByLabel("Password").fill("a long and memorable password");
    await page.getByRole("button", { name: "Create account" }).click();
    // Signing up signs no one in (it reads the same whether or not the address had an account): sign in next.
    await page.waitForURL((u) => u.pathname === "/sign-in" && u.searchParams.get("signedUp") === "1");
    await page.getByText("If it is new to Tapline, your account is ready").waitFor();
    await page.getByLabel("Email address").fill("robin@example.org");
    await page.getByLabel("Password").fill("a long and memorable password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard\?welcome=1/);
    // The URL changes a moment before a client-side navigation draws the page.
    await page.getByRole("heading", { level: 1, name: "My applications" }).waitFor();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("My applications");
    expect(await page.textContent("main")).toContain("Welcome, Robin Homeowner");
    expect(await page.textContent("main")).toContain("Nothing in progress yet");

    // Changes the password from the account page, where it says "change your password".
    const elsewhere = await signedInContext(e, "robin@example.org", "a long and memorable password");
    await page.goto(`${e.srv.url}/account`);
    await page.getByRole("link", { name: "change your password" }).click();
    await page.waitForURL((u) => u.pathname === "/account/password");
    await page.getByRole("heading", { level: 1, name: "Change your password" }).waitFor();
    await expectNoAxeViolations(page);
    await page.getByLabel("Current password").fill("not my password at all");
    await page.getByLabel("New password").fill("an even longer and more memorable password");
    await page.getByRole("button", { name: "Change my password" }).click();
    await expect.poll(() => page.locator("#currentPassword-error").textContent()).toMatch(/not your current password/);
    await page.getByLabel("Current password").fill("a long and memorable password");
    await page.getByLabel("New password").fill("an even longer and more memorable password");
    await page.getByRole("button", { name: "Change my password" }).click();
    await page.waitForURL((u) => u.pathname === "/account" && u.searchParams.get("done") === "password-changed");
    await page.getByText("Your password is changed.").waitFor();
    // The other browser was signed out; this one stays signed in.
    const other = await elsewhere.newPage();
    await other.goto(`${e.srv.url}/dashboard`);
    await other.waitForURL(/\/sign-in\?redirectTo=%2Fdashboard/);
    await elsewhere.close();

    await page.getByRole("button", { name: "Sign out", exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/");
    await page.goto(`${e.srv.url}/dashboard`);
    await page.waitForURL(/\/sign-in\?redirectTo=%2Fdashboard/);

    await page.getByLabel("Email address").fill("robin@example.org");
    await page.getByLabel("Password").fill("an even longer and more memorable password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard/);
    await page.close();
  });

  it("signing up with an address that has an account reads exactly as with a new one", async () => {
    const signUp = async (email: string) => {
      const page = await e.browser.newPage();
      await page.goto(`${e.srv.url}/sign-up`);
      await page.getByLabel("Your name").fill("Sam Someone");
      await page.getByLabel("Email address").fill(email);
      await page.getByLabel("Password").fill("a long and memorable password");
      await page.getByRole("button", { name: "Create account" }).click();
      await page.waitForURL((u) => u.pathname === "/sign-in");
      await settled(page);
      const seen = { url: page.url().replace(e.srv.url, ""), main: await page.textContent("main") };
      await page.close();
      return seen;
    };
    expect(await signUp(DEMO.applicant)).toEqual(await signUp("sam.someone@example.org"));
  });

  it("never sends the sign-in form elsewhere, whatever its redirectTo, and never fails with a 500", async () => {
    // Each as it would stand, already encoded, in a link's query string.
    const BYPASSES = [
      "//evil.example/path",
      "/%09/evil.example/path",
      "/%0a/evil.example/path",
      "/%0d%0a/evil.example",
      "/%5Cevil.example",
      "%5C%5Cevil.example",
      "/%2F%2Fevil.example",
      "%2F%2Fevil.example",
      "/%252F%252Fevil.example",
      "/.//evil.example",
      "https://evil.example",
      "javascript:alert(1)",
      "%09//evil.example",
    ];
    const origin = new URL(e.srv.url).origin;
    for (const redirectTo of [...BYPASSES, "/account%3Fdone%3Dx"]) {
      const page = await fetch(`${e.srv.url}/sign-in?redirectTo=${redirectTo}`);
      expect(page.status).toBe(200);
      const cookie = page.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1];
      const res = await fetch(`${e.srv.url}/sign-in?redirectTo=${redirectTo}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: new URLSearchParams({ csrf, email: DEMO.applicant, password: "tapline-demo-2026" }).toString(),
        redirect: "manual",
      });
      expect([redirectTo, res.status]).toEqual([redirectTo, 302]);
      const location = res.headers.get("location")!;
      expect([redirectTo, location.startsWith("/") && !location.startsWith("//") && !location.includes("\\")]).toEqual([redirectTo, true]);
      expect([redirectTo, new URL(location, e.srv.url).origin]).toEqual([redirectTo, origin]);
      if (redirectTo !== "/account%3Fdone%3Dx") expect([redirectTo, location]).toEqual([redirectTo, "/dashboard"]);
      else expect(location).toBe("/account?done=x");
    }
  });

  it("gets a clear message for a wrong password, with the email kept", async () => {
    const page = await e.browser.newPage();
    await page.goto(`${e.srv.url}/sign-in`);
    await page.getByLabel("Email address").fill(DEMO.applicant);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.locator("#error-summary").textContent()).toMatch(/do not match/);
    expect(await page.getByLabel("Email address").inputValue()).toBe(DEMO.applicant);
    await page.close();
  });

  it("comes back to the page it was reading after signing in from the header, and from 'Create an account'", async () => {
    const page = await e.browser.newPage();
    await page.goto(`${e.srv.url}/rules/huron`);
    expect(await page.getByRole("link", { name: "Create an account" }).first().getAttribute("href")).toBe(`/sign-up?redirectTo=${encodeURIComponent("/rules/huron")}`);
    await page.getByRole("navigation", { name: "Primary navigation" }).getByRole("link", { name: "Sign in" }).click();
    await page.getByLabel("Email address").fill(DEMO.applicant);
    await page.getByLabel("Password").fill("tapline-demo-2026");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/rules\/huron$/);
    await page.close();
    // A page whose address carries a one-time token is not handed on.
    const reset = await e.browser.newPage();
    await reset.goto(`${e.srv.url}/reset-password?token=x`);
    expect(await reset.getByRole("navigation", { name: "Primary navigation" }).getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/sign-in");
    await reset.close();
  });

  it("signs in using the keyboard alone", async () => {
    const page = await e.browser.newPage();
    await page.goto(`${e.srv.url}/sign-in`);
    // Skip link first, then into the page: Tab until the email field has focus.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to main content");
    await page.keyboard.press("Enter");
    for (let i = 0; i < 10 && (await page.evaluate(() => document.activeElement?.id)) !== "email"; i++) await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("email");
    await page.keyboard.type(DEMO.applicant);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("password");
    await page.keyboard.type("tapline-demo-2026");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/dashboard/);
    await page.close();
  });

  it("refuses a form posted without its CSRF token, changing nothing", async () => {
    const res = await fetch(`${e.srv.url}/sign-up`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "displayName=Eve&email=eve%40example.org&password=a+long+and+memorable+password",
      redirect: "manual",
    });
    expect(res.status).toBe(403);
    const [{ n }] = await e.srv.running.ds.query(`SELECT count(*)::int AS n FROM app_user WHERE email = 'eve@example.org'`);
    expect(n).toBe(0);
  });

  it("refuses a portal form over the upload limit before reading it", async () => {
    const res = await fetch(`${e.srv.url}/account/documents`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: new Uint8Array(12 * 1024 * 1024),
    });
    expect(res.status).toBe(413);
    expect(await res.text()).toMatch(/larger than 10 MB/);
  });

  it("works without JavaScript: sign in by a plain form post", async () => {
    const ctx = await e.browser.newContext({ javaScriptEnabled: false });
    const page = await ctx.newPage();
    await page.goto(`${e.srv.url}/sign-in`);
    await page.getByLabel("Email address").fill(DEMO.applicant);
    await page.getByLabel("Password").fill("tapline-demo-2026");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/dashboard/);
    // The URL changes a moment before a client-side navigation draws the page.
    await page.getByRole("heading", { level: 1, name: "My applications" }).waitFor();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("My applications");
    await ctx.close();
  });
});

describe("accessibility (axe-core, WCAG 2.1 AA) of every page", () => {
  const PUBLIC_PAGES = ["/", "/sign-in", "/sign-up", "/forgot-password", "/reset-password?token=x", "/verify-email?token=x", "/rules", "/rules/lakeview", "/rules/huron", "/rules/lakeview?on=2026-02-30", "/no-such-page"];
  const APPLICANT_PAGES = ["/dashboard", "/account", "/account/password", "/account/tokens", "/account/emails", "/account/documents", "/account/organizations", "/invitations/accept?token=x", "/staff", "/haulers"];
  const ADMIN_PAGES = ["/staff", "/staff/audit", "/staff/outbox", "/staff/people", "/staff/rulebook/lakeview", "/dashboard", "/staff/haulers"];

  it("public pages have no violations", async () => {
    const page = await e.browser.newPage();
    for (const p of PUBLIC_PAGES) {
      await page.goto(`${e.srv.url}${p}`);
      await expectNoAxeViolations(page);
    }
    await page.close();
  });

  it("an applicant's pages have no violations", async () => {
    const api = new Client(e.srv.url);
    await api.signIn(DEMO.applicant);
    const { createOrganization } = await api.ok(`mutation { createOrganization(input: { name: "Axe Test Hauling", kind: "HAULER" }) { id } }`);
    const ctx = await signedInContext(e, DEMO.applicant);
    const page = await ctx.newPage();
    for (const p of [...APPLICANT_PAGES, `/account/organizations/${createOrganization.id}`]) {
      await page.goto(`${e.srv.url}${p}`);
      expect(new URL(page.url()).pathname).toBe(p.split("?")[0]);
      await expectNoAxeViolations(page);
    }
    await ctx.close();
  });

  it("an ADMIN's staff pages have no violations", async () => {
    const ctx = await signedInContext(e, DEMO.lakeviewAdmin);
    const page = await ctx.newPage();
    for (const p of ADMIN_PAGES) {
      await page.goto(`${e.srv.url}${p}`);
      expect(new URL(page.url()).pathname).toBe(p);
      await expectNoAxeViolations(page);
    }
    await ctx.close();
  });
});
