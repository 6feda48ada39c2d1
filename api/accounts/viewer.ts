import type { StaffRoleName } from "./user.entity.js";

/** Who is calling: resolved once per request from the session cookie or the bearer token. */
export type Viewer = {
  userId: string;
  email: string;
  displayName: string;
  emailVerified: boolean;
  demo: boolean;
  staffRoles: { districtId: string; role: StaffRoleName }[];
  sessionId: string | null;
  apiTokenId: string | null;
};

export function hasRole(viewer: Viewer | null, role: StaffRoleName, districtId?: string): boolean {
  return !!viewer?.staffRoles.some((r) => r.role === role && (districtId === undefined || r.districtId === districtId));
}
export function isStaff(viewer: Viewer | null, districtId?: string): boolean {
  return !!viewer?.staffRoles.some((r) => districtId === undefined || r.districtId === districtId);
}
