import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

export const DOCUMENT_TYPES = ["application/pdf", "image/png", "image/jpeg"] as const;
export type DocumentContentType = (typeof DOCUMENT_TYPES)[number];

@Entity("document")
export class Document {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("uuid", { name: "owner_id" }) ownerId: string;
  @Column("uuid", { name: "organization_id", nullable: true }) organizationId: string | null;
  @Column("text") filename: string;
  @Column("text", { name: "content_type" }) contentType: DocumentContentType;
  @Column("integer", { name: "size_bytes" }) sizeBytes: number;
  @Column("text") sha256: string;
  @Column("text", { name: "storage_key" }) storageKey: string;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
}
