import { pino } from "pino";
import { startTapline, type Running } from "../api/app.js";
import { loadConfig, type Config } from "../api/config.js";
import { DEMO_PASSWORD } from "../api/db/demo.js";
import { freshDatabase, type TestDatabase } from "./db.js";

export type TestServer = { url: string; running: Running; db: TestDatabase; config: Config; close(): Promise<void> };

/**
 * The real server (API, and the portal when asked) on a fresh database, on a free port. The portal
 * is the build (`portal: true`, browser tests) or rendered by Vite's dev server without HMR
 * (`portal: "vite"`: every page, no build needed, a few seconds to start).
 */
export async function startTestServer(opts: { portal?: boolean | "vite"; env?: Record<string, string> } = {}): Promise<TestServer> {
  const db = await freshDatabase();
  const config = loadConfig({
    NODE_ENV: "test",
    PORT: "0",
    HOST: "127.0.0.1",
    TAPLINE_DATA_DIR: db.dataDir,
    SESSION_SECRET: "test-secret-test-secret-test-secret-0123",
    PUBLIC_URL: "http://tapline.test",
    ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}),
    ...opts.env,
  });
  const running = await startTapline(config, {
    portal: opts.portal === "vite" ? "vite" : opts.portal ? "build" : "none",
    workers: false,
    log: pino({ level: process.env.TEST_LOG ?? "silent" }),
  });
  return {
    url: running.url,
    running,
    db,
    config,
    async close() {
      await running.close();
      await db.drop();
    },
  };
}

export type GqlResponse<T = any> = {
  status: number;
  data: T | null;
  errors?: { message: string; extensions?: { code?: string; fields?: Record<string, string>; [k: string]: unknown } }[];
  headers: Headers;
};

/** An API client over HTTP: keeps the session cookie like a browser, or sends a bearer token. */
export class Client {
  cookies = new Map<string, string>();
  bearer?: string;
  constructor(readonly baseUrl: string) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async raw(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(`${this.baseUrl}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(this.cookies.size ? { cookie: this.cookieHeader } : {}),
        ...(this.bearer ? { authorization: `Bearer ${this.bearer}` } : {}),
        ...headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i);
      const value = pair.slice(i + 1);
      if (!value || /max-age=0/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  async gql<T = any>(query: string, variables?: Record<string, unknown>): Promise<GqlResponse<T>> {
    const res = await this.raw({ query, variables });
    const json: any = await res.json();
    return { status: res.status, data: json.data ?? null, errors: json.errors, headers: res.headers };
  }

  /** Fails the test with the API's message when the operation errs. */
  async ok<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
    const r = await this.gql<T>(query, variables);
    if (r.errors?.length) throw new Error(`GraphQL error: ${JSON.stringify(r.errors)}`);
    return r.data as T;
  }

  async signIn(email: string, password = DEMO_PASSWORD): Promise<void> {
    await this.ok(`mutation($i: SignInInput!) { signIn(input: $i) { me { id } } }`, { i: { email, password } });
  }

  /** Creates the account, then signs in (sign-up signs no one in: it answers alike for an address that has an account). */
  async signUp(email: string, displayName = "Pat Resident", password = "correct horse battery staple"): Promise<string> {
    await this.ok(`mutation($i: SignUpInput!) { signUp(input: $i) { ok } }`, { i: { email, displayName, password } });
    const d = await this.ok(`mutation($i: SignInInput!) { signIn(input: $i) { me { id } } }`, { i: { email, password } });
    return d.signIn.me.id;
  }
}

/** A client signed in as `email` (a demo account's password unless given). */
export async function signedInAs(url: string, email: string, password?: string): Promise<Client> {
  const c = new Client(url);
  await c.signIn(email, password);
  return c;
}

export const DEMO = {
  applicant: "applicant@demo.tapline.local",
  lakeviewClerk: "clerk@lakeview.demo.tapline.local",
  lakeviewOperator: "operator@lakeview.demo.tapline.local",
  lakeviewBoard: "board@lakeview.demo.tapline.local",
  lakeviewAdmin: "admin@lakeview.demo.tapline.local",
  huronAdmin: "admin@huron.demo.tapline.local",
  huronClerk: "clerk@huron.demo.tapline.local",
  huronOperator: "operator@huron.demo.tapline.local",
};

export function errorCode(r: GqlResponse): string | undefined {
  return r.errors?.[0]?.extensions?.code as string | undefined;
}

/**
 * Statement counts leave out the session bookkeeping (the viewer cache's refresh and the last-seen
 * update), which come every few seconds whatever the operation, so a slow run does not add one.
 */
export const isSessionBookkeeping = (sql: unknown): boolean => /\b(user_session|api_token)\b/.test(String(sql));

/**
 * The SQL statements `fn` sends through the data source, session bookkeeping aside: for tests
 * that a request takes a fixed number of statements whatever the number of rows.
 */
export async function countStatements(ds: { logger: unknown }, fn: () => Promise<unknown>): Promise<number> {
  const logger = ds.logger as { logQuery: (...args: unknown[]) => unknown };
  const original = logger.logQuery;
  let count = 0;
  logger.logQuery = function (this: unknown, ...args: unknown[]) {
    if (!isSessionBookkeeping(args[0])) count++;
    return original.apply(this, args);
  };
  try {
    await fn();
    return count;
  } finally {
    logger.logQuery = original;
  }
}
