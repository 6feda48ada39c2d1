import { ApolloServer } from "@apollo/server";
import { GraphQLError, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from "graphql";
import { describe, expect, it } from "vitest";
import { jitExecution } from "./jit.js";

class Refused extends Error {}

const Bill = new GraphQLObjectType({
  name: "Bill",
  fields: { number: { type: GraphQLString }, totalCents: { type: GraphQLInt }, refused: { type: GraphQLString, resolve: () => { throw new Refused("not yours"); } } },
});
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: "Query",
    fields: {
      bills: {
        type: new GraphQLList(Bill),
        args: { first: { type: new GraphQLNonNull(GraphQLInt) } },
        resolve: (_s, { first }: { first: number }) => [{ number: "B-1", totalCents: 5000 }, { number: "B-2", totalCents: 7250 }].slice(0, first),
      },
      coded: { type: GraphQLString, resolve: () => { throw new GraphQLError("gone", { extensions: { code: "NOT_FOUND" } }); } },
    },
  }),
});

/** What a client gets: the same through graphql-js and graphql-jit, on a document's first run and after. */
async function answers(server: ApolloServer, query: string, variables: Record<string, unknown>) {
  const res = await server.executeOperation({ query, variables });
  if (res.body.kind !== "single") throw new Error("single results only");
  return { status: res.http.status, ...res.body.singleResult };
}

describe("operations executed by graphql-jit (api/graphql/jit.ts)", () => {
  const formatError = (formatted: any, error: any) => ({ ...formatted, extensions: { ...formatted.extensions, original: error?.originalError?.constructor?.name ?? null } });
  const byJs = new ApolloServer({ schema, formatError });
  const byJit = new ApolloServer({ gateway: jitExecution(schema), formatError });

  it("answers as graphql-js does: data, a resolver's error with its path and original error, a coded error, refused variables", async () => {
    await Promise.all([byJs.start(), byJit.start()]);
    try {
      const cases: [string, Record<string, unknown>][] = [
        [`query($n: Int!) { bills(first: $n) { number totalCents } }`, { n: 1 }],
        [`query($n: Int!) { bills(first: $n) { number refused } }`, { n: 2 }],
        [`{ coded }`, {}],
        [`query($n: Int!) { bills(first: $n) { number } }`, { n: "two" }],
      ];
      for (const [query, variables] of cases) {
        const expected = await answers(byJs, query, variables);
        // The first run (graphql-js), then the compiled document, twice.
        for (let run = 0; run < 3; run++) expect(await answers(byJit, query, variables)).toEqual(expected);
      }
      const refused = await answers(byJit, cases[1][0], cases[1][1]);
      expect(refused.errors?.map((e) => [e.path, e.extensions?.code, e.extensions?.original])).toEqual([
        [["bills", 0, "refused"], "INTERNAL_SERVER_ERROR", "Refused"],
        [["bills", 1, "refused"], "INTERNAL_SERVER_ERROR", "Refused"],
      ]);
      expect((await answers(byJit, cases[2][0], {})).errors?.[0].extensions?.code).toBe("NOT_FOUND");
      const badVariable = await answers(byJit, cases[3][0], cases[3][1]);
      expect([badVariable.status, badVariable.errors?.[0].extensions?.code]).toEqual([400, "BAD_USER_INPUT"]);
    } finally {
      await Promise.all([byJs.stop(), byJit.stop()]);
    }
  });
});
