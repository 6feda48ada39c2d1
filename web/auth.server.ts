import { redirect, type LoaderFunctionArgs } from "@remix-run/node";
import { cookieHeaders, gql, statusOf } from "./graphql.server";

/**
 * Runs a signed-in page's query. Signed out (or session ended) sends the person to sign in and back;
 * a refusal is a 4xx page (statusOf); only what is unexpected a 500, with the API's message.
 */
export async function requireSignedIn<T = any>({ request, context }: Pick<LoaderFunctionArgs, "request" | "context">, query: string, variables?: Record<string, unknown>): Promise<T> {
  const r = await gql<T>(context, request, query, variables);
  if (r.ok) return r.data;
  if (r.error.code === "UNAUTHENTICATED") {
    const url = new URL(request.url);
    throw redirect(`/sign-in?redirectTo=${encodeURIComponent(url.pathname + url.search)}`, { headers: cookieHeaders(r) });
  }
  throw new Response(r.error.message, { status: statusOf(r.error.code) });
}
