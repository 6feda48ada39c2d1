import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";
import type { RuleEntry } from "./rulebook-schema.js";

/** One version of a district's rulebook; a decision records the version in force on its date. */
@Entity("rulebook_version")
export class RulebookVersion {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "district_id" }) districtId: string;
  @Column("integer") version: number;
  @Column("text") label: string;
  /** calendar date (YYYY-MM-DD) in the district's time zone */
  @Column("date", { name: "effective_date" }) effectiveDate: string;
  @Column("jsonb") entries: RuleEntry[];
  @Column("text") source: "shipped" | "admin";
  @Column("text", { name: "source_hash", nullable: true }) sourceHash: string | null;
  @Column("text", { nullable: true }) reason: string | null;
  @Column("uuid", { name: "created_by_id", nullable: true }) createdById: string | null;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
}
