import { Directive, Field, ID, ObjectType } from "type-graphql";
import { CACHE_PUBLIC } from "../graphql/cache.js";
import { Column, Entity, PrimaryGeneratedColumn } from "typeorm";

@ObjectType({ description: "A contact at the district office" })
@Directive(CACHE_PUBLIC)
export class DistrictContact {
  @Field(() => String) role: string;
  @Field(() => String) name: string;
  @Field(() => String) email: string;
  @Field(() => String) phone: string;
}

@ObjectType({ description: "A sewer district and the law that governs it" })
@Directive(CACHE_PUBLIC)
@Entity("district")
export class District {
  @Field(() => ID) @PrimaryGeneratedColumn("uuid") id: string;
  @Field(() => String) @Column("text") slug: string;
  @Field(() => String) @Column("text") name: string;
  @Field(() => String) @Column("text", { name: "law_name" }) lawName: string;
  @Field(() => String, { description: 'How citations start: "Sewer Use Law" or "Huron"' })
  @Column("text", { name: "citation_prefix" })
  citationPrefix: string;
  @Field(() => String, { description: 'What the law calls the official who reviews permits and inspects the work: "District Operator" (SUL 201) or "Superintendent" (Huron I)' })
  @Column("text", { name: "operator_title" })
  operatorTitle: string;
  @Field(() => String, { description: "IANA time zone; deadlines are calendar dates here" })
  @Column("text", { name: "time_zone" })
  timeZone: string;
  @Field(() => String) @Column("text") address: string;
  @Field(() => [DistrictContact]) @Column("jsonb") contacts: DistrictContact[];
  @Field(() => String) @Column("text", { name: "public_notice" }) publicNotice: string;
  @Column("timestamptz", { name: "created_at", default: () => "now()" }) createdAt: Date;
  @Column("timestamptz", { name: "updated_at", default: () => "now()" }) updatedAt: Date;
}
