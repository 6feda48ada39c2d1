import type { GraphQLSchema } from "graphql";
import { Authorized, getMetadataStorage, type AuthChecker } from "type-graphql";
import type { StaffRoleName } from "../accounts/user.entity.js";
import { AppError, forbidden } from "../common/errors.js";
import type { Context } from "./context.js";

/**
 * Every query and mutation declares who may call it (deny by default):
 *   PUBLIC: anyone, signed in or not;  SIGNED_IN: any account;  a staff role: staff holding it in
 *   some district (the service then checks the district of the record).
 */
export type AccessRule = "PUBLIC" | "SIGNED_IN" | StaffRoleName;
export const Access = (...rules: [AccessRule, ...AccessRule[]]) => Authorized(...rules);

const SESSION_MESSAGES: Record<string, string> = {
  TAMPERED: "Your session cookie is not valid. Please sign in again.",
  EXPIRED: "Your session has expired. Please sign in again.",
  REVOKED: "You were signed out. Please sign in again.",
  UNKNOWN: "Your session has ended. Please sign in again.",
};

export const authChecker: AuthChecker<Context, AccessRule> = ({ context }, rules) => {
  if (rules.includes("PUBLIC")) return true;
  const viewer = context.viewer;
  if (!viewer)
    throw new AppError("UNAUTHENTICATED", context.sessionProblem ? SESSION_MESSAGES[context.sessionProblem] : "Please sign in.");
  if (rules.length === 0 || rules.includes("SIGNED_IN")) return true;
  if (viewer.staffRoles.some((r) => rules.includes(r.role))) return true;
  throw forbidden(`This needs the ${rules.join(" or ")} role.`);
};

/** "Query.districts" etc. for every root field that has an access rule. */
export function declaredRootAccess(): Map<string, AccessRule[]> {
  const storage = getMetadataStorage() as any;
  const out = new Map<string, AccessRule[]>();
  const handlers = [
    ...storage.queries.map((q: any) => ({ ...q, parent: "Query" })),
    ...storage.mutations.map((q: any) => ({ ...q, parent: "Mutation" })),
  ];
  for (const h of handlers) {
    const rule = storage.authorizedFields.find((a: any) => a.target === h.target && a.fieldName === h.methodName);
    if (rule) out.set(`${h.parent}.${h.schemaName}`, rule.roles);
  }
  return out;
}

/**
 * Deny by default: a root field with no declared rule gets a resolver that refuses, whatever its
 * own resolver does. Done once on the built schema, so no per-field middleware runs on every field.
 */
export function denyUndeclared(schema: GraphQLSchema, declared: Map<string, AccessRule[]>): GraphQLSchema {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields()))
      if (!declared.has(`${type.name}.${field.name}`))
        field.resolve = () => {
          throw forbidden("This operation has no access rule and is refused.");
        };
  }
  return schema;
}
