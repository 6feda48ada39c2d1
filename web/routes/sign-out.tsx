import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/react";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql } from "~/graphql.server";

export const loader = () => redirect("/");

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCsrf(context, request);
  const r = await gql(context, request, `mutation { signOut { ok } }`);
  return redirect("/?signedOut=1", { headers: cookieHeaders(r) });
}
