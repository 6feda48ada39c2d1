import type { DataSource } from "typeorm";
import type { Viewer } from "../accounts/viewer.js";
import { addCalendarDays, dateIn } from "../common/dates.js";
import type { Config } from "../config.js";
import { applyAsContractor, contractorRequirements, decideContractor } from "../contractors/contractors.service.js";
import { storeDocument } from "../documents/documents.service.js";
import { createOrganization } from "../organizations/organizations.service.js";

/**
 * Demo scene: an approved contractor on Lakeview's list (SUL 601 A), so a demo homeowner can choose
 * one at once. Made the way a firm and the Clerk make one (the firm applies at the rulebook's
 * minimums with its bond and certificates, the Clerk approves), through the same services. Huron
 * keeps no list, so it has none. Loaded once: a second start finds the firm and does nothing.
 */
export const DEMO_CONTRACTOR = { email: "contractor@demo.tapline.local", organization: "Lakeview Excavating LLC", district: "lakeview" };

const PDF = Buffer.from("%PDF-1.4\n1 0 obj<< /Type /Catalog >>endobj\ntrailer<< /Root 1 0 R >>\n%%EOF\n", "latin1").toString("base64");

export async function loadContractorScene(ds: DataSource, config: Config): Promise<void> {
  const [owner] = await ds.query(`SELECT id, email, display_name FROM app_user WHERE email = $1 AND demo`, [DEMO_CONTRACTOR.email]);
  const [known] = await ds.query(`SELECT 1 FROM organization WHERE name = $1`, [DEMO_CONTRACTOR.organization]);
  if (!owner || known) return;
  const [district] = await ds.query(`SELECT id, time_zone FROM district WHERE slug = $1`, [DEMO_CONTRACTOR.district]);
  const [clerk] = await ds.query(
    `SELECT u.id, u.email, u.display_name FROM app_user u JOIN staff_role r ON r.user_id = u.id WHERE u.demo AND r.district_id = $1 AND r.role = 'CLERK' ORDER BY u.email LIMIT 1`,
    [district.id],
  );
  if (!clerk) return;
  const as = (u: { id: string; email: string; display_name: string }, staffRoles: Viewer["staffRoles"]): Viewer => ({
    userId: u.id,
    email: u.email,
    displayName: u.display_name,
    emailVerified: true,
    demo: true,
    staffRoles,
    sessionId: null,
    apiTokenId: null,
  });
  const firm = as(owner, []);
  const req = await contractorRequirements(ds, DEMO_CONTRACTOR.district);
  if (!req.approvedListEnabled) return;
  const org = await createOrganization(ds, firm, { name: DEMO_CONTRACTOR.organization, kind: "CONTRACTOR" });
  const doc = await storeDocument(ds, config, firm, { filename: "bond-and-certificates.pdf", contentBase64: PDF, organizationId: org.id });
  const inAYear = addCalendarDays(dateIn(district.time_zone), 365);
  const applied = await applyAsContractor(ds, firm, {
    organizationId: org.id,
    districtId: district.id,
    bondAmountCents: req.bond.minimumCents ?? 0,
    bondExpiresOn: inAYear,
    bondDocumentId: doc.id,
    insurance: req.coverages
      .filter((c) => c.required)
      .map((c) => ({ coverage: c.coverage, insurer: "Mohawk Mutual", policyNumber: `MM-${c.coverage.slice(0, 8)}-2026`, limitCents: c.minimumCents, expiresOn: inAYear, certificateDocumentId: doc.id })),
  });
  await decideContractor(ds, as(clerk, [{ districtId: district.id, role: "CLERK" }]), applied.id, { decision: "APPROVE", reason: "Bond and certificates checked (demo)" });
}
