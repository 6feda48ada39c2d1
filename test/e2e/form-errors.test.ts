import fs from "node:fs";
import path from "node:path";
import { buildClientSchema, getIntrospectionQuery, getNullableType, isInputObjectType, isListType, type GraphQLInputType } from "graphql";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDemoScenes } from "../../api/db/demo-scenes.js";
import { DEMO_ACCOUNTS } from "../../api/db/demo.js";
import { labelKeyOf, type FieldLabels } from "../../web/components/forms.js";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { Client, DEMO, startTestServer, type TestServer } from "../harness.js";
import { launchBrowser } from "./browser.js";
import { routeSegments } from "./route-files.js";

/**
 * Every error message a portal form can show names the field by its visible label, never by a key
 * (issue 19). Two halves:
 *
 * 1. A crawler: every demo account (and a visitor signed out), on a fresh demo with its scenes, follows
 *    the links of the pages it may see, one page per route, and submits every form with fields that a
 *    route with an action shows, once empty and once with wrong values (text in number fields,
 *    impossible dates, too-long text). Each error shown (the summary, next to a field, any error
 *    alert) must name no key; each summary entry must link to a field on the page, marked invalid,
 *    whose visible label it starts with; and the summary lists them in the order of the page.
 * 2. What the crawler cannot provoke: for every route, every key an input of a mutation it calls can
 *    report (from the schema's input types) has a label in the route's exported `LABELS`.
 *
 * Plain HTTP against the built portal; one browser page only parses the HTML.
 */

const ROUTES = path.resolve("web/routes");
const FILES = fs
  .readdirSync(ROUTES)
  .filter((f) => /\.tsx?$/.test(f))
  .sort();
const source = (f: string) => fs.readFileSync(path.join(ROUTES, f), "utf8");
const WITH_ACTION = new Set(FILES.filter((f) => /export\s+(async\s+)?(function|const)\s+action\b/.test(source(f))));
const hasAction = (f: string) => WITH_ACTION.has(f);

type Route = { file: string; re: RegExp; params: number; index: boolean };

/** A flat-routes file as a pattern of the addresses it answers: `staff.petitions_.$id.tsx` → ^/staff/petitions/[^/]+$. */
function routeOf(file: string): Route {
  const { segments, index } = routeSegments(file);
  let params = 0;
  const parts = segments.map((s) => {
    if (!s.startsWith("$")) return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    params++;
    return "[^/]+";
  });
  return { file, re: new RegExp(`^/${parts.join("/")}$`), params, index };
}
const ROUTE_TABLE = FILES.map(routeOf);

/** The route a path is answered by: the most specific match; `?index` picks the index route. */
function routeFor(pathname: string, index = false): string | undefined {
  const found = ROUTE_TABLE.filter((r) => r.re.test(pathname.replace(/\/$/, "") || "/")).sort((a, b) => a.params - b.params || Number(b.index === index) - Number(a.index === index));
  return found[0]?.file;
}

// ---- parsing, in a browser page (no HTML parser in the project) ----

type Control = { name: string; type: string; value: string; checked: boolean; inputMode: string; options: string[] };
type Button = { name: string; value: string; text: string };
type FormInfo = { action: string; enctype: string; controls: Control[]; buttons: Button[] };
type Parsed = { links: string[]; forms: FormInfo[]; gets: string[] };

