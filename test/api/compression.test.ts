import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compressResponses, encodingFor, sendPage } from "../../api/compression.js";
import { loadConfig } from "../../api/config.js";
import { SESSION_COOKIE } from "../../api/graphql/request-context.js";
import { securityHeaders } from "../../api/security-headers.js";
import { serveBuildFiles } from "../../api/web.js";

/**
 * Issue 20: what goes over the wire. The app's middleware in the app's order (security headers,
 * compression, the build's files) on a folder laid out as `npm run build` leaves build/client: a
 * fingerprinted script with the .br and .gz copies the build writes, a favicon without.
 */

const SCRIPT = `export const rules = ${JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ section: 1200 + i, text: "Sewer Use Law" })))};\n`;
const PAGE = `<!DOCTYPE html><html><body>${"<p>Apply for a building lateral permit.</p>".repeat(100)}</body></html>`;
let dir: string;
let server: http.Server;
let base: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tapline-client-"));
  fs.mkdirSync(path.join(dir, "assets"));
  const script = path.join(dir, "assets", "root-AbC123.js");
  fs.writeFileSync(script, SCRIPT);
  // Marked copies: the test tells a file served precompressed from one compressed per request.
  fs.writeFileSync(`${script}.br`, brotliCompressSync(`${SCRIPT}// br at build\n`));
  fs.writeFileSync(`${script}.gz`, gzipSync(`${SCRIPT}// gz at build\n`));
  fs.writeFileSync(path.join(dir, "favicon.svg"), `<svg xmlns="http://www.w3.org/2000/svg"/>`);
  const config = loadConfig({ NODE_ENV: "production", SESSION_SECRET: "x".repeat(32), PUBLIC_URL: "https://tapline.test" });
  const app = express();
  app.use(securityHeaders(config));
  app.use(compressResponses());
  serveBuildFiles(app, dir);
  app.get("/page", (_req, res) => res.type("html").send(PAGE));
  app.get("/tiny", (_req, res) => res.type("html").send("<p>ok</p>"));
  // A portal page as api/web.ts sends it: rendered whole, compressed in one pass (sendPage).
  app.get("/rendered/page", (req, res) => void sendPage(req, res.type("html"), Buffer.from(PAGE)));
  app.get("/rendered/tiny", (req, res) => void sendPage(req, res.type("html"), Buffer.from("<p>ok</p>")));
  server = app.listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A raw GET (fetch would undo the encoding): status, headers and the bytes as sent. */
const get = (p: string, headers: Record<string, string> = {}) => getRaw(p, headers);
function getRaw(p: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${p}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on("error", reject);
  });
}

const decode = (r: { headers: http.IncomingHttpHeaders; body: Buffer }) =>
  (r.headers["content-encoding"] === "br" ? brotliDecompressSync(r.body) : r.headers["content-encoding"] === "gzip" ? gunzipSync(r.body) : r.body).toString();

describe("build files: compressed once at build, served as such", () => {
  it("sends the brotli copy to a browser that takes brotli, with its type, Vary and a year's immutable caching", async () => {
    const r = await get("/assets/root-AbC123.js", { "accept-encoding": "gzip, deflate, br, zstd" });
    expect(r.status).toBe(200);
    expect(r.headers["content-encoding"]).toBe("br");
    expect(r.headers["content-type"]).toMatch(/^(application|text)\/javascript/);
    expect(r.headers.vary).toMatch(/Accept-Encoding/i);
    expect(r.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(decode(r)).toBe(`${SCRIPT}// br at build\n`);
    expect(r.body.length).toBeLessThan(SCRIPT.length / 4);
  });

  it("sends the gzip copy to one that takes only gzip, and the file itself to one that takes neither", async () => {
    const gz = await get("/assets/root-AbC123.js", { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(decode(gz)).toBe(`${SCRIPT}// gz at build\n`);
    const plain = await get("/assets/root-AbC123.js", { "accept-encoding": "identity" });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });

  it("keeps the public caching of build files for someone signed in", async () => {
    const r = await get("/assets/root-AbC123.js", { "accept-encoding": "br", cookie: `${SESSION_COOKIE}=abc` });
    expect(r.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect((await get("/favicon.svg", { cookie: `${SESSION_COOKIE}=abc` })).headers["cache-control"]).toBe("public, max-age=3600");
  });
});

describe.each([
  ["streamed through the middleware", ""],
  ["a portal page sent whole (sendPage)", "/rendered"],
])("responses made on request, %s", (_how, prefix) => {
  const get = (p: string, headers: Record<string, string> = {}) => getRaw(`${prefix}${p}`, headers);

  it("compresses a page with brotli (or gzip), keeping the security headers", async () => {
    const br = await get("/page", { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toMatch(/Accept-Encoding/i);
    expect(br.headers["content-security-policy"]).toMatch(/script-src 'self' 'nonce-/);
    expect(decode(br)).toBe(PAGE);
    expect(br.body.length).toBeLessThan(PAGE.length / 10);
    const gz = await get("/page", { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(decode(gz)).toBe(PAGE);
  });

  it("leaves a response under 1 KB as it is", async () => {
    const r = await get("/tiny", { "accept-encoding": "br" });
    expect(r.headers["content-encoding"]).toBeUndefined();
    expect(r.body.toString()).toBe("<p>ok</p>");
  });

  it("compresses a signed-in page the site itself asked for, not one another site's page started (BREACH)", async () => {
    const cookie = `${SESSION_COOKIE}=abc`;
    for (const site of ["same-origin", "none"])
      expect((await get("/page", { "accept-encoding": "br", cookie, "sec-fetch-site": site })).headers["content-encoding"]).toBe("br");
    for (const site of ["cross-site", "same-site"]) {
      const r = await get("/page", { "accept-encoding": "br", cookie, "sec-fetch-site": site });
      expect(r.headers["content-encoding"]).toBeUndefined();
      expect(r.body.toString()).toBe(PAGE);
    }
    const bearer = await get("/page", { "accept-encoding": "br", authorization: "Bearer tap_x", "sec-fetch-site": "cross-site" });
    expect(bearer.headers["content-encoding"]).toBeUndefined();
    // Signed out, another site's link (a search result) gets the page compressed: nothing private in it.
    expect((await get("/page", { "accept-encoding": "br", "sec-fetch-site": "cross-site" })).headers["content-encoding"]).toBe("br");
  });
});

describe("the coding a portal page is sent in (encodingFor)", () => {
  it("takes brotli at equal weight, otherwise the heavier of brotli and gzip, never one weighted 0", () => {
    expect(encodingFor("gzip, deflate, br, zstd")).toBe("br");
    expect(encodingFor("gzip;q=1.0, br;q=0.5")).toBe("gzip");
    expect(encodingFor("br;q=0, gzip")).toBe("gzip");
    expect(encodingFor("*")).toBe("br");
    expect(encodingFor("gzip;q=0, br;q=0")).toBeNull();
    expect(encodingFor("identity")).toBeNull();
    expect(encodingFor(undefined)).toBeNull();
  });

  it("sends a HEAD request the headers alone, with the page's length", async () => {
    const r = await new Promise<http.IncomingMessage>((resolve, reject) =>
      http.request(`${base}/rendered/page`, { method: "HEAD", headers: { "accept-encoding": "br" } }, resolve).on("error", reject).end(),
    );
    expect(r.statusCode).toBe(200);
    expect(r.headers["content-encoding"]).toBeUndefined();
    expect(Number(r.headers["content-length"])).toBe(Buffer.byteLength(PAGE));
  });
});
