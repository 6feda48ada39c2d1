import type { DataSource, EntityManager } from "typeorm";
import type { StaffRoleName } from "../accounts/user.entity.js";

export type StaffContact = { id: string; email: string; display_name: string };

/** The people holding a role in a district (the Clerks to refund, the Operators to review), by email; one query. */
export function staffOf(db: DataSource | EntityManager, districtId: string, role: StaffRoleName): Promise<StaffContact[]> {
  return db.query(`SELECT u.id, u.email, u.display_name FROM staff_role s JOIN app_user u ON u.id = s.user_id WHERE s.district_id = $1 AND s.role = $2 ORDER BY u.email`, [
    districtId,
    role,
  ]);
}