function parsePage(html: string): Parsed {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const links = [...doc.querySelectorAll("a[href]")].map((a) => a.getAttribute("href") ?? "");
  const forms = [...doc.querySelectorAll("form")]
    .filter((f) => (f.getAttribute("method") ?? "get").toLowerCase() === "post")
    .map((f) => ({
      action: f.getAttribute("action") ?? "",
      enctype: f.getAttribute("enctype") ?? "",
      controls: [...f.querySelectorAll("input[name], select[name], textarea[name]")]
        .filter((el) => !["submit", "button", "reset", "image"].includes((el as HTMLInputElement).type))
        .map((el) => {
          const i = el as HTMLInputElement;
          const tag = el.tagName.toLowerCase();
          const options = tag === "select" ? [...(el as HTMLSelectElement).options].map((o) => o.value) : [];
          const selected = tag === "select" ? ([...(el as HTMLSelectElement).options].find((o) => o.hasAttribute("selected"))?.value ?? options[0] ?? "") : "";
          return {
            name: i.name,
            type: tag === "input" ? (i.getAttribute("type") ?? "text").toLowerCase() : tag,
            value: tag === "select" ? selected : tag === "textarea" ? (el.textContent ?? "") : (i.getAttribute("value") ?? ""),
            checked: i.hasAttribute("checked"),
            inputMode: i.getAttribute("inputmode") ?? "",
            options,
          };
        }),
      buttons: [...f.querySelectorAll("button, input[type=submit]")]
        .filter((b) => ((b as HTMLButtonElement).getAttribute("type") ?? "submit") === "submit")
        .map((b) => ({ name: b.getAttribute("name") ?? "", value: b.getAttribute("value") ?? "", text: (b.textContent ?? "").trim() })),
    }));
  // A GET form (a district to choose, a filter) as a person sends it: each select at its choice, or its first real option.
  const gets = [...doc.querySelectorAll("form")]
    .filter((f) => (f.getAttribute("method") ?? "get").toLowerCase() === "get")
    .map((f) => {
      const q = new URLSearchParams();
      for (const el of f.querySelectorAll("input[name], select[name]")) {
        const i = el as HTMLInputElement;
        if (["submit", "button", "checkbox", "radio", "file"].includes(i.type)) continue;
        if (el.tagName.toLowerCase() === "select") {
          const options = [...(el as HTMLSelectElement).options];
          q.set(i.name, (options.find((o) => o.hasAttribute("selected")) ?? options.find((o) => o.value) ?? options[0])?.value ?? "");
        } else q.set(i.name, i.getAttribute("value") ?? "");
      }
      return `${f.getAttribute("action") ?? ""}?${q}`;
    });
  return { links, forms, gets };
}

type Target = { id: string; exists: boolean; label: string | null; invalid: boolean; position: number };
type Shown = {
  summary: { text: string; href: string | null; target: Target | null }[];
  messages: string[];
  fieldNames: string[];
};

