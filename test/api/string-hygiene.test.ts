import {
  GraphQLScalarType,
  Kind,
  getNamedType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  parse,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLObjectType,
  type OperationDefinitionNode,
} from "graphql";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../api/config.js";
import { getSchema } from "../../api/graphql/schema.js";
import { isUnstorable, unstorableFields } from "../../api/graphql/string-hygiene.js";
import { createApi } from "../../api/server.js";
import { Client, DEMO, errorCode, isSessionBookkeeping, startTestServer, type GqlResponse, type TestServer } from "../harness.js";

/**
 * Issue 13: a NUL or a lone surrogate in any string argument is BAD_USER_INPUT naming the field,
 * never a 500, and nothing is written. The operations are made from the schema, so a new query or
 * mutation is covered without anyone adding it here.
 */

const BAD = { nul: "a\u0000b", surrogate: "a\ud800b" } as const;
type Bad = keyof typeof BAD;
const UUID = "00000000-0000-7000-8000-000000000000";
/** Valid-shaped values of the scalars whose leaves take a bad string (String, ID, custom scalars). */
const DUMMY: Record<string, unknown> = { String: "x", ID: UUID, DateTimeISO: "2026-01-02T03:04:05.000Z", JSON: "x" };
const NON_STRING: Record<string, unknown> = { Int: 1, Float: 1, Boolean: false };

type Path = (string | number)[];
type Leaf = { path: Path; scalar: GraphQLScalarType };

/** Every string-like leaf reachable from an argument's type (optional input fields included; a type inside itself only once). */
function leavesOf(type: GraphQLInputType, path: Path, stack: string[] = []): Leaf[] {
  if (isNonNullType(type)) return leavesOf(type.ofType, path, stack);
  if (isListType(type)) return leavesOf(type.ofType, [...path, 0], stack);
  if (isScalarType(type)) return type.name in NON_STRING ? [] : [{ path, scalar: type }];
  if (isInputObjectType(type)) {
    if (stack.includes(type.name)) return [];
    return Object.values(type.getFields()).flatMap((f) => leavesOf(f.type, [...path, f.name], [...stack, type.name]));
  }
  return [];
}

/**
 * A value of `type`: valid-shaped dummies everywhere, `bad(path)` at the leaves it answers for.
 * Input objects get every field (so every optional string leaf is exercised), lists one element.
 */
function valueOf(type: GraphQLInputType, path: Path, bad: (path: Path, scalar: GraphQLScalarType) => string | undefined, stack: string[] = []): unknown {
  if (isNonNullType(type)) return valueOf(type.ofType, path, bad, stack);
  if (isListType(type)) return [valueOf(type.ofType, [...path, 0], bad, stack)];
  if (isEnumType(type)) return new EnumValue(type.getValues()[0].name);
  if (isScalarType(type)) {
    if (type.name in NON_STRING) return NON_STRING[type.name];
    if (!(type.name in DUMMY)) throw new Error(`Add a valid dummy value for the scalar ${type.name} to DUMMY in this test`);
    return bad(path, type) ?? DUMMY[type.name];
  }
  if (isInputObjectType(type)) {
    const o: Record<string, unknown> = {};
    for (const f of Object.values(type.getFields()))
      if (!stack.includes(type.name) || isNonNullType(f.type)) o[f.name] = valueOf(f.type, [...path, f.name], bad, [...stack, type.name]);
    return o;
  }
  throw new Error(`not an input type: ${String(type)}`);
}

// Enum values are marked while building, so both forms print from one value.
class EnumValue {
  constructor(readonly name: string) {}
}
const asVariable = (v: unknown): unknown =>
  v instanceof EnumValue ? v.name : Array.isArray(v) ? v.map(asVariable) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asVariable(x)])) : v;
const asLiteral = (v: unknown): string =>
  v instanceof EnumValue
    ? v.name
    : Array.isArray(v)
      ? `[${v.map(asLiteral).join(", ")}]`
      : v && typeof v === "object"
        ? `{ ${Object.entries(v).map(([k, x]) => `${k}: ${asLiteral(x)}`).join(", ")} }`
        : JSON.stringify(v); // JSON's string escapes (\u0000 among them) are GraphQL's too

/** How the API names a field in BAD_USER_INPUT: the argument, or the path inside an input object argument. */
function expectedName(path: Path): string {
  const p = [...path];
  while (p.length > 1 && typeof p[p.length - 1] === "number") p.pop();
  if (p.length > 1 && typeof p[1] === "string") p.shift();
  return p.join(".");
}

/** Whether a string literal of this scalar gets past validation (custom scalars may refuse it themselves, as a validation error). */
function literalPassesValidation(scalar: GraphQLScalarType, s: string): boolean {
  try {
    return scalar.parseLiteral({ kind: Kind.STRING, value: s }) !== undefined;
  } catch {
    return false;
  }
}

