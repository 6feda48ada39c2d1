import { unwrapResolverError } from "@apollo/server/errors";
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { AppError } from "../common/errors.js";

/**
 * The one place domain errors become GraphQL errors. Known errors keep their message and code;
 * anything unexpected is logged with a reference id and shown as a generic message.
 */
export function makeFormatError(log: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    let original = unwrapResolverError(error) as any;
    // An AppError a plugin throws before execution (api/graphql/string-hygiene.ts) arrives wrapped, without a path.
    if (original instanceof GraphQLError && original.originalError instanceof AppError) original = original.originalError;
    if (original instanceof AppError) {
      return {
        message: original.message,
        path: formatted.path,
        extensions: { code: original.code, ...(original.fields ? { fields: original.fields } : {}) },
      };
    }
    // class-validator failures on inputs (type-graphql's ArgumentValidationError)
    const validationErrors = original?.extensions?.validationErrors ?? original?.validationErrors;
    if (Array.isArray(validationErrors)) {
      const fields: Record<string, string> = {};
      const walk = (errs: any[], prefix: string) => {
        for (const e of errs) {
          const name = prefix ? `${prefix}.${e.property}` : e.property;
          // class-validator's own messages start with the property's name ("first must not be less
          // than 1"): a person reads the rest, after the form's label.
          if (e.constraints) fields[name] = plainMessage(String(Object.values(e.constraints)[0]), e.property);
          if (e.children?.length) walk(e.children, name);
        }
      };
      walk(validationErrors, "");
      return { message: "Please correct the highlighted fields.", path: formatted.path, extensions: { code: "BAD_USER_INPUT", fields } };
    }
    // An ID that is not a UUID cannot name any record: the same answer as a missing one.
    if (original?.code === "22P02" && /type uuid/.test(String(original?.message)))
      return { message: "That record was not found.", path: formatted.path, extensions: { code: "NOT_FOUND" } };
    const code = formatted.extensions?.code as string | undefined;
    // Errors Apollo and graphql-js raise about the request itself (parse, validation, bad variables, armor limits)
    if (code && code !== "INTERNAL_SERVER_ERROR") {
      return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code } };
    }
    const reference = randomUUID();
    log.error({ err: original, reference, path: formatted.path }, "unexpected error in GraphQL operation");
    return {
      message: `Something went wrong on our side. If it happens again, contact the district office and quote reference ${reference}.`,
      path: formatted.path,
      extensions: { code: "INTERNAL_SERVER_ERROR", reference },
    };
  };
}

/** A validator's message without the property name it starts with: "first must be ..." → "Must be ...". */
export function plainMessage(message: string, property: string): string {
  const rest = message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
  const text = rest.charAt(0).toUpperCase() + rest.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
