import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity("audit_entry")
export class AuditEntry {
  @PrimaryGeneratedColumn("increment", { type: "bigint" }) id: string;
  @Column("timestamptz", { default: () => "now()" }) at: Date;
  @Column("uuid", { name: "actor_id", nullable: true }) actorId: string | null;
  @Column("uuid", { name: "district_id", nullable: true }) districtId: string | null;
  @Column("text") action: string;
  @Column("text", { name: "entity_type" }) entityType: string;
  @Column("text", { name: "entity_id" }) entityId: string;
  @Column("text", { nullable: true }) reason: string | null;
  @Column("jsonb", { default: {} }) details: Record<string, unknown>;
  @Column("text", { name: "request_id", nullable: true }) requestId: string | null;
}
