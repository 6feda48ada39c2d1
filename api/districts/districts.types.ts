import { Directive, Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from "type-graphql";
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

@ObjectType("RuleTableColumn", { description: "A column of a board table the ADMIN enters in the rulebook editor" })
@Directive(CACHE_PUBLIC)
export class RuleTableColumnType {
  @Field(() => String, { description: "The row's field: parameter, minimum or average" }) field: string;
  @Field(() => String) label: string;
}

/** Where a rulebook figure comes from (docs/decisions/statute-or-board-figures.md). */
export enum RuleSourceEnum {
  STATUTE = "statute",
  BOARD = "board",
}
registerEnumType(RuleSourceEnum, {
  name: "RuleSource",
  description: "Where a figure comes from",
  valuesConfig: {
    STATUTE: { description: "Written in the district's law (or the law provides no such thing): it changes only when the law is amended" },
    BOARD: { description: "Set by Town Board resolution, within the law's bounds: the district's ADMIN enters it, citing the resolution" },
  },
});

@ObjectType("RuleResolution", { description: "The Town Board resolution that set a figure" })
@Directive(CACHE_PUBLIC)
export class RuleResolutionType {
  @Field(() => String, { description: 'e.g. "2026-14"' }) number: string;
  @Field(() => String, { description: "YYYY-MM-DD: the day the Board adopted it" }) adoptedOn: string;
}

@ObjectType("RuleBound", { description: "The least or the most the law allows for a Town Board figure" })
@Directive(CACHE_PUBLIC)
export class RuleBoundType {
  @Field(() => Float, { nullable: true, description: "In the entry's own terms (integer cents for money); null when the law figure it names is not set" }) value: number | null;
  @Field(() => String, { nullable: true, description: 'The figure in plain language, e.g. "$100.00"' }) display: string | null;
  @Field(() => String, { description: 'The section that sets it, e.g. "Sewer Use Law 801"' }) section: string;
  @Field(() => String, { nullable: true, description: "The rulebook entry that holds the figure, when the law's figure is an entry of its own" }) key: string | null;
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
  @Field(() => [RuleTableColumnType], { nullable: true, description: "BOARD tables the ADMIN enters (the Uni-Bell tables): the columns of a row; null otherwise" })
  tableColumns: RuleTableColumnType[] | null;
  @Field(() => GraphQLJSON, { nullable: true, description: "The raw value as stored; null when this district's law does not set it" }) value: unknown;
  @Field(() => RuleSourceEnum, { description: "Set by the law (STATUTE) or by the Town Board within the law's bounds (BOARD)" }) source: RuleSourceEnum;
  @Field(() => RuleResolutionType, { nullable: true, description: "BOARD: the resolution that set the figure in force, where one is recorded" }) resolution: RuleResolutionType | null;
  @Field(() => RuleBoundType, { nullable: true, description: "BOARD: the least the law allows" }) min: RuleBoundType | null;
  @Field(() => RuleBoundType, { nullable: true, description: "BOARD: the most the law allows" }) max: RuleBoundType | null;
  @Field(() => String, { nullable: true, description: `BOARD: the law's bounds in plain language, e.g. "within the law's cap of $100.00 (Sewer Use Law 801)"` }) boundsText: string | null;
  @Field(() => String, {
    description: `Where the figure comes from, in plain language: "Set by the law, Sewer Use Law 801" or "Set by the Town Board, resolution 2026-14 of November 3, 2026, within the law's cap of $100.00 (Sewer Use Law 801)"`,
  })
  sourceText: string;
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
  @Field(() => String, { nullable: true, description: "The Town Board resolution that sets the figures changed (required: only Board figures change here)" })
  resolutionNumber: string | null;
  @Field(() => String, { nullable: true, description: "YYYY-MM-DD: the day the Board adopted it; the change cannot come into force before" })
  resolutionAdoptedOn: string | null;
}
