import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, errorCode, startTestServer, type TestServer } from "../harness.js";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(() => srv?.close());

const tokenIn = (body: string) => /token=([A-Za-z0-9_-]+)/.exec(body)![1];

describe("organizations, members and invitations", () => {
  it("an owner creates a company, invites an Authorized Representative by email, who accepts", async () => {
    const owner = new Client(srv.url);
    await owner.signUp("owner@acme-plating.example", "Olga Owner");
    const { createOrganization: org } = await owner.ok(`mutation { createOrganization(input: { name: "Acme Plating Co.", kind: "INDUSTRIAL_USER" }) { id name kind } }`);
    expect(org).toMatchObject({ name: "Acme Plating Co.", kind: "INDUSTRIAL_USER" });

    const rep = new Client(srv.url);
    await rep.signUp("rep@acme-plating.example", "Ray Rep");
    await owner.ok(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { id } }`, { i: { organizationId: org.id, email: "REP@acme-plating.example", role: "AUTHORIZED_REPRESENTATIVE" } });
    const mail = (await rep.ok(`{ myEmails { subject bodyText } }`)).myEmails.find((m: any) => /invited you/.test(m.subject));
    expect(mail.subject).toMatch(/Acme Plating Co\./);

    // Someone else holding the link cannot use it.
    const stranger = new Client(srv.url);
    await stranger.signUp("stranger@example.org");
    expect(errorCode(await stranger.gql(`mutation($t: String!) { acceptInvitation(token: $t) { id } }`, { t: tokenIn(mail.bodyText) }))).toBe("FORBIDDEN");

    await rep.ok(`mutation($t: String!) { acceptInvitation(token: $t) { id } }`, { t: tokenIn(mail.bodyText) });
    expect((await rep.ok(`{ myOrganizations { role organization { name } } }`)).myOrganizations).toEqual([{ role: "AUTHORIZED_REPRESENTATIVE", organization: { name: "Acme Plating Co." } }]);
    const detail = await owner.ok(`query($id: ID!) { organization(id: $id) { members { role } invitations { email acceptedAt } } }`, { id: org.id });
    expect(detail.organization.members.map((m: any) => m.role).sort()).toEqual(["AUTHORIZED_REPRESENTATIVE", "OWNER"]);
    const names = await rep.ok(`query($id: ID!) { organization(id: $id) { members { displayName email } } }`, { id: org.id });
    expect(names.organization.members.map((m: any) => m.displayName).sort()).toEqual(["Olga Owner", "Ray Rep"]);
    expect(detail.organization.invitations[0].acceptedAt).toBeTruthy();
    expect(errorCode(await rep.gql(`mutation($t: String!) { acceptInvitation(token: $t) { id } }`, { t: tokenIn(mail.bodyText) }))).toBe("BAD_USER_INPUT");

    // Members see members; only owners see invitations and invite.
    expect(errorCode(await rep.gql(`query($id: ID!) { organization(id: $id) { invitations { email } } }`, { id: org.id }))).toBe("FORBIDDEN");
    expect(errorCode(await rep.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { id } }`, { i: { organizationId: org.id, email: "x@y.example", role: "MEMBER" } }))).toBe("FORBIDDEN");
    // Outsiders do not learn that it exists.
    expect(errorCode(await stranger.gql(`query($id: ID!) { organization(id: $id) { name } }`, { id: org.id }))).toBe("NOT_FOUND");
    expect((await stranger.ok(`{ myOrganizations { role } }`)).myOrganizations).toEqual([]);
    expect(errorCode(await stranger.gql(`{ organization(id: "not-a-uuid") { name } }`))).toBe("NOT_FOUND");
    expect((await owner.ok(`{ myDashboard { organizations { role } } }`)).myDashboard.organizations).toEqual([{ role: "OWNER" }]);
  });

  it("refuses a bad kind and an empty name, per field, creating nothing", async () => {
    const c = new Client(srv.url);
    await c.signUp("badorg@example.org");
    const r = await c.gql(`mutation { createOrganization(input: { name: " ", kind: "BANK" }) { id } }`);
    expect(errorCode(r)).toBe("BAD_USER_INPUT");
    expect(Object.keys(r.errors![0].extensions!.fields!).sort()).toEqual(["kind", "name"]);
    expect((await c.ok(`{ myOrganizations { role } }`)).myOrganizations).toEqual([]);
  });
});

describe("an invitation to an address with no account yet", () => {
  it("reaches the person once they sign up with that address; staff never see its link", async () => {
    const owner = new Client(srv.url);
    await owner.signUp("owner@septic-sam.example", "Sam Septic");
    const { createOrganization: org } = await owner.ok(`mutation { createOrganization(input: { name: "Sam's Septic Service", kind: "HAULER" }) { id } }`);
    await owner.ok(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { id } }`, { i: { organizationId: org.id, email: "driver@septic-sam.example", role: "MEMBER" } });
    const driver = new Client(srv.url);
    await driver.signUp("driver@septic-sam.example", "Dee Driver");
    const mail = (await driver.ok(`{ myEmails { subject bodyText } }`)).myEmails.find((m: any) => /invited you/.test(m.subject));
    await driver.ok(`mutation($t: String!) { acceptInvitation(token: $t) { id } }`, { t: tokenIn(mail.bodyText) });
    expect((await driver.ok(`{ myOrganizations { organization { name } } }`)).myOrganizations[0].organization.name).toBe("Sam's Septic Service");
  });
});