/** Every error the page shows, and where each summary entry leads. */
function errorsOf(html: string): Shown {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const text = (el: Element | null) => (el?.textContent ?? "").replace(/\s+/g, " ").trim();
  const all = [...doc.querySelectorAll("*")];
  /** A label's visible words, without "(required)" or "(optional)". */
  const labelText = (el: Element | null) => {
    if (!el) return null;
    const copy = el.cloneNode(true) as Element;
    copy.querySelectorAll(".usa-hint, .usa-sr-only, .usa-error-message").forEach((h) => h.remove());
    return text(copy).replace(/\s*\((required|optional)\)\s*$/i, "") || null;
  };
  const targetOf = (href: string): Target => {
    const id = decodeURIComponent(href.replace(/^#/, ""));
    const el = doc.getElementById(id);
    if (!el) return { id, exists: false, label: null, invalid: false, position: -1 };
    const type = (el.getAttribute("type") ?? "").toLowerCase();
    const isField = ["input", "select", "textarea"].includes(el.tagName.toLowerCase());
    let label: string | null = null;
    const labelledBy = el.getAttribute("aria-labelledby");
    if (labelledBy) label = labelText(doc.getElementById(labelledBy.split(" ")[0]));
    if (!label && isField && !["radio", "checkbox"].includes(type)) label = labelText(doc.querySelector(`label[for="${CSS.escape(id)}"]`));
    if (!label && el.tagName.toLowerCase() === "table") label = labelText(el.querySelector("caption"));
    if (!label && /^h[1-6]$|^legend$|^label$/.test(el.tagName.toLowerCase())) label = labelText(el);
    if (!label) {
      const fieldset = el.tagName.toLowerCase() === "fieldset" ? el : el.closest("fieldset");
      label = labelText(fieldset?.querySelector("legend") ?? null);
    }
    if (!label && isField) label = labelText(doc.querySelector(`label[for="${CSS.escape(id)}"]`));
    if (!label) label = el.getAttribute("aria-label");
    const group = el.closest(".usa-form-group, fieldset") ?? el;
    const invalid =
      el.getAttribute("aria-invalid") === "true" ||
      !!el.closest(".usa-form-group--error") ||
      !!group.querySelector('[aria-invalid="true"]') ||
      !!el.querySelector('[aria-invalid="true"]');
    return { id, exists: true, label, invalid, position: all.indexOf(el) };
  };
  const summaryEl = doc.getElementById("error-summary");
  const summary = summaryEl
    ? [...summaryEl.querySelectorAll("li")].map((li) => {
        const href = li.querySelector("a")?.getAttribute("href") ?? null;
        return { text: text(li), href, target: href?.startsWith("#") ? targetOf(href) : null };
      })
    : [];
  const messages = [...doc.querySelectorAll(".usa-alert--error .usa-alert__text, .usa-alert--error li, .usa-error-message")].map(text).filter(Boolean);
  // A refusal shown as an error page (the route's boundary) is an error shown too.
  const boundary = doc.querySelector("main h1");
  if (boundary && /not allowed|something went wrong|not found/i.test(text(boundary))) messages.push(...[...doc.querySelectorAll("main p")].slice(0, 1).map(text));
  const fieldNames = [...doc.querySelectorAll("[name]")].map((e) => e.getAttribute("name") ?? "");
  return { summary, messages, fieldNames };
}

/**
 * Words in a message that are a key, not a label: camelCase, a dotted path, or "key: ..." with a
 * field's name (a CSV file's snake_case column names are what the person must write, not keys).
 */
export function keysIn(message: string, fieldNames: string[]): string[] {
  const found = new Set<string>();
  for (const m of message.matchAll(/\b[a-z]{2,}(?:[A-Z][a-z0-9]*)+\b/g)) found.add(m[0]);
  for (const m of message.matchAll(/\b[A-Za-z]+\.\d+(?:\.[A-Za-z]+)?\b/g)) found.add(m[0]);
  const lead = /^([A-Za-z0-9_.]+):/.exec(message)?.[1];
  if (lead && fieldNames.includes(lead) && lead !== lead.replace(/^./, (c) => c.toUpperCase())) found.add(lead);
  return [...found];
}

// ---- the crawl ----

/** A visitor's cookies, kept from each answer as a browser would. */
class Jar {
  cookies = new Map<string, string>();
  constructor(from?: Client) {
    if (from) for (const [k, v] of from.cookies) this.cookies.set(k, v);
  }
  get header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  keep(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      const value = pair.slice(i + 1);
      if (!value || /max-age=0/i.test(c)) this.cookies.delete(pair.slice(0, i));
      else this.cookies.set(pair.slice(0, i), value);
    }
  }
}

type Visitor = { who: string; jar: Jar };
type Found = { who: string; page: string; route: string; form: FormInfo };

let srv: TestServer;
let browser: Browser;
let parser: Page;

/**
 * Two issued lateral permits of the demo applicant (the demo has none): one waiting for its first
 * inspection to be asked for (the applicant's request form), one whose inspection is scheduled (the
 * Operator's schedule and result forms). Through the API, as the applicant and the Operator do it.
 */
async function issuedPermits(): Promise<void> {
  const a = new Client(srv.url);
  await a.signIn(DEMO.applicant);
  const op = new Client(srv.url);
  await op.signIn(DEMO.lakeviewOperator);
  const pdf = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF", "latin1").toString("base64");
  const { uploadDocument: plan } = await a.ok(`mutation($i: UploadDocumentInput!) { uploadDocument(input: $i) { id } }`, { i: { filename: "site-plan.pdf", contentBase64: pdf } });
  const { district, approvedContractors } = await a.ok(`{ district(slug: "lakeview") { id } approvedContractors(districtSlug: "lakeview") { id } }`);
  for (const street of ["Orchard Lane", "Harbor Road"]) {
    const { saveLateralPermitDraft: d } = await a.ok(`mutation($i: LateralPermitDraftInput!) { saveLateralPermitDraft(input: $i) { id } }`, {
      i: {
        districtId: district.id,
        permitClass: "RESIDENTIAL_COMMERCIAL_INSTITUTIONAL",
        buildingUse: "RESIDENTIAL",
        workKind: "NEW_BUILDING",
        streetNumber: "12",
        street,
        city: "Lakeview",
        zip: "13600",
        taxParcel: "101.2-3-4",
        ownerName: "Alex Applicant",
        contractorId: approvedContractors[0].id,
        asBuiltSheets: 1,
        documentIds: [plan.id],
      },
    });
    const { submitLateralPermit: s } = await a.ok(`mutation($id: ID!) { submitLateralPermit(id: $id) { paymentId } }`, { id: d.id });
    const { startCheckout } = await a.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: s.paymentId });
    await a.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { id } }`, { s: startCheckout.url.split("/").pop() });
    await op.ok(`mutation($id: ID!) { approveLateralPermit(id: $id) { id } }`, { id: d.id });
    if (street === "Harbor Road") {
      const { requestInspection: i } = await a.ok(`mutation($id: ID!) { requestInspection(permitId: $id) { id } }`, { id: d.id });
      let day = addCalendarDays(dateIn("America/New_York"), 3);
      while ([0, 6].includes(new Date(`${day}T12:00:00Z`).getUTCDay())) day = addCalendarDays(day, 1);
      await op.ok(`mutation($i: ScheduleInspectionInput!) { scheduleInspection(input: $i) { id } }`, { i: { inspectionId: i.id, scheduledFor: `${day}T09:00` } });
    }
  }
}

beforeAll(async () => {
  srv = await startTestServer({ portal: process.env.FORM_ERRORS_PORTAL === "vite" ? "vite" : true });
  await loadDemoScenes(srv.running.ds, srv.url, srv.config);
  await issuedPermits();
  browser = await launchBrowser();
  parser = await browser.newPage({ javaScriptEnabled: true });
});
afterAll(async () => {
  await browser?.close();
  await srv?.close();
});

const NOT_PAGES = /^\/(sign-out|documents\/|webhooks\/|graphql)|\.(ics|csv|pdf)$|\/receipt$/;

/** The pages a visitor reaches by links from its start pages, one per route; the forms on those of routes with an action. */
async function crawl(v: Visitor): Promise<Found[]> {
  const queue = ["/", "/dashboard", "/staff", "/account", "/sign-up", "/forgot-password"];
  const seenRoutes = new Map<string, number>();
  const seenUrls = new Set<string>();
  const found: Found[] = [];
  /** A page with forms twice (two records in two states, or a step chosen by a GET form, may show other forms); any other page once. */
  const room = (route: string) => (seenRoutes.get(route) ?? 0) < (hasAction(route) ? 2 : 1);
  while (queue.length && seenRoutes.size < 80) {
    const url = queue.shift()!;
    const u = new URL(url, srv.url);
    const route = routeFor(u.pathname, u.searchParams.has("index"));
    if (!route || !room(route) || seenUrls.has(u.pathname + u.search) || NOT_PAGES.test(u.pathname)) continue;
    // A page with an address parameter and no action can only lead on to records the lists show too.
    if (!hasAction(route) && routeOf(route).params > 0) continue;
    seenRoutes.set(route, (seenRoutes.get(route) ?? 0) + 1);
    seenUrls.add(u.pathname + u.search);
    const res = await fetch(`${srv.url}${u.pathname}${u.search}`, { headers: { cookie: v.jar.header }, redirect: "manual" });
    v.jar.keep(res);
    if (res.status !== 200 || !(res.headers.get("content-type") ?? "").includes("text/html")) {
      await res.arrayBuffer();
      continue;
    }
    const parsed = await parser.evaluate(parsePage, await res.text());
    for (const href of [...parsed.links, ...parsed.gets.map((g) => (g.startsWith("?") ? u.pathname + g : g))]) {
      if (!href.startsWith("/") || href.startsWith("//")) continue;
      const next = new URL(href, srv.url);
      const r = routeFor(next.pathname, next.searchParams.has("index"));
      if (r && room(r) && !seenUrls.has(next.pathname + next.search)) queue.push(next.pathname + next.search);
    }
    for (const form of parsed.forms) {
      const target = new URL(form.action || u.pathname + u.search, `${srv.url}${u.pathname}`);
      const r = routeFor(target.pathname, target.searchParams.has("index"));
      if (!r || !hasAction(r) || NOT_PAGES.test(target.pathname)) continue;
      if (!form.controls.some((c) => !["hidden"].includes(c.type) && c.name !== "csrf")) continue; // a button alone: nothing to get wrong
      found.push({ who: v.who, page: u.pathname + u.search, route: r, form: { ...form, action: target.pathname + target.search } });
    }
  }
  if (process.env.FORM_ERRORS_DEBUG) console.log(`${v.who}: ${seenRoutes.size} routes, ${found.length} forms`);
  return found;
}

const LONG = "x".repeat(5_001);

/** What a person might wrongly type in a control (or leave out, when `empty`). */
function wrong(c: Control, empty: boolean): string | null {
  if (c.type === "hidden") return c.value;
  if (c.type === "file") return null;
  if (c.type === "checkbox" || c.type === "radio") return null;
  if (empty) return "";
  if (c.type === "select") return c.value;
  if (c.type === "number" || /numeric|decimal/.test(c.inputMode) || /(Cents|Gallons|Amount|Count)$/.test(c.name)) return "twelve";
  if (c.type === "date" || /(On|Date)$/.test(c.name)) return "2026-02-30";
  if (c.type === "datetime-local" || /At$/.test(c.name)) return "2026-02-30T25:61";
  if (c.type === "time") return "25:61";
  if (c.type === "email") return "not an address";
  if (c.type === "tel") return "call me";
  return LONG;
}

type Submitted = { who: string; route: string; page: string; how: string; status: number; shown: Shown };

async function submit(v: Visitor, f: Found, button: Button | undefined, empty: boolean): Promise<Submitted> {
  const multipart = f.form.enctype === "multipart/form-data";
  const entries: [string, string][] = [];
  for (const c of f.form.controls) {
    const value = wrong(c, empty);
    if (value !== null) entries.push([c.name, value]);
  }
  if (button?.name) entries.push([button.name, button.value]);
  let body: FormData | URLSearchParams;
  if (multipart) {
    body = new FormData();
    for (const [k, val] of entries) body.append(k, val);
  } else body = new URLSearchParams(entries);
  const res = await fetch(`${srv.url}${f.form.action}`, { method: "POST", body, redirect: "manual", headers: { cookie: v.jar.header, origin: srv.url } });
  v.jar.keep(res);
  const html = await res.text();
  const shown = res.headers.get("content-type")?.includes("text/html") ? await parser.evaluate(errorsOf, html) : { summary: [], messages: [], fieldNames: [] };
  return { who: v.who, route: f.route, page: f.page, how: `${empty ? "empty" : "wrong values"}${button?.text ? `, "${button.text}"` : ""}`, status: res.status, shown };
}

const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Whether a summary entry ("Label: message") names the field's visible label: the words of the label
 * but a closing parenthesis are all in what comes before one of its ": " (a row's entry may say
 * "Make of vehicle 1" for the label "Vehicle 1: make", or put the group first).
 */
function namesLabel(entry: string, label: string): boolean {
  // A label's closing parenthesis is a hint ("The renewed permit (PDF, PNG or JPEG)").
  const want = words(label.replace(/\s*\([^()]*\)\s*$/, "") || label);
  for (let i = entry.indexOf(": "); i > 0; i = entry.indexOf(": ", i + 1)) {
    const have = new Set(words(entry.slice(0, i)));
    if (want.every((w) => have.has(w))) return true;
  }
  return false;
}

/** Problems with the errors one submission shows. */
function problemsOf(s: Submitted): string[] {
  const at = `${s.route} (${s.who}, ${s.how})`;
  const out: string[] = [];
  const names = s.shown.fieldNames;
  for (const m of s.shown.messages) for (const k of keysIn(m, names)) out.push(`${at}: "${m.slice(0, 160)}" names the key ${k}`);
  let last = -1;
  let outOfOrder = false;
  for (const e of s.shown.summary) {
    const t = e.target;
    if (!t) out.push(`${at}: summary entry "${e.text.slice(0, 120)}" links to no field`);
    else if (!t.exists) out.push(`${at}: summary entry "${e.text.slice(0, 120)}" links to #${t.id}, not on the page`);
    else {
      if (!t.label) out.push(`${at}: #${t.id} has no visible label`);
      else if (!namesLabel(e.text, t.label)) out.push(`${at}: summary entry "${e.text.slice(0, 120)}" does not name its field's label "${t.label}"`);
      if (!t.invalid) out.push(`${at}: #${t.id} is not marked invalid`);
      if (t.position < last && !outOfOrder) {
        out.push(`${at}: summary entry "${e.text.slice(0, 80)}" is out of the form's order`);
        outOfOrder = true;
      }
      last = Math.max(last, t.position);
    }
  }
  return out;
}

