import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireSignedIn } from "~/auth.server";

export type StaffDistrict = { id: string; slug: string; name: string; timeZone: string; roles: string[] };
export type StaffInfo = { districts: StaffDistrict[] };

const Q = `query StaffViewer { me { staffRoles { role districtId } } districts { id slug name timeZone } }`;
const ROLE_ORDER = ["ADMIN", "CLERK", "OPERATOR", "BOARD"];

/**
 * The districts where the signed-in person holds staff roles, with those roles. Signed out: to sign in;
 * no staff role (or none of `anyOf`): a 403 page. The API checks every call again.
 */
export async function requireStaff(args: Pick<LoaderFunctionArgs, "request" | "context">, anyOf?: string[]): Promise<StaffInfo> {
  const data = await requireSignedIn<{ me: { staffRoles: { role: string; districtId: string }[] }; districts: Omit<StaffDistrict, "roles">[] }>(
    args,
    Q
  );
  const districts = data.districts
    .map((d) => ({
      ...d,
      roles: data.me.staffRoles
        .filter((r) => r.districtId === d.id)
        .map((r) => r.role)
        .sort((a, b) => ROLE_ORDER.indexOf(a) - ROLE_ORDER.indexOf(b)),
    }))
    .filter((d) => d.roles.length > 0);
  if (!districts.length) throw new Response("This area is for district staff. Your account holds no staff role.", { status: 403 });
  if (anyOf) {
    const allowed = districts.filter((d) => d.roles.some((r) => anyOf.includes(r)));
    if (!allowed.length)
      throw new Response(`This page is for the ${anyOf.map((r) => r.toLowerCase()).join(" or ")} of a district. You do not hold that role.`, {
        status: 403,
      });
    return { districts: allowed };
  }
  return { districts };
}
