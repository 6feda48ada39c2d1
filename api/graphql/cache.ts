import { InMemoryLRUCache } from "@apollo/utils.keyvaluecache";
import type { ApolloServerPlugin, BaseContext, GraphQLRequestContext } from "@apollo/server";
import { ApolloServerPluginCacheControl } from "@apollo/server/plugin/cacheControl";
import {
  DirectiveLocation,
  getNamedType,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLEnumType,
  GraphQLInt,
  isCompositeType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { onInvalidation } from "../common/invalidation.js";

/**
 * Public data (districts, rulebooks) is marked `@cacheControl(maxAge: 60)` on its types; a query
 * made only of such fields is answered from this cache for up to a minute, and carries
 * `Cache-Control: max-age=60, public`. Anything signed-in has maxAge 0 and is never cached.
 * A type that gains a private field must not carry the directive.
 */
export const PUBLIC_MAX_AGE = 60;
export const CACHE_PUBLIC = `@cacheControl(maxAge: ${PUBLIC_MAX_AGE})`;

export const publicResponseCache = new InMemoryLRUCache<string>({ maxSize: 32 * 1024 * 1024 });

/**
 * The portal's in-process calls (`gql()`, web/graphql.server.ts) of public-only operations: the
 * answer itself, kept as long as the response cache above keeps it (its maxAge) and cleared with
 * it, so a public page's data skips Apollo's whole request pipeline (context, hashing, the cached
 * string's JSON.parse) while it is fresh. Answers are frozen: loaders share them.
 */
type PortalAnswer = { data: unknown; expires: number };
const portalAnswers = new Map<string, PortalAnswer>();
const PORTAL_ANSWERS_MAX = 500;

export const portalAnswerKey = (query: string, variables: Record<string, unknown> | undefined) => `${query}\u0000${variables ? JSON.stringify(variables) : ""}`;

export function cachedPortalAnswer(key: string): unknown {
  const hit = portalAnswers.get(key);
  if (!hit) return undefined;
  if (hit.expires > Date.now()) return hit.data;
  portalAnswers.delete(key);
  return undefined;
}

/**
 * When a public answer's minute is up, the requests asking for it at that moment (ten at once under
 * load) wait for the first one's reading instead of each running the whole operation again.
 */
const knownPublic = new Set<string>();
const rereading = new Map<string, Promise<unknown>>();

/** The reading under way of a public answer, if any: its data, or undefined when it failed. */
export const portalAnswerBeingRead = (key: string): Promise<unknown> | undefined => rereading.get(key);

/** For a key once answered public: registers this request's reading, which the others wait for; call `done` with its data (undefined when it failed). */
export function readingPortalAnswer(key: string): ((data: unknown) => void) | undefined {
  if (!knownPublic.has(key)) return undefined;
  let done!: (data: unknown) => void;
  const p = new Promise<unknown>((resolve) => (done = resolve));
  rereading.set(key, p);
  return (data) => {
    if (rereading.get(key) === p) rereading.delete(key);
    done(data);
  };
}

/** Keeps an answer whose `Cache-Control` says public with a max-age (what Apollo's cache-control plugin set). */
export function keepPortalAnswer(key: string, data: unknown, cacheControl: string | undefined): void {
  const maxAge = /(?:^|,)\s*public\b/.test(cacheControl ?? "") ? Number(/max-age=(\d+)/.exec(cacheControl!)?.[1] ?? 0) : 0;
  if (maxAge <= 0) return;
  if (portalAnswers.size >= PORTAL_ANSWERS_MAX) portalAnswers.delete(portalAnswers.keys().next().value!);
  if (knownPublic.size >= PORTAL_ANSWERS_MAX) knownPublic.clear();
  knownPublic.add(key);
  portalAnswers.set(key, { data: deepFreeze(data), expires: Date.now() + maxAge * 1000 });
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/**
 * Called after a change to public data, so this instance answers fresh at once; the change's
 * transaction announces it (api/common/invalidation.ts), so every other instance clears it too.
 */
export async function clearPublicCache(): Promise<void> {
  portalAnswers.clear();
  rereading.clear();
  await publicResponseCache.clear();
}
onInvalidation("public", clearPublicCache);

const CacheControlScope = new GraphQLEnumType({ name: "CacheControlScope", values: { PUBLIC: {}, PRIVATE: {} } });

export const cacheControlDirective = new GraphQLDirective({
  name: "cacheControl",
  locations: [DirectiveLocation.FIELD_DEFINITION, DirectiveLocation.OBJECT, DirectiveLocation.INTERFACE, DirectiveLocation.UNION],
  args: { maxAge: { type: GraphQLInt }, scope: { type: CacheControlScope }, inheritMaxAge: { type: GraphQLBoolean } },
});

/**
 * A root field Apollo's cache-control plugin always gives maxAge 0 (so the whole response is
 * uncacheable): one with no `@cacheControl` on the field and, for an object, interface or union,
 * none on its type (the plugin gives a root field without a maxAge the default, 0). Any
 * `@cacheControl` at all there counts as "may be cacheable". Nothing here calls setCacheHint (a
 * resolver of such an operation has no `info.cacheControl`: add a cacheControl directive first).
 */
function privateRootField(type: GraphQLObjectType, name: string): boolean {
  if (name.startsWith("__")) return false;
  const field = type.getFields()[name];
  if (!field || hasCacheControl(field.astNode?.directives)) return false;
  const named = getNamedType(field.type);
  if (isCompositeType(named) && (hasCacheControl(named.astNode?.directives) || named.extensionASTNodes.some((n) => hasCacheControl(n.directives)))) return false;
  return true;
}
const hasCacheControl = (directives: readonly { name: { value: string } }[] | undefined) => !!directives?.some((d) => d.name.value === "cacheControl");

/**
 * Whether an operation certainly has maxAge 0: one of its root fields (not under @skip/@include)
 * is private. Memoized on the parsed operation, which Apollo reuses for a query text it has seen.
 */
const privateOperations = new WeakMap<OperationDefinitionNode, boolean>();
export function isPrivateOperation(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): boolean {
  let known = privateOperations.get(operation);
  if (known === undefined) {
    const root = schema.getRootType(operation.operation);
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const seen = new Set<string>();
    const visit = (set: SelectionSetNode): boolean =>
      set.selections.some((s) => {
        if (s.directives?.length) return false; // @skip / @include: it may not run
        if (s.kind === Kind.FIELD) return privateRootField(root!, s.name.value);
        if (s.kind === Kind.INLINE_FRAGMENT) return visit(s.selectionSet);
        const f = fragments.get(s.name.value);
        if (!f || seen.has(f.name.value)) return false;
        seen.add(f.name.value);
        return visit(f.selectionSet);
      });
    known = !!root && visit(operation.selectionSet);
    privateOperations.set(operation, known);
  }
  return known;
}

/**
 * Apollo's cache-control plugin (defaultMaxAge 0), except for an operation that is certainly
 * uncacheable (a signed-in field at its root): its policy is set to maxAge 0 before execution and
 * the plugin's per-field hook is not installed, so no field of it pays for cache hints. The
 * `Cache-Control: no-store` header is still set by the plugin; public queries are untouched.
 */
export function cacheControlPlugin<TContext extends BaseContext>(): ApolloServerPlugin<TContext> {
  const inner = ApolloServerPluginCacheControl({ defaultMaxAge: 0 }) as ApolloServerPlugin<TContext>;
  return {
    ...inner, // keeps Apollo's internal plugin id, so it does not add a second cache-control plugin
    async requestDidStart(start) {
      const listener = await inner.requestDidStart?.(start);
      if (!listener) return listener;
      let skipFields = false;
      return {
        ...listener,
        async didResolveOperation(rc) {
          await listener.didResolveOperation?.(rc);
          if (rc.operation && isPrivateOperation(rc.schema, rc.document, rc.operation)) {
            rc.overallCachePolicy.restrict({ maxAge: 0 });
            skipFields = true;
          }
        },
        async executionDidStart(rc) {
          return skipFields ? undefined : listener.executionDidStart?.(rc);
        },
      };
    },
  };
}

/** For the response cache: a response already at maxAge 0 before execution was never stored. */
export const mayBeCached = async (rc: GraphQLRequestContext<BaseContext>): Promise<boolean> => rc.overallCachePolicy.maxAge !== 0;
