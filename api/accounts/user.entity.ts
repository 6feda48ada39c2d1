import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity("app_user")
export class User {
  @PrimaryGeneratedColumn("uuid") id: string;
  /** stored lower-cased */
  @Column("text") email: string;
  @Column("text", { name: "display_name" }) displayName: string;
  @Column("text", { name: "password_hash", select: false }) passwordHash: string;
  @Column("timestamptz", { name: "email_verified_at", nullable: true }) emailVerifiedAt: Date | null;
  @Column("boolean", { default: false }) demo: boolean;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "updated_at", default: () => "now()" }) updatedAt: Date;
}

export const STAFF_ROLES = ["CLERK", "OPERATOR", "BOARD", "ADMIN"] as const;
export type StaffRoleName = (typeof STAFF_ROLES)[number];

/** Staff roles belong to one district. */
@Entity("staff_role")
export class StaffRole {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "user_id" }) userId: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("text") role: StaffRoleName;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
}

@Entity("user_session")
export class UserSession {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "user_id" }) userId: string;
  @Column("text", { name: "token_hash" }) tokenHash: string;
  @Column("text", { nullable: true }) ip: string | null;
  @Column("text", { name: "user_agent", nullable: true }) userAgent: string | null;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "last_seen_at", default: () => "now()" }) lastSeenAt: Date;
  @Column("timestamptz", { name: "expires_at" }) expiresAt: Date;
  @Column("timestamptz", { name: "revoked_at", nullable: true }) revokedAt: Date | null;
}

@Entity("api_token")
export class ApiToken {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "user_id" }) userId: string;
  @Column("text") name: string;
  @Column("text", { name: "token_hash" }) tokenHash: string;
  @Column("text", { name: "token_prefix" }) tokenPrefix: string;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "last_used_at", nullable: true }) lastUsedAt: Date | null;
  @Column("timestamptz", { name: "revoked_at", nullable: true }) revokedAt: Date | null;
}

export type OneTimePurpose = "PASSWORD_RESET" | "EMAIL_VERIFICATION";

@Entity("one_time_token")
export class OneTimeToken {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "user_id" }) userId: string;
  @Column("text") purpose: OneTimePurpose;
  @Column("text", { name: "token_hash" }) tokenHash: string;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "expires_at" }) expiresAt: Date;
  @Column("timestamptz", { name: "used_at", nullable: true }) usedAt: Date | null;
}