type RootField = { root: "query" | "mutation"; field: GraphQLField<unknown, unknown>; leaves: Leaf[] };

/** One root field's call: `$v<prefix>_<arg>` variables (or literals), every string leaf `bad` where `pick` says so. */
function call(f: RootField, prefix: string, badString: string, form: "variables" | "literal", pick: (leaf: Leaf) => boolean = () => true) {
  const isBad = (path: Path) => f.leaves.some((l) => pick(l) && l.path.join("\u0001") === path.join("\u0001"));
  const defs: string[] = [];
  const args: string[] = [];
  const variables: Record<string, unknown> = {};
  const names = new Set<string>();
  for (const l of f.leaves) if (pick(l)) names.add(expectedName(l.path));
  for (const a of f.field.args) {
    const value = valueOf(a.type, [a.name], (path) => (isBad(path) ? badString : undefined));
    if (form === "literal") args.push(`${a.name}: ${asLiteral(value)}`);
    else {
      defs.push(`$${prefix}_${a.name}: ${String(a.type)}`);
      args.push(`${a.name}: $${prefix}_${a.name}`);
      variables[`${prefix}_${a.name}`] = asVariable(value);
    }
  }
  const selection = isCompositeType(getNamedType(f.field.type)) ? " { __typename }" : "";
  return { defs, text: `${f.field.name}${args.length ? `(${args.join(", ")})` : ""}${selection}`, variables, names };
}

function operation(root: "query" | "mutation", calls: ReturnType<typeof call>[]) {
  const defs = calls.flatMap((c) => c.defs);
  return {
    query: `${root}${defs.length ? `(${defs.join(", ")})` : ""} { ${calls.map((c) => c.text).join(" ")} }`,
    variables: Object.assign({}, ...calls.map((c) => c.variables)) as Record<string, unknown>,
    names: new Set(calls.flatMap((c) => [...c.names])),
  };
}

async function rootFields(): Promise<RootField[]> {
  const schema = await getSchema();
  const out: RootField[] = [];
  for (const [root, type] of [["query", schema.getQueryType()], ["mutation", schema.getMutationType()]] as const)
    for (const field of Object.values((type as GraphQLObjectType).getFields())) {
      const leaves = field.args.flatMap((a) => leavesOf(a.type, [a.name]));
      if (leaves.length) out.push({ root, field, leaves });
    }
  return out;
}

let srv: TestServer;
let fields: RootField[];
const ROLES = {
  anonymous: undefined,
  applicant: "applicant@demo.tapline.local",
  clerk: DEMO.lakeviewClerk,
  operator: DEMO.lakeviewOperator,
  board: DEMO.lakeviewBoard,
  admin: DEMO.lakeviewAdmin,
  industrialUser: "industry@demo.tapline.local",
} as const;
const clients: [string, Client][] = [];
let before: Record<string, string>;
const seen: GqlResponse[] = [];

/** Row counts of every table, and a checksum of every row outside the session bookkeeping (last-seen times move). */
async function snapshot(): Promise<Record<string, string>> {
  const ds = srv.running.ds;
  const tables: { name: string }[] = await ds.query(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`);
  const parts = tables.map(({ name }) => {
    const q = `"${name.replace(/"/g, '""')}"`;
    return isSessionBookkeeping(name)
      ? `SELECT '${name}' AS t, count(*)::text AS v FROM ${q}`
      : `SELECT '${name}' AS t, count(*)::text || ':' || coalesce(md5(string_agg(r::text, E'\\n' ORDER BY r::text)), '') AS v FROM ${q} r`;
  });
  const rows: { t: string; v: string }[] = await ds.query(parts.join(" UNION ALL "));
  return Object.fromEntries(rows.map((r) => [r.t, r.v]));
}

/** Sends one operation, JSON-encoded (a lone surrogate goes as the escape "\ud800"), and keeps the answer for the 5xx check. */
async function send(c: Client, op: { query: string; variables: Record<string, unknown> }): Promise<GqlResponse> {
  const body = JSON.stringify(op);
  if (isUnstorable(body)) throw new Error("JSON.stringify left a raw NUL or lone surrogate in the body");
  const res = await c.raw(body);
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = { errors: [{ message: text, extensions: { code: `HTTP_${res.status}` } }] };
  }
  const r: GqlResponse = { status: res.status, data: json.data ?? null, errors: json.errors, headers: res.headers };
  seen.push(r);
  return r;
}

/** In batches of `n` at a time (the server's pool is small on PGlite). */
async function inParallel<T>(items: T[], n: number, fn: (t: T) => Promise<void>) {
  const queue = [...items];
  await Promise.all(Array.from({ length: n }, async () => { for (let t = queue.shift(); t !== undefined; t = queue.shift()) await fn(t); }));
}

