import "reflect-metadata";
import path from "node:path";
import type { GraphQLSchema } from "graphql";
import { buildSchema } from "type-graphql";
import { AccountsResolver } from "../accounts/accounts.resolver.js";
import { AuditResolver } from "../audit/audit.resolver.js";
import { DashboardResolver } from "../dashboard/dashboard.js";
import { DistrictsResolver } from "../districts/districts.resolver.js";
import { OrganizationsResolver } from "../organizations/organizations.resolver.js";
import { OutboxResolver } from "../outbox/outbox.resolver.js";
import { authChecker, declaredRootAccess, denyUndeclared } from "./access.js";

export const resolvers = [AccountsResolver, DistrictsResolver, AuditResolver, OutboxResolver, OrganizationsResolver, DashboardResolver] as const;
export const SCHEMA_FILE = path.resolve("schema/schema.graphql");

let built: Promise<GraphQLSchema> | undefined;

/** Built once per process; `emit` writes schema/schema.graphql (npm run schema). */
export function getSchema(opts: { emit?: boolean } = {}): Promise<GraphQLSchema> {
  if (opts.emit) return build(true);
  return (built ??= build(false));
}

async function build(emit: boolean): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: resolvers as any,
    authChecker,
    authMode: "error",
    validate: { forbidUnknownValues: false },
    globalMiddlewares: [denyUndeclared(declaredRootAccess())],
    emitSchemaFile: emit ? { path: SCHEMA_FILE, sortedSchema: true } : false,
  });
}
