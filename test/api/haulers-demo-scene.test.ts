import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCalendarDays, dateIn } from "../../api/common/dates.js";
import { DEMO_HAULER, loadDemoHaulerScene } from "../../api/db/demo-scene-haulers.js";
import { Client, DEMO, startTestServer, type TestServer } from "../harness.js";

/**
 * `npm start`'s septage hauler scene: Lakeview's dumping fee set as the Town Board sets it (a
 * rulebook version the ADMIN made, citing the resolution, in force before today), and the demo
 * hauler's company with a licence inside its renewal window, so the hauler books, pays, has the load
 * received and starts the renewal at once.
 */

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
  await loadDemoHaulerScene(srv.running.ds, srv.config);
  await loadDemoHaulerScene(srv.running.ds, srv.config); // a second start adds nothing
});
afterAll(() => srv?.close());

const TZ = "America/New_York";

describe("the demo septage hauler", () => {
  it("finds Lakeview's dumping fee set by a Board resolution the ADMIN entered, in force before today, once", async () => {
    const ds = srv.running.ds;
    const versions = await ds.query(
      `SELECT v.effective_date::text AS effective, v.source, u.email, e->>'value' AS value, e->'resolution'->>'number' AS resolution, e->'resolution'->>'adoptedOn' AS adopted, e->>'source' AS entry_source
         FROM rulebook_version v JOIN district d ON d.id = v.district_id JOIN app_user u ON u.id = v.created_by_id
         CROSS JOIN LATERAL jsonb_array_elements(v.entries) e
        WHERE d.slug = 'lakeview' AND v.source = 'admin' AND e->>'key' = 'hauler.dumpingFeePer1000Gallons'`,
    );
    expect(versions).toHaveLength(1);
    const [v] = versions;
    const today = dateIn(TZ);
    expect(v).toMatchObject({ email: DEMO_HAULER.admin, value: "6000", entry_source: "board", resolution: expect.stringMatching(/^\d{4}-\d+$/) });
    expect(v.effective < today).toBe(true);
    expect(v.adopted <= v.effective).toBe(true);
    const [audit] = await ds.query(`SELECT count(*)::int AS n FROM audit_entry WHERE action = 'rulebook.changed'`);
    expect(audit.n).toBe(1);
    // The public rules and the booking readiness read it.
    const { haulerDistricts } = await new Client(srv.url).ok(`{ haulerDistricts { slug booking { ready } } }`);
    expect(haulerDistricts.find((d: any) => d.slug === "lakeview").booking.ready).toBe(true);
  });

  it("holds a licence in force with its renewal open, and can book, pay, have the load received and start the renewal", async () => {
    const hauler = new Client(srv.url);
    await hauler.signIn(DEMO_HAULER.email);
    const { myOrganizations } = await hauler.ok(`{ myOrganizations { role organization { id name kind } } }`);
    expect(myOrganizations).toEqual([{ role: "OWNER", organization: { id: expect.any(String), name: DEMO_HAULER.organization, kind: "HAULER" } }]);
    const orgId = myOrganizations[0].organization.id;
    const { haulerLicenses } = await hauler.ok(
      `query($o: ID!) { haulerLicenses(organizationId: $o) { id status licenseNumber validFrom validUntil renewalOpen part364DocumentId part364Warning
        standing { state daysLeft } nextStep { action } loadBooking { ready } vehicles { id plate registeredOwner } } }`,
      { o: orgId },
    );
    expect(haulerLicenses).toHaveLength(1);
    const l = haulerLicenses[0];
    const today = dateIn(TZ);
    expect(l).toMatchObject({
      status: "APPROVED",
      licenseNumber: expect.stringMatching(/^LKV-HL-\d{4}-\d{4}$/),
      validFrom: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      renewalOpen: true,
      part364DocumentId: expect.any(String),
      part364Warning: null,
      standing: { state: "IN_FORCE", daysLeft: expect.any(Number) },
      nextStep: { action: "RENEW" },
      loadBooking: { ready: true },
    });
    // Inside the renewal window (60 days), between its 60- and 30-day reminders: 45 days left.
    expect(l.standing.daysLeft).toBe(45);
    expect(l.standing.daysLeft).toBeLessThan(60);
    expect(l.vehicles.map((v: any) => v.registeredOwner)).toEqual([DEMO_HAULER.organization, DEMO_HAULER.organization]);

    // Book a load for the next weekday at 09:00, pay it; the Operator approves and records it.
    let day = addCalendarDays(today, 2);
    while ([0, 6].includes(new Date(`${day}T12:00:00Z`).getUTCDay())) day = addCalendarDays(day, 1);
    const { bookHaulerLoad: load } = await hauler.ok(`mutation($i: BookHaulerLoadInput!) { bookHaulerLoad(input: $i) { id feeCents paymentId } }`, {
      i: { licenseId: l.id, vehicleId: l.vehicles[0].id, sourceAddress: "14 Lake Street, Lakeview", sourceKind: "RESIDENTIAL_SEPTIC_TANK", estimatedGallons: 2500, plannedArrival: `${day}T09:00` },
    });
    expect(load.feeCents).toBe(15000);
    const { startCheckout } = await hauler.ok(`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: load.paymentId });
    await hauler.ok(`mutation($s: String!) { completeTestCheckout(sessionId: $s, outcome: "PAY") { id } }`, { s: startCheckout.url.split("/").pop() });
    const operator = new Client(srv.url);
    await operator.signIn(DEMO.lakeviewOperator);
    await operator.ok(`mutation($i: DecideHaulerLoadInput!) { decideHaulerLoad(input: $i) { id } }`, { i: { id: load.id, decision: "APPROVE" } });
    const { recordHaulerLoadReceived: received } = await operator.ok(`mutation($id: ID!) { recordHaulerLoadReceived(id: $id, measuredGallons: 2400) { status } }`, { id: load.id });
    expect(received.status).toBe("RECEIVED");

    // The renewal starts with the trucks and the Part 364 permit on file.
    const { startHaulerLicenseRenewal: renewal } = await hauler.ok(`mutation($id: ID!) { startHaulerLicenseRenewal(id: $id) { id status part364DocumentId vehicles { plate } } }`, { id: l.id });
    expect(renewal).toMatchObject({ status: "DRAFT", part364DocumentId: l.part364DocumentId, vehicles: [{ plate: "LSS3001" }, { plate: "LSS2502" }] });

    // Loaded once.
    const [{ n }] = await srv.running.ds.query(`SELECT count(*)::int AS n FROM organization WHERE name = $1`, [DEMO_HAULER.organization]);
    expect(n).toBe(1);
  });
});