async function pool<T>(jobs: (() => Promise<T>)[], n: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]();
      }
    }),
  );
  return out;
}

describe("every error a portal form shows", () => {
  it("spots keys and tells routes apart", () => {
    expect(keysIn("vehicles.0.tankCapacityGallons: must be positive", [])).toEqual(["tankCapacityGallons", "vehicles.0.tankCapacityGallons"]);
    expect(keysIn("scheduledFor: Enter a date", ["scheduledFor"])).toEqual(["scheduledFor"]);
    expect(keysIn("notes: too long", ["notes"])).toEqual(["notes"]);
    expect(keysIn("Notes: too long", ["notes"])).toEqual([]);
    expect(keysIn("Enter an email address like name@example.com.", ["email"])).toEqual([]);
    expect(routeFor("/staff/petitions/abc")).toBe("staff.petitions_.$id.tsx");
    expect(routeFor("/account", true)).toBe("account._index.tsx");
    expect(routeFor("/haulers/licenses/abc/edit")).toBe("haulers.licenses.$id_.edit.tsx");
  });

  it("names the field by its visible label, links to it marked invalid, in the form's order", { timeout: 300_000 }, async () => {
    const visitors: Visitor[] = [{ who: "signed out", jar: new Jar() }];
    // A newcomer too: the demo accounts may not change their password.
    const newcomer = new Client(srv.url);
    await newcomer.signUp("newcomer@example.com", "Nora Newcomer", "a long and memorable password");
    visitors.push({ who: "newcomer", jar: new Jar(newcomer) });
    // Huron's Clerk, Operator and Board use the same forms as Lakeview's; its ADMIN's rulebook has other settings.
    for (const a of DEMO_ACCOUNTS.filter((x) => x.district !== "huron" || x.role === "ADMIN")) {
      const c = new Client(srv.url);
      await c.signIn(a.email);
      visitors.push({ who: a.email.replace(/\.?demo\.tapline\.local$/, "").replace(/@$/, ""), jar: new Jar(c) });
    }
    const t0 = Date.now();
    const crawled = (await pool(visitors.map((v) => () => crawl(v)), 4)).flat();
    if (process.env.FORM_ERRORS_DEBUG) console.log(`crawled in ${Date.now() - t0} ms: ${crawled.length} forms`);
    // One visitor per form (the first who may use it): a form is its route and its fields.
    const forms = new Map<string, Found>();
    for (const f of crawled) {
      const key = `${f.route} ${f.form.controls.map((c) => c.name).join(",")}`;
      if (!forms.has(key)) forms.set(key, f);
    }
    const byVisitor = new Map<string, Found[]>();
    for (const f of forms.values()) byVisitor.set(f.who, [...(byVisitor.get(f.who) ?? []), f]);
    const results = (
      await pool(
        [...byVisitor].map(([who, list]) => async () => {
          const v = visitors.find((x) => x.who === who)!;
          const out: Submitted[] = [];
          for (const f of list) {
            const buttons = f.form.buttons.filter((b, i, all) => all.findIndex((x) => x.name === b.name && x.value === b.value) === i);
            for (const b of buttons.length ? buttons : [undefined]) for (const empty of [false, true]) out.push(await submit(v, f, b, empty)); // wrong values first: an empty form of optional fields may go through
          }
          return out;
        }),
        3,
      )
    ).flat();
    if (process.env.FORM_ERRORS_DEBUG) console.log(`submitted in ${Date.now() - t0} ms: ${results.length}`);
    const routes = new Set(results.map((r) => r.route));
    if (process.env.FORM_ERRORS_DEBUG) console.log([...routes].sort().join("\n"));
    expect(results.filter((r) => r.status >= 500).map((r) => `${r.route} (${r.who}, ${r.how}) → ${r.status}`)).toEqual([]);
    expect(results.filter((r) => r.shown.summary.length > 0).length).toBeGreaterThan(30);
    // What the crawl must reach (the forms of every kind of visitor), with the problems found, in one list.
    const reached = ["sign-up.tsx", "sign-in.tsx", "forgot-password.tsx", "account.password.tsx", "permits.new.tsx", "permits.$id.tsx", "staff.permits.$id.tsx", "staff.moratoria.tsx", "staff.rulebook.$slug.tsx"]
      .filter((r) => !routes.has(r))
      .map((r) => `the crawl did not reach a form of ${r}`);
    expect([...reached, ...results.flatMap(problemsOf)]).toEqual([]);
  });
});

