import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { requireSignedIn } from "~/auth.server";
import { FEE_KEYS, FORM_PRIVATE_QUERY, FORM_PUBLIC_QUERY, type PermitFormData } from "~/components/permit-form";
import { requireCsrf } from "~/csrf.server";
import { cookieHeaders, gql, statusOf, type GqlResult } from "~/graphql.server";

type FormPublic = Pick<PermitFormData, "district" | "lateralApplicationRequirements">;
type FormPrivate = Pick<PermitFormData, "approvedContractors" | "moratoria" | "myDocuments" | "documentUploadPolicy">;

/**
 * The application form's data for a district (less the permit): its public part (the district,
 * its fees, what an application carries) from the public answers' cache, the rest asked for at the
 * same time (someone signed out is sent to sign in, as before). Of the rulebook the page gets only
 * the fee entries it shows.
 */
export async function loadPermitForm(args: Pick<LoaderFunctionArgs, "request" | "context">, slug: string): Promise<Omit<PermitFormData, "permit">> {
  const [own, shared] = await Promise.all([
    requireSignedIn<FormPrivate>(args, FORM_PRIVATE_QUERY, { slug }),
    gql<FormPublic>(args.context, args.request, FORM_PUBLIC_QUERY, { slug }),
  ]);
  if (!shared.ok) throw new Response(shared.error.message, { status: statusOf(shared.error.code) });
  const { district, lateralApplicationRequirements } = shared.data;
  return {
    district: { ...district, rulebook: { entries: district.rulebook.entries.filter((e) => FEE_KEYS.includes(e.key)) } },
    lateralApplicationRequirements,
    ...own,
  };
}

/** The application form's fields as the page posts them (also what it shows again after an error). */
export type PermitFormValues = Record<string, string> & { documentIds: string };
export type PermitActionData = { error: string; fields: Record<string, string>; values: PermitFormValues; id: string | null };

const TEXT = ["districtId", "permitClass", "buildingUse", "workKind", "streetNumber", "street", "city", "zip", "taxParcel", "ownerName", "agentName", "contractorId", "workDoneBy"];
// GraphQL's Int stops here; a larger figure is sent as this one, so the API answers with its own limit.
const INT_MAX = 2_147_483_647;

/** The API names the plans `documentIds` and a new upload `content`; on the page both are the plans fieldset. */
function pageFields(fields: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) out[/^(content|contentBase64|filename|documentIds|newPlans)\b/.test(k) ? "plans" : k] = v;
  return out;
}

/**
 * Saves the application (a new one when there is no id) and, when asked, submits it. Plans chosen
 * from the person's documents and a newly uploaded file are attached. Every step is a GraphQL
 * operation; the fees are computed by the API on submission.
 */
