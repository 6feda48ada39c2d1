import fs from "node:fs";
import { GraphQLObjectType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declaredRootAccess } from "../../api/graphql/access.js";
import { SCHEMA_FILE, getSchema, schemaText } from "../../api/graphql/schema.js";
import { Client, DEMO, errorCode, startTestServer, type TestServer } from "../harness.js";

describe("access rules", () => {
  it("every query and mutation in the schema declares who may call it", async () => {
    const schema = await getSchema();
    const declared = declaredRootAccess();
    const missing: string[] = [];
    for (const type of [schema.getQueryType(), schema.getMutationType()] as GraphQLObjectType[])
      for (const field of Object.keys(type.getFields())) if (!declared.has(`${type.name}.${field}`)) missing.push(`${type.name}.${field}`);
    expect(missing).toEqual([]);
    expect(declared.size).toBeGreaterThan(20);
  });

  it("the checked-in schema/schema.graphql matches the code (run `npm run schema`)", async () => {
    expect(fs.readFileSync(SCHEMA_FILE, "utf8")).toBe(await schemaText());
  });
});

describe("signed-out callers and applicants are refused staff operations", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv?.close());

  // Every operation that needs a session, with variables good enough to reach the access check.
  const SIGNED_IN_ONLY: [string, Record<string, unknown>?][] = [
    [`{ me { id } }`],
    [`{ mySessions { id } }`],
    [`{ myApiTokens { id } }`],
    [`{ myEmails { id } }`],
    [`{ myOrganizations { role } }`],
    [`{ myDashboard { recentEmails } }`],
    [`query($id: ID!) { organization(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation { signOut { ok } }`],
    [`mutation { signOutEverywhere { ok } }`],
    [`mutation { resendVerificationEmail { ok } }`],
    [`mutation { createApiToken(name: "x") { token } }`],
    [`mutation($id: ID!) { revokeApiToken(id: $id) { ok } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { revokeSession(id: $id) { ok } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation { createOrganization(input: { name: "X", kind: "HAULER" }) { id } }`],
    [`mutation { inviteMember(input: { organizationId: "00000000-0000-0000-0000-000000000000", email: "a@b.co", role: "MEMBER" }) { id } }`],
    [`mutation { acceptInvitation(token: "x") { id } }`],
    [`{ myDocuments { id } }`],
    [`query($id: ID!) { document(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation { uploadDocument(input: { filename: "a.pdf", contentBase64: "JVBERi0=" }) { id } }`],
    [`{ myContractorApplications { id } }`],
    [`query($id: ID!) { contractor(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [
      `mutation($i: ApplyAsContractorInput!) { applyAsContractor(input: $i) { id } }`,
      { i: { organizationId: "00000000-0000-0000-0000-000000000000", districtId: "00000000-0000-0000-0000-000000000000", bondAmountCents: 500000, bondExpiresOn: "2030-01-01", bondDocumentId: "00000000-0000-0000-0000-000000000000", insurance: [] } },
    ],
    [`mutation($i: RenewContractorInput!) { renewContractor(input: $i) { id } }`, { i: { contractorId: "00000000-0000-0000-0000-000000000000", insurance: [] } }],
    [`query($id: ID!) { payment(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`{ myPayments { id } }`],
    [`query($s: String!) { testCheckout(sessionId: $s) { id } }`, { s: "test_cs_x" }],
    [`mutation($id: ID!) { startCheckout(paymentId: $id) { url } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation { completeTestCheckout(sessionId: "test_cs_x", outcome: "PAY") { id } }`],
    [`{ myLateralPermits { id } }`],
    [`query($id: ID!) { lateralPermit(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation { saveLateralPermitDraft(input: { street: "x" }) { id } }`],
    [`mutation($id: ID!) { submitLateralPermit(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { withdrawLateralPermit(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { requestInspection(permitId: $id, kind: "TRENCH") { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`{ myEnforcementActions { id } }`],
    [`query($id: ID!) { enforcementAction(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($i: RespondToNoticeInput!) { respondToNotice(input: $i) { id } }`, { i: { actionId: "00000000-0000-0000-0000-000000000000", explanation: "x", correctionPlan: "x" } }],
    [`query($id: ID!) { petition(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($i: FilePetitionInput!) { filePetition(input: $i) { id } }`, { i: { actionId: "00000000-0000-0000-0000-000000000000", grounds: "x", relief: "MODIFY" } }],
    [`mutation($id: ID!) { withdrawPetition(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`query($id: ID!) { hearingIcs(id: $id) }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`{ myCharges { id } }`],
    [`query($id: ID!) { charge(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { payCharge(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`{ myFlowDeductionRequests { id } }`],
    [`mutation($i: FileFlowDeductionInput!) { fileFlowDeductionRequest(input: $i) { id } }`, { i: { districtId: "00000000-0000-0000-0000-000000000000", propertyAddress: "x", evidence: "x" } }],
    [`mutation($id: ID!) { withdrawFlowDeductionRequest(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`{ myIndustrialPermits { id } }`],
    [`mutation { saveIndustrialApplication(input: { facilityName: "x" }) { id } }`],
    [`mutation($id: ID!) { submitIndustrialApplication(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { withdrawIndustrialApplication(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { addIndustrialResults(reportId: $id, results: []) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { uploadIndustrialResultsCsv(reportId: $id, csv: "x") { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { deleteIndustrialResult(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { signIndustrialReport(input: { reportId: $id, password: "x", certify: true, reviewedHash: "x" }) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { amendIndustrialReport(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { completeIndustrialDuty(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { setIndustrialDailyFlows(reportId: $id, flows: []) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { startIndustrialReissuance(permitId: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { reportIndustrialPermitChange(input: { permitId: $id, kind: "OWNER", changeOn: "2030-01-01", description: "x" }) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation { fileViolationNotice(input: { dutyId: "00000000-0000-0000-0000-000000000000", notifiedWhom: "x", method: "PHONE", notifiedAt: "2026-01-01T08:00", text: "x" }) { id } }`],
    [`mutation($id: ID!) { startResampleReport(dutyId: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation { reportSlugDischarge(input: { permitId: "00000000-0000-0000-0000-000000000000", occurredAt: "2026-01-01T08:00", notifiedAt: "2026-01-01T08:30", notifiedWhom: "x", substance: "x", estimatedVolumeGallons: 1 }) { id } }`],
    [`mutation { saveSlugWrittenReport(input: { slugId: "00000000-0000-0000-0000-000000000000", causes: "x", measures: "x" }) { id } }`],
    [`mutation { saveNinetyDayStatement(input: { reportId: "00000000-0000-0000-0000-000000000000", standardsMet: true, professionalName: "x", professionalCredential: "x" }) { reportId } }`],
    [`mutation { fileMilestoneProgress(input: { permitId: "00000000-0000-0000-0000-000000000000", milestoneIndex: 0, met: true, metOn: "2026-01-01" }) { id } }`],
    [`query($id: ID!) { haulerLicense(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`query($o: ID!) { haulerLicenses(organizationId: $o) { id } }`, { o: "00000000-0000-0000-0000-000000000000" }],
    [`query($id: ID!) { haulerPermission(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`query($o: ID!) { haulerPermissions(organizationId: $o) { id } }`, { o: "00000000-0000-0000-0000-000000000000" }],
    [`query($id: ID!) { haulerLoad(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`query($o: ID!) { haulerLoads(organizationId: $o) { id } }`, { o: "00000000-0000-0000-0000-000000000000" }],
    [`query($o: ID!, $d: ID!) { haulerStatement(organizationId: $o, districtId: $d) { month } }`, { o: "00000000-0000-0000-0000-000000000000", d: "00000000-0000-0000-0000-000000000000" }],
    [`mutation { saveHaulerLicenseDraft(input: { serviceArea: "x" }) { id } }`],
    [`mutation($id: ID!) { submitHaulerLicense(id: $id, certify: true) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($id: ID!) { startHaulerLicenseRenewal(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
    [`mutation($i: UpdateHaulerPart364Input!) { updateHaulerPart364(input: $i) { id } }`, { i: { licenseId: "00000000-0000-0000-0000-000000000000", permitNumber: "x", expiresOn: "2030-01-01", documentId: "00000000-0000-0000-0000-000000000000" } }],
    [`mutation($i: RequestHaulerPermissionInput!) { requestHaulerPermission(input: $i) { id } }`, { i: { organizationId: "00000000-0000-0000-0000-000000000000", districtId: "00000000-0000-0000-0000-000000000000", requestedPoint: "x" } }],
    [`mutation($i: BookHaulerLoadInput!) { bookHaulerLoad(input: $i) { id } }`, { i: { licenseId: "00000000-0000-0000-0000-000000000000", vehicleId: "00000000-0000-0000-0000-000000000000", sourceAddress: "x", sourceKind: "OTHER", estimatedGallons: 1, plannedArrival: "2030-01-07T09:00" } }],
    [`mutation($id: ID!) { cancelHaulerLoad(id: $id) { id } }`, { id: "00000000-0000-0000-0000-000000000000" }],
  ];
  const STAFF_ONLY: [string, (districtId: string) => Record<string, unknown>][] = [
    [`query($f: AuditFilter!) { auditLog(filter: $f) { nextCursor } }`, (d) => ({ f: { districtId: d } })],
    [`query($d: ID!) { districtOutbox(districtId: $d) { id } }`, (d) => ({ d })],
    [`mutation($i: ChangeRulebookInput!) { changeRulebook(input: $i) { version } }`, (d) => ({ i: { districtId: d, changes: [{ key: "lateral.impactFee", value: 1 }], effectiveDate: "2030-01-01", reason: "x", resolutionNumber: "2026-1", resolutionAdoptedOn: "2026-01-05" } })],
    [`query($d: ID!) { districtStaff(districtId: $d) { email } }`, (d) => ({ d })],
    [`mutation($i: GrantStaffRoleInput!) { grantStaffRole(input: $i) { ok } }`, (d) => ({ i: { districtId: d, email: "applicant@demo.tapline.local", role: "ADMIN", reason: "x" } })],
    [`mutation($i: RevokeStaffRoleInput!) { revokeStaffRole(input: $i) { ok } }`, (d) => ({ i: { districtId: d, userId: "00000000-0000-0000-0000-000000000000", role: "ADMIN", reason: "x" } })],
    [`query($d: ID!) { districtContractors(districtId: $d) { id } }`, (d) => ({ d })],
    [`mutation($i: DecideContractorInput!) { decideContractor(input: $i) { id } }`, () => ({ i: { contractorId: "00000000-0000-0000-0000-000000000000", decision: "APPROVE" } })],
    [`mutation($i: SuspendContractorInput!) { suspendContractor(input: $i) { id } }`, () => ({ i: { contractorId: "00000000-0000-0000-0000-000000000000", reason: "x" } })],
    [`mutation($i: ReinstateContractorInput!) { reinstateContractor(input: $i) { id } }`, () => ({ i: { contractorId: "00000000-0000-0000-0000-000000000000", reason: "x" } })],
    [`mutation($i: DecideContractorRenewalInput!) { decideContractorRenewal(input: $i) { id } }`, () => ({ i: { renewalId: "00000000-0000-0000-0000-000000000000", decision: "ACCEPT" } })],
    [`query($d: ID!) { districtPayments(districtId: $d) { nextCursor } }`, (d) => ({ d })],
    [`mutation($i: RecordCounterPaymentInput!) { recordCounterPayment(input: $i) { id } }`, () => ({ i: { paymentId: "00000000-0000-0000-0000-000000000000", method: "cash" } })],
    [`mutation($i: RefundPaymentInput!) { refundPayment(input: $i) { id } }`, () => ({ i: { paymentId: "00000000-0000-0000-0000-000000000000", lineCodes: ["deposit"], reason: "x" } })],
    [`query($d: ID!) { lateralPermitQueue(districtId: $d) { nextCursor } }`, (d) => ({ d })],
    [`query($d: ID!) { inspectionCalendar(districtId: $d) { weekStart } }`, (d) => ({ d })],
    [`mutation($id: ID!) { requestLateralPermitChanges(id: $id, notes: "x") { id } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
    [`mutation($id: ID!) { approveLateralPermit(id: $id) { id } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
    [`mutation($i: ScheduleInspectionInput!) { scheduleInspection(input: $i) { id } }`, () => ({ i: { inspectionId: "00000000-0000-0000-0000-000000000000", scheduledFor: "2030-01-07T09:00" } })],
    [`mutation($i: RecordInspectionResultInput!) { recordInspectionResult(input: $i) { id } }`, () => ({ i: { inspectionId: "00000000-0000-0000-0000-000000000000", result: "PASSED" } })],
    [`mutation($id: ID!) { approveRecordDrawings(id: $id) { id } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
    [`mutation($i: DeclareMoratoriumInput!) { declareMoratorium(input: $i) { id } }`, (d) => ({ i: { districtId: d, segmentName: "x", streets: ["x"], reason: "x" } })],
    [`mutation($id: ID!) { liftMoratorium(id: $id, reason: "x") { id } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
    [`query($d: ID!) { districtEnforcementActions(districtId: $d) { nextCursor } }`, (d) => ({ d })],
    [`mutation($i: CreateEnforcementActionInput!) { createEnforcementAction(input: $i) { id } }`, (d) => ({ i: { districtId: d, kind: "FINE", violation: "x" } })],
    [`query($d: ID!) { petitionDocket(districtId: $d) { nextCursor } }`, (d) => ({ d })],
    [`mutation($i: DecidePetitionInput!) { decidePetition(input: $i) { id } }`, () => ({ i: { petitionId: "00000000-0000-0000-0000-000000000000", decision: "REJECT", reasons: "x" } })],
    [`mutation($i: OrderShowCauseHearingInput!) { orderShowCauseHearing(input: $i) { id } }`, () => ({ i: { petitionId: "00000000-0000-0000-0000-000000000000", scheduledFor: "2030-01-07T19:00", place: "x", reasons: "x", proposedAction: "x" } })],
    [`mutation($i: DecideHearingInput!) { decideShowCauseHearing(input: $i) { id } }`, () => ({ i: { hearingId: "00000000-0000-0000-0000-000000000000", outcome: "UPHELD", reasons: "x" } })],
    [`query($d: ID!) { hearingCalendar(districtId: $d) { id } }`, (d) => ({ d })],
    [`query($d: ID!) { districtCharges(districtId: $d) { nextCursor } }`, (d) => ({ d })],
    [`query($d: ID!) { taxLevyReport(districtId: $d) { csv } }`, (d) => ({ d })],
    [`mutation($i: BillChargeInput!) { billCharge(input: $i) { id } }`, (d) => ({ i: { districtId: d, respondentEmail: "applicant@demo.tapline.local", label: "x", amountCents: 100 } })],
    [`query($d: ID!) { districtFlowDeductionRequests(districtId: $d) { id } }`, (d) => ({ d })],
    [`mutation($i: DecideFlowDeductionInput!) { decideFlowDeductionRequest(input: $i) { id } }`, () => ({ i: { id: "00000000-0000-0000-0000-000000000000", decision: "REJECT", reasons: "x" } })],
    [`query($d: ID!) { industrialPermitQueue(districtId: $d) { nextCursor } }`, (d) => ({ d })],
    [`query($d: ID!) { industrialReportInbox(districtId: $d, view: "LATE") { nextCursor } }`, (d) => ({ d })],
    [`query($d: ID!) { industrialExceedances(districtId: $d) { nextCursor } }`, (d) => ({ d })],
    [`query($d: ID!) { industrialSlugDischarges(districtId: $d) { items { id } } }`, (d) => ({ d })],
    [`query($d: ID!) { industrialViolationNotices(districtId: $d) { items { id } } }`, (d) => ({ d })],
    [`mutation { setIndustrialReportDate(input: { permitId: "00000000-0000-0000-0000-000000000000", kind: "NINETY_DAY", basisOn: "2027-01-01" }) { id } }`, () => ({})],
    [`query($id: ID!) { industrialPermitSnc(permitId: $id) { inSnc } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
    [`query($d: ID!) { industrialSncDashboard(districtId: $d) { inSncCount } }`, (d) => ({ d })],
    [`mutation($d: ID!) { publishSncList(districtId: $d, periodStart: "2026-01-01") { id } }`, (d) => ({ d })],
    [`mutation($id: ID!) { publishIndustrialNotice(id: $id) { id } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
    [`mutation($id: ID!) { setIndustrialPermitLimits(id: $id, limits: []) { id } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
    [`mutation($id: ID!) { issueIndustrialPermit(input: { id: $id, expiresOn: "2030-01-01" }) { id } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
    [`mutation($id: ID!) { revokeIndustrialPermit(input: { id: $id, reason: "TAMPERING", notes: "x" }) { id } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
    [`mutation($id: ID!) { proposeIndustrialPermitModification(input: { permitId: $id, cause: "LOCAL_LIMITS", explanation: "x", conditions: "x", effectiveOn: "2030-01-01" }) { id } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
    [`mutation($id: ID!) { withdrawIndustrialPermitModification(id: $id, reason: "x") { id } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
    [`query($d: ID!) { haulerLicenseQueue(districtId: $d) { id } }`, (d) => ({ d })],
    [`query($d: ID!) { haulerLicensesExpiring(districtId: $d) { id } }`, (d) => ({ d })],
    [`query($d: ID!) { haulerPermissionQueue(districtId: $d) { id } }`, (d) => ({ d })],
    [`query($d: ID!) { stationDaySheet(districtId: $d) { date } }`, (d) => ({ d })],
    [`query($d: ID!) { haulerRefundsDue(districtId: $d) { plate } }`, (d) => ({ d })],
    [`mutation($i: DecideHaulerLicenseInput!) { decideHaulerLicense(input: $i) { id } }`, () => ({ i: { id: "00000000-0000-0000-0000-000000000000", decision: "DENY", reason: "x" } })],
    [`mutation($i: ActOnHaulerLicenseInput!) { actOnHaulerLicense(input: $i) { id } }`, () => ({ i: { id: "00000000-0000-0000-0000-000000000000", action: "SUSPEND", reason: "x" } })],
    [`mutation($i: DecideHaulerPermissionInput!) { decideHaulerPermission(input: $i) { id } }`, () => ({ i: { id: "00000000-0000-0000-0000-000000000000", decision: "DENY", reason: "x" } })],
    [`mutation($i: DecideHaulerLoadInput!) { decideHaulerLoad(input: $i) { id } }`, () => ({ i: { id: "00000000-0000-0000-0000-000000000000", decision: "APPROVE" } })],
    [`mutation($id: ID!) { recordHaulerLoadReceived(id: $id, measuredGallons: 1) { id } }`, () => ({ id: "00000000-0000-0000-0000-000000000000" })],
  ];

  it("answers UNAUTHENTICATED to every signed-in operation when signed out", async () => {
    const anon = new Client(srv.url);
    for (const [q, v] of SIGNED_IN_ONLY) expect([q, errorCode(await anon.gql(q, v))]).toEqual([q, "UNAUTHENTICATED"]);
    const { district } = await anon.ok(`{ district(slug: "lakeview") { id } }`);
    for (const [q, v] of STAFF_ONLY) expect([q, errorCode(await anon.gql(q, v(district.id)))]).toEqual([q, "UNAUTHENTICATED"]);
  });

  it("answers FORBIDDEN to an applicant for every staff operation", async () => {
    const c = new Client(srv.url);
    await c.signIn(DEMO.applicant);
    const { district } = await c.ok(`{ district(slug: "lakeview") { id } }`);
    for (const [q, v] of STAFF_ONLY) expect([q, errorCode(await c.gql(q, v(district.id)))]).toEqual([q, "FORBIDDEN"]);
  });

  it("keeps staff to their own district and their own roles", async () => {
    const anon = new Client(srv.url);
    const { lakeview, huron } = await anon.ok(`{ lakeview: district(slug: "lakeview") { id } huron: district(slug: "huron") { id } }`);
    const clerk = new Client(srv.url);
    await clerk.signIn(DEMO.lakeviewClerk);
    expect((await clerk.ok(`query($f: AuditFilter!) { auditLog(filter: $f) { nextCursor } }`, { f: { districtId: lakeview.id } })).auditLog).toBeTruthy();
    expect(errorCode(await clerk.gql(`query($f: AuditFilter!) { auditLog(filter: $f) { nextCursor } }`, { f: { districtId: huron.id } }))).toBe("FORBIDDEN");
    expect(errorCode(await clerk.gql(`query($d: ID!) { districtOutbox(districtId: $d) { id } }`, { d: huron.id }))).toBe("FORBIDDEN");
    const board = new Client(srv.url);
    await board.signIn(DEMO.lakeviewBoard);
    expect(errorCode(await board.gql(`query($d: ID!) { districtOutbox(districtId: $d) { id } }`, { d: lakeview.id }))).toBe("FORBIDDEN");
  });
});
