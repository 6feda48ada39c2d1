import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

@Entity("outbox_email")
export class OutboxEmail {
  @PrimaryGeneratedColumn("uuid") id: string;
  @Column("text", { name: "to_address" }) toAddress: string;
  @Column("uuid", { name: "recipient_id", nullable: true }) recipientId: string | null;
  @Column("uuid", { name: "district_id", nullable: true }) districtId: string | null;
  @Column("text") subject: string;
  @Column("text", { name: "body_text" }) bodyText: string;
  @Column("text") kind: string;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "sent_at", nullable: true }) sentAt: Date | null;
  @Column("integer", { default: 0 }) attempts: number;
  @Column("text", { name: "last_error", nullable: true }) lastError: string | null;
}
