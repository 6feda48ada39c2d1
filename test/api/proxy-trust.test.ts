import { afterAll, describe, expect, it } from "vitest";
import { Client, errorCode, startTestServer, type TestServer } from "../harness.js";

/**
 * The per-address sign-in limit counts the client's address: the one the trusted proxies
 * (TRUST_PROXY) name in X-Forwarded-For, else the connection's. The tests connect from 127.0.0.1,
 * playing the proxy; each attempt is for a different unknown email, so only the address limit counts.
 */

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});
async function serverWith(trustProxy: string): Promise<TestServer> {
  const srv = await startTestServer({ env: { TRUST_PROXY: trustProxy } });
  servers.push(srv);
  return srv;
}

let n = 0;
/** One wrong sign-in with this X-Forwarded-For (none when null); the error code it gets. */
async function attempt(srv: TestServer, forwardedFor: string | null): Promise<string | undefined> {
  const res = await new Client(srv.url).raw(
    { query: `mutation($i: SignInInput!) { signIn(input: $i) { me { id } } }`, variables: { i: { email: `nobody-${++n}@example.org`, password: "not the password" } } },
    forwardedFor === null ? {} : { "x-forwarded-for": forwardedFor },
  );
  const body: any = await res.json();
  return body.errors?.[0]?.extensions?.code;
}

/** Wrong sign-ins until the limit answers (each with the header `forwardedFor(i)` gives); how many were checked. */
async function untilLimited(srv: TestServer, forwardedFor: (i: number) => string | null): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const code = await attempt(srv, forwardedFor(i));
    if (code === "TOO_MANY_REQUESTS") return i;
    expect(code).toBe("UNAUTHENTICATED");
  }
  throw new Error("200 wrong sign-ins from one address and no limit");
}

const rand = () => `198.51.100.${1 + Math.floor(Math.random() * 250)}`;

describe("the per-address sign-in limit behind proxies (TRUST_PROXY)", () => {
  for (const setting of ["127.0.0.1", "1", "loopback, uniquelocal"]) {
    it(`TRUST_PROXY=${setting}: clients the proxy names are limited separately, and one cannot dodge by adding its own X-Forwarded-For`, async () => {
      const srv = await serverWith(setting);
      // The proxy appends the address it saw; what the client sent stays on the left and is not believed.
      const limit = await untilLimited(srv, () => `${rand()}, 203.0.113.10`);
      expect(limit).toBeGreaterThan(5);
      expect(await attempt(srv, `${rand()}, 203.0.113.10`)).toBe("TOO_MANY_REQUESTS");
      expect(await attempt(srv, "203.0.113.10")).toBe("TOO_MANY_REQUESTS");
      // Another client behind the same proxy is not locked out by the first.
      expect(await attempt(srv, "203.0.113.20")).toBe("UNAUTHENTICATED");
      expect(await attempt(srv, `203.0.113.10, 203.0.113.20`)).toBe("UNAUTHENTICATED");
    });
  }

  it("TRUST_PROXY=0: X-Forwarded-For is ignored, so a made-up one gets past nothing", async () => {
    const srv = await serverWith("0");
    const limit = await untilLimited(srv, () => rand());
    expect(limit).toBeGreaterThan(5);
    // Every address was different, and none of them counted: all the attempts were the connection's.
    expect(await attempt(srv, "203.0.113.20")).toBe("TOO_MANY_REQUESTS");
    expect(await attempt(srv, null)).toBe("TOO_MANY_REQUESTS");
  });

  it("TRUST_PROXY=10.9.9.9 (a proxy elsewhere): a client on this machine is not that proxy, and its header is ignored", async () => {
    const srv = await serverWith("10.9.9.9");
    await untilLimited(srv, () => rand());
    expect(await attempt(srv, "203.0.113.20")).toBe("TOO_MANY_REQUESTS");
  });
});
