import { InMemoryLRUCache } from "@apollo/utils.keyvaluecache";
import { DirectiveLocation, GraphQLBoolean, GraphQLDirective, GraphQLEnumType, GraphQLInt } from "graphql";

/**
 * Public data (districts, rulebooks) is marked `@cacheControl(maxAge: 60)` on its types; a query
 * made only of such fields is answered from this cache for up to a minute, and carries
 * `Cache-Control: max-age=60, public`. Anything signed-in has maxAge 0 and is never cached.
 * A type that gains a private field must not carry the directive.
 */
export const PUBLIC_MAX_AGE = 60;
export const CACHE_PUBLIC = `@cacheControl(maxAge: ${PUBLIC_MAX_AGE})`;

export const publicResponseCache = new InMemoryLRUCache<string>({ maxSize: 32 * 1024 * 1024 });

/** Called after a change to public data, so this instance answers fresh at once (others within a minute). */
export async function clearPublicCache(): Promise<void> {
  await publicResponseCache.clear();
}

const CacheControlScope = new GraphQLEnumType({ name: "CacheControlScope", values: { PUBLIC: {}, PRIVATE: {} } });

export const cacheControlDirective = new GraphQLDirective({
  name: "cacheControl",
  locations: [DirectiveLocation.FIELD_DEFINITION, DirectiveLocation.OBJECT, DirectiveLocation.INTERFACE, DirectiveLocation.UNION],
  args: { maxAge: { type: GraphQLInt }, scope: { type: CacheControlScope }, inheritMaxAge: { type: GraphQLBoolean } },
});