export async function savePermitForm({ request, context }: Pick<ActionFunctionArgs, "request" | "context">, existingId: string | null) {
  await requireCsrf(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "save");
  const id = existingId ?? (String(form.get("id") ?? "") || null);
  const values: PermitFormValues = { documentIds: form.getAll("documentIds").map(String).join(",") };
  for (const k of TEXT) values[k] = String(form.get(k) ?? "").trim();
  values.floorAreaSqft = String(form.get("floorAreaSqft") ?? "").trim();
  values.asBuiltSheets = String(form.get("asBuiltSheets") ?? "").trim();
  const results: GqlResult<any>[] = [];
  const fail = (error: string, fields: Record<string, string>, permitId: string | null = id) =>
    Response.json({ error, fields: pageFields(fields), values, id: permitId } satisfies PermitActionData, { status: 400, headers: cookieHeaders(...results) });
  const signIn = () => redirect(`/sign-in?redirectTo=${encodeURIComponent(new URL(request.url).pathname)}`, { headers: cookieHeaders(...results) });

  const whole = (name: string, label: string): number | null | string => {
    const v = values[name];
    if (!v) return null;
    if (!/^-?\d+$/.test(v.replace(/,/g, ""))) return `Enter the ${label} as a whole number.`;
    return Math.min(Number(v.replace(/,/g, "")), INT_MAX);
  };
  const floor = whole("floorAreaSqft", "floor area in square feet");
  const sheets = whole("asBuiltSheets", "number of sheets");
  const local: Record<string, string> = {};
  if (typeof floor === "string") local.floorAreaSqft = floor;
  if (typeof sheets === "string") local.asBuiltSheets = sheets;
  // A figure that is not a whole number is left out of the save, so the API checks every other field
  // in the same round; its message then joins the API's.

  const documentIds = form.getAll("documentIds").map(String).filter(Boolean);
  const file = form.get("file");
  const newPlans: { filename: string; contentBase64: string }[] = [];
  if (file && typeof file !== "string" && file.size > 0) {
    const policy = await gql<{ documentUploadPolicy: { maxBytes: number; maxSize: string } }>(context, request, `query { documentUploadPolicy { maxBytes maxSize } }`);
    results.push(policy);
    if (!policy.ok) return policy.error.code === "UNAUTHENTICATED" ? signIn() : fail(policy.error.message, {});
    if (file.size > policy.data.documentUploadPolicy.maxBytes) {
      const message = `The file is larger than the ${policy.data.documentUploadPolicy.maxSize} limit. Upload a smaller file.`;
      return fail(message, { plans: message });
    }
    // Stored with the draft in one step: a refused form keeps no stray upload (the person picks the file again).
    newPlans.push({ filename: file.name, contentBase64: Buffer.from(await file.arrayBuffer()).toString("base64") });
  }

  const input: Record<string, unknown> = {
    ...(id ? { id } : { districtId: values.districtId || null }),
    permitClass: values.permitClass || null,
    buildingUse: values.buildingUse || null,
    workKind: values.workKind || null,
    floorAreaSqft: typeof floor === "string" ? null : floor,
    asBuiltSheets: typeof sheets === "string" ? null : sheets,
    streetNumber: values.streetNumber,
    street: values.street,
    city: values.city,
    zip: values.zip,
    taxParcel: values.taxParcel,
    ownerName: values.ownerName,
    agentName: values.agentName,
    contractorId: values.contractorId || null,
    workDoneBy: values.workDoneBy || null,
    documentIds,
    newPlans,
  };
  const saved = await gql<{ saveLateralPermitDraft: { id: string } }>(context, request, `mutation SavePermit($i: LateralPermitDraftInput!) { saveLateralPermitDraft(input: $i) { id } }`, { i: input });
  results.push(saved);
  if (!saved.ok) {
    if (saved.error.code === "UNAUTHENTICATED") return signIn();
    const again: Record<string, string> = newPlans.length ? { plans: "Choose the plan file again: nothing was saved, so the upload was not kept." } : {};
    return fail(saved.error.message, { ...again, ...saved.error.fields, ...local });
  }
  const permitId = saved.data.saveLateralPermitDraft.id;
  if (Object.keys(local).length) return fail("Your draft is saved without the figures below. Please correct the highlighted fields.", local, permitId);
  if (intent !== "submit") return redirect(`/permits/${permitId}/edit?saved=1`, { headers: cookieHeaders(...results) });

  const submitted = await gql(context, request, `mutation SubmitPermit($id: ID!) { submitLateralPermit(id: $id) { id } }`, { id: permitId });
  results.push(submitted);
  if (!submitted.ok) {
    if (submitted.error.code === "UNAUTHENTICATED") return signIn();
    // The draft is saved; the page keeps its id so the next post updates it.
    return fail(`Your draft is saved, but it cannot be submitted yet. ${submitted.error.message}`, submitted.error.fields, permitId);
  }
  return redirect(`/permits/${permitId}?submitted=1`, { headers: cookieHeaders(...results) });
}
