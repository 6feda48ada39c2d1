import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary } from "~/components/fields";
import { SuccessAlert } from "~/components/forms";
import { PERMIT_FORM_FIELDS, PermitForm, type PermitFormData } from "~/components/permit-form";
import { loadPermitForm, savePermitForm, type PermitActionData } from "~/components/permit-form.server";

/** The form's labels (web/components/permit-form.tsx). */
export { LABELS } from "~/components/permit-form";

export const meta: MetaFunction = () => [{ title: "Lateral permit application | Tapline" }];

type Permit = NonNullable<PermitFormData["permit"]> & { district: { slug: string; name: string } };

/** Resume a draft, or make the changes the District Operator asked for. */
export async function loader(args: LoaderFunctionArgs) {
  const { lateralPermit } = await requireSignedIn<{ lateralPermit: Permit & { viewerIsApplicant: boolean } }>(
    args,
    `query EditPermit($id: ID!) { lateralPermit(id: $id) { ${PERMIT_FORM_FIELDS} viewerIsApplicant district { slug name } } }`,
    { id: args.params.id },
  );
  if (!lateralPermit.viewerIsApplicant || !["DRAFT", "CHANGES_REQUESTED"].includes(lateralPermit.status)) throw redirect(`/permits/${lateralPermit.id}`);
  const form = await loadPermitForm(args, lateralPermit.district.slug);
  return { ...form, permit: lateralPermit } satisfies PermitFormData;
}

export async function action(args: ActionFunctionArgs) {
  return savePermitForm(args, args.params.id!);
}

export default function EditPermit() {
  const data = useLoaderData<typeof loader>() as PermitFormData;
  const a = useActionData<PermitActionData>();
  const [params] = useSearchParams();
  return (
    <>
      <h1>{data.permit?.status === "CHANGES_REQUESTED" ? "Change your application" : "Your application (draft)"}</h1>
      <p className="usa-intro">Building lateral permit, {data.district.name}</p>
      {params.get("saved") && !a && <SuccessAlert>Your draft is saved. You can come back to it from My applications.</SuccessAlert>}
      <PermitForm data={data} action={a} />
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;
