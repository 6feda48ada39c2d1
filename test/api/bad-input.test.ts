import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../api/config.js";
import { Client, errorCode, startTestServer, type TestServer } from "../harness.js";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const users = async () => (await srv.running.ds.query(`SELECT count(*)::int AS n FROM app_user`))[0].n;

describe("bad requests get a clear error and change nothing", () => {
  it("malformed GraphQL", async () => {
    const r = await new Client(srv.url).gql(`{ districts { slug `);
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("GRAPHQL_PARSE_FAILED");
    expect(r.errors![0].message).toMatch(/Syntax Error/);
  });

  it("unknown fields, without suggesting field names in production-like settings", async () => {
    const r = await new Client(srv.url).gql(`{ districts { slug passwordHash } }`);
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("GRAPHQL_VALIDATION_FAILED");
    expect(r.errors![0].message).toMatch(/Cannot query field "passwordHash"/);
  });

  it("wrong variable types", async () => {
    const n = await users();
    const r = await new Client(srv.url).gql(`mutation($i: SignUpInput!) { signUp(input: $i) { ok } }`, { i: { email: 42, displayName: ["x"], password: true } });
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(await users()).toBe(n);
  });

  it("a body that is not JSON", async () => {
    const res = await new Client(srv.url).raw("{not json", {});
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).errors[0].extensions.code).toBe("BAD_REQUEST");
  });

  it("an oversize request", async () => {
    const n = await users();
    // Larger than the body limit, which leaves room for a base64-encoded upload of UPLOAD_MAX_BYTES.
    const size = loadConfig({ SESSION_SECRET: "x".repeat(32) }).uploadMaxBytes * 2; // the harness's configuration
    const res = await new Client(srv.url).raw({ query: `mutation($i: SignUpInput!) { signUp(input: $i) { ok } }`, variables: { i: { email: "big@example.org", displayName: "x".repeat(size), password: "correct horse battery staple" } } });
    expect(res.status).toBe(413);
    const body = (await res.json()) as any;
    expect(body.errors[0].extensions.code).toBe("PAYLOAD_TOO_LARGE");
    expect(body.errors[0].message).toMatch(/^The request is larger than [\d.]+ MB\.$/);
    expect(await users()).toBe(n);
  });

  it("a query document with too many tokens, though within the body limit", async () => {
    const r = await new Client(srv.url).gql(`{ ${"__typename ".repeat(30_000)}}`);
    expect(r.status).toBe(400);
    expect(errorCode(r)).toBe("GRAPHQL_PARSE_FAILED");
    expect(r.errors![0].message).toMatch(/tokens/);
  });

  it("a query nested too deep, and one with too many aliases", async () => {
    const r1 = await new Client(srv.url).gql(`{ __schema { types { fields { type { ofType { fields { type { ofType { fields { type { ofType { name } } } } } } } } } } } }`);
    expect(r1.status).toBe(400);
    expect(r1.errors![0].message).toMatch(/depth/i);
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: districts { slug }`).join(" ");
    const r2 = await new Client(srv.url).gql(`{ ${aliases} }`);
    expect(r2.status).toBe(400);
    expect(r2.errors![0].message).toMatch(/alias/i);
  });

  it("a cross-site form post (CSRF prevention) never reaches a mutation", async () => {
    const n = await users();
    const res = await fetch(`${srv.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `query=${encodeURIComponent(`mutation { signUp(input: { email: "csrf@example.org", displayName: "x", password: "correct horse battery staple" }) { ok } }`)}`,
    });
    expect(res.status).toBe(400);
    const get = await fetch(`${srv.url}/graphql?query=${encodeURIComponent("{ districts { slug } }")}`);
    expect(get.status).toBe(400);
    expect(await get.text()).toMatch(/CSRF/i);
    expect(await users()).toBe(n);
  });

  it("a malformed bearer token", async () => {
    const c = new Client(srv.url);
    const res = await c.raw({ query: `{ districts { slug } }` }, { authorization: "Bearer nonsense" });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).errors[0].message).toMatch(/Bearer tap_/);
  });

  it("the health check answers 200 while the database answers", async () => {
    const res = await fetch(`${srv.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });
});
