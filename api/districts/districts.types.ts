import { Directive, Field, Float, ID, InputType, Int, ObjectType } from "type-graphql";
import { CACHE_PUBLIC } from "../graphql/cache.js";
import { GraphQLJSON } from "graphql-scalars";

@ObjectType("LimitRow", { description: "A row of a limits table (SUL 903, Huron IV)" })
@Directive(CACHE_PUBLIC)
export class LimitRowType {
  @Field(() => String) parameter: string;
  @Field(() => String) unit: string;
  @Field(() => Float, { nullable: true }) average: number | null;
  @Field(() => Float, { nullable: true }) maximum: number | null;
  @Field(() => Float, { nullable: true }) minimum: number | null;
  @Field(() => String, { nullable: true }) note: string | null;
}

@ObjectType("RuleEntry", { description: "One figure the law sets, with the section it comes from" })
@Directive(CACHE_PUBLIC)
export class RuleEntryType {
  @Field(() => String) key: string;
  @Field(() => String) topic: string;
  @Field(() => String) label: string;
  @Field(() => String) kind: string;
  @Field(() => String, { description: 'Citation, e.g. "Sewer Use Law 1212"' }) section: string;
  @Field(() => String, { nullable: true }) unit: string | null;
  @Field(() => String, { nullable: true }) note: string | null;
  @Field(() => String, { description: 'The value in plain language, e.g. "$150.00" or "Not provided by this law"' }) display: string;
  @Field(() => Boolean, { description: "False when this district's law does not set it" }) applies: boolean;
  @Field(() => Int, { nullable: true, description: "For money: integer cents" }) amountCents: number | null;
  @Field(() => Float, { nullable: true }) number: number | null;
  @Field(() => [LimitRowType], { nullable: true }) rows: LimitRowType[] | null;
  @Field(() => GraphQLJSON, { nullable: true, description: "The raw value as stored; null when this district's law does not set it" }) value: unknown;
}

@ObjectType("Rulebook", { description: "A version of a district's rulebook" })
@Directive(CACHE_PUBLIC)
export class RulebookType {
  @Field(() => ID) id: string;
  @Field(() => Int) version: number;
  @Field(() => String) label: string;
  @Field(() => String, { description: "YYYY-MM-DD, in the district's time zone" }) effectiveDate: string;
  @Field(() => String, { description: "shipped (from the law) or admin (changed in the portal)" }) source: string;
  @Field(() => String, { nullable: true }) reason: string | null;
  @Field(() => Date) createdAt: Date;
  @Field(() => [RuleEntryType]) entries: RuleEntryType[];
}

@InputType()
export class RuleChangeInput {
  @Field(() => String) key: string;
  @Field(() => GraphQLJSON, { nullable: true, description: "The new value, of the setting's kind (money in integer cents)" }) value: unknown;
}

@InputType()
export class ChangeRulebookInput {
  @Field(() => ID) districtId: string;
  @Field(() => [RuleChangeInput]) changes: RuleChangeInput[];
  @Field(() => String, { description: "YYYY-MM-DD: the day the new version comes into force" }) effectiveDate: string;
  @Field(() => String) reason: string;
}