function expectRefused(r: GqlResponse, names: Set<string>, what: string) {
  expect({ what, status: r.status, code: errorCode(r), n: r.errors?.length }).toEqual({ what, status: 400, code: "BAD_USER_INPUT", n: 1 });
  const got = r.errors![0].extensions!.fields ?? {};
  expect({ what, fields: Object.keys(got).sort() }).toEqual({ what, fields: [...names].sort() });
  for (const m of Object.values(got)) expect(m).toMatch(/cannot be stored/);
}

beforeAll(async () => {
  srv = await startTestServer();
  fields = await rootFields();
  for (const [role, email] of Object.entries(ROLES)) {
    const c = new Client(srv.url);
    if (email) await c.signIn(email);
    clients.push([role, c]);
  }
  before = await snapshot();
});
afterAll(() => srv?.close());

describe("a NUL or a lone surrogate in any argument is BAD_USER_INPUT naming the field, and changes nothing", () => {
  it("finds the operations to try", () => {
    expect(fields.length).toBeGreaterThan(100);
    for (const n of ["signIn", "requestPasswordReset", "createApiToken", "declareMoratorium", "revokeStaffRole"]) expect(fields.map((f) => f.field.name)).toContain(n);
  });

  it("every query and mutation, each string leaf of its arguments, as variables and as literals", async () => {
    // One field per request, so the named fields are exactly that field's; roles take turns.
    const jobs = fields.flatMap((f, i) => {
      const literal = (l: Leaf) => literalPassesValidation(l.scalar, BAD.nul);
      return [
        { f, form: "variables" as const, bad: "nul" as Bad, pick: undefined, n: i },
        { f, form: "variables" as const, bad: "surrogate" as Bad, pick: undefined, n: i + 1 },
        ...(f.leaves.some(literal) ? [{ f, form: "literal" as const, bad: "nul" as Bad, pick: literal, n: i + 2 }] : []),
      ];
    });
    await inParallel(jobs, 4, async ({ f, form, bad, pick, n }) => {
      const [role, c] = clients[n % clients.length];
      const op = operation(f.root, [call(f, "v", BAD[bad], form, pick)]);
      expectRefused(await send(c, op), op.names, `${f.root} ${f.field.name} (${form}, ${bad}, ${role})`);
    });
  });

  it("for every role: all operations at once, a few root fields to a request", async () => {
    const ops: { query: string; variables: Record<string, unknown>; names: Set<string> }[] = [];
    for (const root of ["query", "mutation"] as const) {
      const mine = fields.filter((f) => f.root === root);
      for (let i = 0; i < mine.length; i += 25) for (const bad of Object.keys(BAD) as Bad[]) ops.push(operation(root, mine.slice(i, i + 25).map((f, j) => call(f, `v${j}`, BAD[bad], "variables"))));
    }
    await inParallel(
      clients.flatMap(([role, c]) => ops.map((op, i) => ({ role, c, op, i }))),
      4,
      async ({ role, c, op, i }) => expectRefused(await send(c, op), op.names, `batch ${i} as ${role}`),
    );
  });

  it("an inline literal in the query document (escaped or raw), a lone low surrogate, a bad JSON key, a variable's default", async () => {
    const anon = new Client(srv.url);
    for (const email of ["a\\u0000b", "a\u0000b"]) {
      const r = await send(anon, { query: `mutation { signIn(input: { email: "${email}", password: "x" }) { me { id } } }`, variables: {} });
      expectRefused(r, new Set(["email"]), `literal ${JSON.stringify(email)}`);
    }
    expectRefused(await send(anon, { query: `mutation($i: SignInInput!) { signIn(input: $i) { me { id } } }`, variables: { i: { email: "a\udc00b@example.org", password: "x" } } }), new Set(["email"]), "low surrogate");
    expectRefused(await send(anon, { query: `mutation($e: String! = "x\\u0000") { requestPasswordReset(email: $e) { ok } }`, variables: {} }), new Set(["email"]), "default value");
    const admin = clients.find(([r]) => r === "admin")![1];
    const r = await send(admin, {
      query: `mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { __typename } }`,
      variables: { i: { districtId: UUID, effectiveDate: "2030-01-01", reason: "x", changes: [{ key: "x", value: { ["a\u0000"]: 1 } }] } },
    });
    expectRefused(r, new Set(["changes.0.value"]), "JSON key");
    // Nesting deep enough to overflow a recursive walk (JSON.parse takes it) is still a clean refusal.
    const deep = 100_000;
    const res = await admin.raw(
      `{"query":"mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { __typename } }","variables":{"i":{"districtId":"${UUID}","effectiveDate":"2030-01-01","reason":"x","changes":[{"key":"x","value":${"[".repeat(deep)}"\\u0000"${"]".repeat(deep)}}]}}}`,
    );
    const body: any = await res.json();
    expectRefused({ status: res.status, data: null, errors: body.errors, headers: res.headers }, new Set(["changes.0.value"]), "deep JSON");
  });

  it("the portal's in-process calls (gql()) are refused the same way", async () => {
    const config = loadConfig({ NODE_ENV: "test", SESSION_SECRET: "test-secret-test-secret-test-secret-0123", TAPLINE_DATA_DIR: srv.db.dataDir, PUBLIC_URL: "http://tapline.test" });
    const api = await createApi({ ds: srv.running.ds, config, log: pino({ level: "silent" }) });
    try {
      const r = await api.execute(new Request("http://tapline.test/sign-in"), `mutation($i: SignInInput!) { signIn(input: $i) { me { id } } }`, { i: { email: "a\u0000b@example.org", password: "x" } });
      expect(r.errors?.[0]?.extensions).toEqual({ code: "BAD_USER_INPUT", fields: { email: expect.stringMatching(/cannot be stored/) } });
    } finally {
      await api.apollo.stop();
    }
  });

  it("a NUL outside strings in the document is a parse error; good strings (an emoji's surrogate pair) pass", async () => {
    const anon = new Client(srv.url);
    const r = await send(anon, { query: `{ __typename \u0000 }`, variables: {} });
    expect([r.status, errorCode(r)]).toEqual([400, "GRAPHQL_PARSE_FAILED"]);
    const ok = await send(anon, { query: `query($s: String!) { district(slug: $s) { id } }`, variables: { s: "lakeview 😀 é" } });
    expect([ok.status, errorCode(ok)]).toEqual([200, "NOT_FOUND"]); // reached the resolver
  });

  it("the routes outside GraphQL answer 4xx to a NUL or a malformed id", async () => {
    const [, applicant] = clients.find(([r]) => r === "applicant")!;
    for (const path of ["/documents/%00", "/documents/a%00b", "/documents/%ED%A0%80", "/documents/%E0%A4%A", "/permits/%00/permit.pdf", "/permits/%ED%A0%80/permit.pdf"]) {
      const res = await fetch(`${srv.url}${path}`, { headers: { cookie: applicant.cookieHeader } });
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(res.status, path).toBeLessThan(500);
    }
    const hook = await fetch(`${srv.url}/webhooks/stripe`, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=x" }, body: `{"id":"evt_\\u0000"}` });
    expect(hook.status).toBeGreaterThanOrEqual(400);
    expect(hook.status).toBeLessThan(500);
  });

  it("no answer was a 5xx or an internal error, and nothing was written", async () => {
    expect(seen.length).toBeGreaterThan(300);
    expect(seen.filter((r) => r.status >= 500 || r.errors?.some((e) => e.extensions?.code === "INTERNAL_SERVER_ERROR"))).toEqual([]);
    expect(await snapshot()).toEqual(before);
  });
});

describe("unstorableFields (the walk the plugin makes)", () => {
  const run = (doc: string, variables?: Record<string, unknown>) => {
    const d = parse(doc);
    return unstorableFields(d, d.definitions.find((x) => x.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode, variables).sort();
  };

  it("names arguments, input fields, list items and fragment arguments; passes good text", () => {
    expect(isUnstorable("ok 😀")).toBe(false);
    expect(["\u0000", "\ud800", "\udc00", "x\ud83dy", "\ude00😀"].map(isUnstorable)).toEqual([true, true, true, true, true]);
    expect(run(`mutation { signIn(input: { email: "a\\u0000b", password: "ok" }) { __typename } }`)).toEqual(["email"]);
    expect(run(`query($id: ID!, $ids: [ID!]) { a(id: $id, ids: $ids) }`, { id: "\ud800", ids: ["ok", "\u0000"] })).toEqual(["id", "ids"]);
    expect(run(`mutation($i: X) { m(input: $i) }`, { i: { lines: [{ note: "ok" }, { note: "\u0000" }], tags: ["\u0000"] } })).toEqual(["lines.1.note", "tags"]);
    expect(run(`query { ...F } fragment F on Query { a(b: "\\u0000") }`)).toEqual(["b"]);
    expect(run(`query($s: String = "\\u0000") { a(b: $s) }`)).toEqual(["b"]);
    expect(run(`query($s: String = "\\u0000") { a(b: $s) }`, { s: "fine" })).toEqual([]);
    expect(run(`query($j: JSON) { a(value: $j) }`, { j: { "k\u0000": 1 } })).toEqual(["value"]);
    expect(run(`query($s: String) { a(b: $s, c: "ok") }`, { s: "ok 😀" })).toEqual([]);
  });
});
