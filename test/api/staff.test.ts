import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, DEMO, errorCode, startTestServer, type TestServer } from "../harness.js";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const GRANT = `mutation($i: GrantStaffRoleInput!) { grantStaffRole(input: $i) { ok } }`;
const REVOKE = `mutation($i: RevokeStaffRoleInput!) { revokeStaffRole(input: $i) { ok } }`;

describe("ADMIN manages the district's staff", () => {
  it("grants a role to an existing account, which then can act as staff there only, and revokes it", async () => {
    const { lakeview, huron } = await new Client(srv.url).ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`);
    const newClerk = new Client(srv.url);
    const userId = await newClerk.signUp("deputy.clerk@lakeview.example.gov", "Dana Deputy");
    const admin = new Client(srv.url);
    await admin.signIn(DEMO.lakeviewAdmin);

    expect(errorCode(await admin.gql(GRANT, { i: { districtId: lakeview.id, email: "nobody@example.org", role: "CLERK", reason: "hired" } }))).toBe("BAD_USER_INPUT");
    expect(errorCode(await admin.gql(GRANT, { i: { districtId: huron.id, email: "deputy.clerk@lakeview.example.gov", role: "CLERK", reason: "x" } }))).toBe("FORBIDDEN");
    await admin.ok(GRANT, { i: { districtId: lakeview.id, email: "Deputy.Clerk@lakeview.example.gov", role: "CLERK", reason: "Hired as deputy clerk, Board resolution 2026-50" } });
    expect(errorCode(await admin.gql(GRANT, { i: { districtId: lakeview.id, email: "deputy.clerk@lakeview.example.gov", role: "CLERK", reason: "again" } }))).toBe("CONFLICT");

    // The role applies from the next request, in that district only.
    expect((await newClerk.ok(`{ me { staffRoles { role districtId } } }`)).me.staffRoles).toEqual([{ role: "CLERK", districtId: lakeview.id }]);
    await newClerk.ok(`query($d: ID!) { districtOutbox(districtId: $d) { id } }`, { d: lakeview.id });
    expect(errorCode(await newClerk.gql(`query($d: ID!) { districtOutbox(districtId: $d) { id } }`, { d: huron.id }))).toBe("FORBIDDEN");
    const staff = await newClerk.ok(`query($d: ID!) { districtStaff(districtId: $d) { email roles } }`, { d: lakeview.id });
    expect(staff.districtStaff.find((s: any) => s.email === "deputy.clerk@lakeview.example.gov").roles).toEqual(["CLERK"]);
    expect(errorCode(await newClerk.gql(GRANT, { i: { districtId: lakeview.id, email: "deputy.clerk@lakeview.example.gov", role: "ADMIN", reason: "self-promotion" } }))).toBe("FORBIDDEN");

    await admin.ok(REVOKE, { i: { districtId: lakeview.id, userId, role: "CLERK", reason: "Left the post" } });
    expect(errorCode(await newClerk.gql(`query($d: ID!) { districtOutbox(districtId: $d) { id } }`, { d: lakeview.id }))).toBe("FORBIDDEN");
    const log = await admin.ok(`query($f: AuditFilter!) { auditLog(filter: $f) { entries { action reason } } }`, { f: { districtId: lakeview.id, entityId: userId } });
    expect(log.auditLog.entries.map((e: any) => e.action)).toEqual(["staff.role_revoked", "staff.role_granted"]);
  });

  it("an ADMIN cannot remove their own ADMIN role", async () => {
    const admin = new Client(srv.url);
    await admin.signIn(DEMO.lakeviewAdmin);
    const { me } = await admin.ok(`{ me { id staffRoles { districtId } } }`);
    expect(errorCode(await admin.gql(REVOKE, { i: { districtId: me.staffRoles[0].districtId, userId: me.id, role: "ADMIN", reason: "oops" } }))).toBe("CONFLICT");
  });
});
