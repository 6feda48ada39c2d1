import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { requireSignedIn } from "~/auth.server";
import { NestedErrorBoundary, SelectField } from "~/components/fields";
import { PermitForm, type PermitFormData } from "~/components/permit-form";
import { loadPermitForm, savePermitForm, type PermitActionData } from "~/components/permit-form.server";

/** The form's labels (web/components/permit-form.tsx). */
export { LABELS } from "~/components/permit-form";

export const meta: MetaFunction = () => [{ title: "Connect to the public sewer | Tapline" }];

type Districts = { districts: { id: string; slug: string; name: string }[] };
type Data = { step: "district"; districts: Districts["districts"] } | ({ step: "form" } & PermitFormData);

/** Step 1 chooses the district (a plain GET, so no JavaScript is needed); step 2 is the application. */
export async function loader(args: LoaderFunctionArgs) {
  const slug = new URL(args.request.url).searchParams.get("district");
  if (!slug) {
    const { districts } = await requireSignedIn<Districts & { me: { id: string } }>(args, `query { me { id } districts { id slug name } }`);
    return { step: "district", districts } satisfies Data;
  }
  return { step: "form", ...(await loadPermitForm(args, slug)), permit: null } satisfies Data;
}

export async function action(args: ActionFunctionArgs) {
  return savePermitForm(args, null);
}

export default function NewPermit() {
  const data = useLoaderData<typeof loader>() as Data;
  const a = useActionData<PermitActionData>();
  return (
    <>
      <h1>Connect to the public sewer</h1>
      <p className="usa-intro">
        Apply for a building lateral permit: no one may connect to, open or change a public sewer without one. You can save the
        application as a draft and come back to it.
      </p>
      {data.step === "district" ? (
        <Form method="get" className="usa-form">
          <SelectField
            name="district"
            label="Sewer district of the property"
            options={[{ value: "", label: "Choose the district" }, ...data.districts.map((d) => ({ value: d.slug, label: d.name }))]}
            required
          />
          <button className="usa-button" type="submit">
            Continue
          </button>
        </Form>
      ) : (
        <>
          <p>
            District: <strong>{data.district.name}</strong>
          </p>
          <PermitForm data={data} action={a} />
        </>
      )}
    </>
  );
}

export const ErrorBoundary = NestedErrorBoundary;
