import type { DataSource } from "typeorm";
import { hashPassword } from "../accounts/passwords.js";
import { StaffRole, User, type StaffRoleName } from "../accounts/user.entity.js";
import { audit } from "../audit/audit.service.js";
import { District } from "../districts/district.entity.js";

/** The demo password every demo account shares; listed on the sign-in page in demo mode only. */
export const DEMO_PASSWORD = "tapline-demo-2026";

/**
 * One account per role in each district; the applicant and the industrial user have no staff role
 * (the industrial user's permit is a demo scene, demo-scene-industrial.ts; the septage hauler's licence too,
 * demo-scene-haulers.ts). Demo mode only.
 */
export const DEMO_ACCOUNTS: { email: string; displayName: string; role: StaffRoleName | "APPLICANT" | "INDUSTRIAL_USER" | "CONTRACTOR" | "HAULER"; district?: string }[] = [
  { email: "applicant@demo.tapline.local", displayName: "Alex Applicant", role: "APPLICANT" },
  { email: "industry@demo.tapline.local", displayName: "Ines Industry (Harbor Plating Works)", role: "INDUSTRIAL_USER", district: "lakeview" },
  { email: "contractor@demo.tapline.local", displayName: "Cory Contractor (Lakeview Excavating)", role: "CONTRACTOR", district: "lakeview" },
  { email: "hauler@demo.tapline.local", displayName: "Hank Hauler (Lakeshore Septic Services)", role: "HAULER", district: "lakeview" },
  { email: "clerk@lakeview.demo.tapline.local", displayName: "Casey Clerk (Lakeview)", role: "CLERK", district: "lakeview" },
  { email: "operator@lakeview.demo.tapline.local", displayName: "Oren Operator (Lakeview)", role: "OPERATOR", district: "lakeview" },
  { email: "board@lakeview.demo.tapline.local", displayName: "Bea Board (Lakeview)", role: "BOARD", district: "lakeview" },
  { email: "admin@lakeview.demo.tapline.local", displayName: "Ada Admin (Lakeview)", role: "ADMIN", district: "lakeview" },
  { email: "clerk@huron.demo.tapline.local", displayName: "Hal Clerk (Huron)", role: "CLERK", district: "huron" },
  { email: "operator@huron.demo.tapline.local", displayName: "Hana Superintendent (Huron)", role: "OPERATOR", district: "huron" },
  { email: "board@huron.demo.tapline.local", displayName: "Hugo Board (Huron)", role: "BOARD", district: "huron" },
  { email: "admin@huron.demo.tapline.local", displayName: "Hedy Admin (Huron)", role: "ADMIN", district: "huron" },
];

export async function loadDemoAccounts(ds: DataSource): Promise<void> {
  const existing = new Set<string>((await ds.query(`SELECT email FROM app_user WHERE demo`)).map((r: any) => r.email));
  const missing = DEMO_ACCOUNTS.filter((a) => !existing.has(a.email));
  if (!missing.length) return;
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await ds.transaction(async (tx) => {
    const districts = new Map((await tx.find(District)).map((d) => [d.slug, d]));
    for (const a of missing) {
      const user = await tx.save(tx.create(User, { email: a.email, displayName: a.displayName, passwordHash, demo: true, emailVerifiedAt: new Date() }));
      if (a.role !== "APPLICANT" && a.role !== "INDUSTRIAL_USER" && a.role !== "CONTRACTOR" && a.role !== "HAULER") {
        const d = districts.get(a.district!);
        if (!d) throw new Error(`demo district ${a.district} is not loaded`);
        await tx.insert(StaffRole, { userId: user.id, districtId: d.id, role: a.role });
      }
      await audit(tx, { userId: null }, { action: "account.demo_created", entityType: "User", entityId: user.id, reason: "Demo mode" });
    }
  });
}
