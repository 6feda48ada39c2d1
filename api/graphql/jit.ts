import type { GatewayExecutor, GatewayInterface } from "@apollo/server-gateway-interface";
import { execute, GraphQLError, printSchema, type DocumentNode, type ExecutionResult, type GraphQLSchema } from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";

/**
 * Operations executed by graphql-jit: an operation's document asked for again is compiled once into
 * a function that resolves its fields (Apollo keeps the parsed document of a query it has seen, so
 * the same object comes back for the same text), instead of graphql-js walking the document and the
 * schema for every field of every request. On the owner's accounts page (about 150 fields) a request
 * took a fifth less CPU in Apollo (docs/benchmarks.md, 2026-12-08; issues 14 and 20). Apollo's
 * pipeline (parse, validation, plugins, errors) is unchanged: this is the one executor Apollo Server
 * lets an application bring, its gateway interface, with the application's own schema.
 *
 * A document's first run, and a document graphql-jit cannot compile, are executed by graphql-js as
 * before: compiling costs more than one execution, and a client sending a new document on every
 * request (nothing the portal does) should not make the server compile each.
 */
export function jitExecution(schema: GraphQLSchema): GatewayInterface {
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | "once" | "not compiled">>();
  function compiledFor(document: DocumentNode, operationName: string | undefined): CompiledQuery | null {
    let byName = compiled.get(document);
    if (!byName) compiled.set(document, (byName = new Map()));
    const key = operationName ?? "";
    const known = byName.get(key);
    if (known === undefined) byName.set(key, "once");
    if (known === undefined || known === "not compiled") return null;
    if (known !== "once") return known;
    const made = compileQuery(schema, document, operationName);
    byName.set(key, isCompiledQuery(made) ? made : "not compiled");
    return isCompiledQuery(made) ? made : null;
  }
  const executor: GatewayExecutor = async ({ document, request, context }) => {
    const operationName = request.operationName ?? undefined;
    const query = compiledFor(document, operationName);
    const byGraphqlJs = () => execute({ schema, document, contextValue: context, variableValues: request.variables, operationName });
    let result = query ? await query.query(undefined, context, request.variables ?? {}) : await byGraphqlJs();
    // No data: the request's variables were refused before anything resolved. graphql-js says why
    // with the variable's node, by which Apollo answers 400 BAD_USER_INPUT, as it did before.
    if (query && result.data === undefined) result = await byGraphqlJs();
    else if (query && result.errors) (result as { errors: readonly GraphQLError[] }).errors = result.errors.map(asGraphQLError);
    return result as ExecutionResult as Awaited<ReturnType<GatewayExecutor>>;
  };
  return {
    async load() {
      return { executor };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: printSchema(schema) });
      return () => {};
    },
    async stop() {},
  };
}

/**
 * graphql-jit's errors as graphql-js makes them: its own error object leaves `extensions` undefined
 * when the resolver's error has none, where Apollo's error formatting (and ours) reads
 * `extensions.code`; the message, path, locations and original error are kept.
 */
function asGraphQLError(e: GraphQLError): GraphQLError {
  const made = new GraphQLError(e.message, { path: e.path, originalError: e.originalError ?? undefined, extensions: e.extensions ?? undefined });
  if (e.locations) (made as { locations?: GraphQLError["locations"] }).locations = e.locations;
  return made;
}
