import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

export const ORGANIZATION_KINDS = ["HAULER", "INDUSTRIAL_USER", "CONTRACTOR", "DEVELOPER"] as const;
export type OrganizationKind = (typeof ORGANIZATION_KINDS)[number];
export const MEMBERSHIP_ROLES = ["OWNER", "AUTHORIZED_REPRESENTATIVE", "MEMBER"] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

@Entity("organization")
export class Organization {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("text") name: string;
  @Column("text") kind: OrganizationKind;
  @Column("uuid", { name: "created_by_id" }) createdById: string;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
}

@Entity("membership")
export class Membership {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "organization_id" }) organizationId: string;
  @Column("uuid", { name: "user_id" }) userId: string;
  @Column("text") role: MembershipRole;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
}

@Entity("invitation")
export class Invitation {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "organization_id" }) organizationId: string;
  @Column("text") email: string;
  @Column("text") role: MembershipRole;
  @Column("text", { name: "token_hash" }) tokenHash: string;
  @Column("uuid", { name: "invited_by_id" }) invitedById: string;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "expires_at" }) expiresAt: Date;
  @Column("timestamptz", { name: "accepted_at", nullable: true }) acceptedAt: Date | null;
  @Column("uuid", { name: "accepted_by_id", nullable: true }) acceptedById: string | null;
  @Column("timestamptz", { name: "revoked_at", nullable: true }) revokedAt: Date | null;
}
