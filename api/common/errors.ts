/**
 * The one list of error codes. Services throw AppError (or a domain subclass); api/graphql/errors.ts
 * maps them, in one place, to GraphQL errors with `extensions.code` (and `extensions.fields`).
 */
export const ERROR_CODES = [
  "BAD_USER_INPUT",
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "NOT_FOUND",
  "CONFLICT",
  "DEADLINE_PASSED",
  "PAYMENT_REQUIRED",
  "TOO_MANY_REQUESTS",
  "PAYLOAD_TOO_LARGE",
  "INTERNAL_SERVER_ERROR",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** per-field messages for BAD_USER_INPUT, keyed by input field name */
    readonly fields?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const badInput = (fields: Record<string, string>, message = "Please correct the highlighted fields.") =>
  new AppError("BAD_USER_INPUT", message, fields);
export const notFound = (what = "That record") => new AppError("NOT_FOUND", `${what} was not found.`);
export const forbidden = (message = "You do not have permission to do that.") => new AppError("FORBIDDEN", message);
export const unauthenticated = (message = "Please sign in.") => new AppError("UNAUTHENTICATED", message);
export const conflict = (message: string, fields?: Record<string, string>) => new AppError("CONFLICT", message, fields);