describe("every key an API input can report", () => {
  it("has a label in the route's LABELS", async () => {
    const api = new Client(srv.url);
    const schema = buildClientSchema(await api.ok(getIntrospectionQuery()));
    const mutations = schema.getMutationType()!.getFields();
    const keysOf = (type: GraphQLInputType, prefix: string, out: Set<string>) => {
      const t = getNullableType(type);
      if (isListType(t)) {
        const inner = getNullableType(t.ofType);
        if (isInputObjectType(inner)) for (const f of Object.values(inner.getFields())) keysOf(f.type, `${prefix}.*.${f.name}`, out);
      } else if (isInputObjectType(t)) for (const f of Object.values(t.getFields())) keysOf(f.type, prefix ? `${prefix}.${f.name}` : f.name, out);
      if (prefix) out.add(prefix);
    };
    const missing: string[] = [];
    let checked = 0;
    for (const file of FILES) {
      // The route's own GraphQL and that of the server helpers it calls (web/components/*.server.ts).
      let text = source(file);
      for (const m of text.matchAll(/from "~\/components\/([\w-]+\.server)"/g)) {
        const helper = [".ts", ".tsx"].map((ext) => path.resolve("web/components", `${m[1]}${ext}`)).find((f) => fs.existsSync(f))!;
        text += fs.readFileSync(helper, "utf8");
      }
      // An upload's refusal is shown on the route's own file field (the crawl checks it), not under uploadDocument's keys.
      const called = new Set([...text.matchAll(/\bmutation\b[^{`]*\{\s*(\w+)\s*\(/g)].map((m) => m[1]).filter((m) => m !== "uploadDocument"));
      if (!called.size) continue;
      const keys = new Set<string>();
      for (const name of called) {
        const field = mutations[name];
        expect(field, `${file} calls ${name}, which the schema has`).toBeDefined();
        for (const arg of field.args) keysOf(arg.type, isInputObjectType(getNullableType(arg.type)) ? "" : arg.name, keys);
      }
      // The record acted on and a link's token come from the address, not from a field.
      keys.delete("id");
      keys.delete("token");
      if (!keys.size) continue;
      const mod = await import(path.join(ROUTES, file));
      const labels: FieldLabels = mod.LABELS ?? {};
      checked++;
      for (const k of keys) if (!labelKeyOf(labels, k)) missing.push(`${file}: ${k} (${[...called].join(", ")})`);
    }
    expect(checked).toBeGreaterThan(30);
    expect(missing).toEqual([]);
  });
});
