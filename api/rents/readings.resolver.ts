import { Arg, Ctx, Field, FieldResolver, Float, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { PageOf } from "../graphql/page.js";
import { READ_FLAG_LABELS, READ_KIND_LABELS, type ReadFlag, type ReadKind } from "./readings.rules.js";
import * as readings from "./readings.service.js";

@ObjectType("MeterReadingRowError", { description: "A row of a reading file that was not imported: its line in the file and why", simpleResolvers: true })
export class RowErrorType {
  @Field(() => Int) line: number;
  @Field(() => String) reason: string;
}

@ObjectType("MeterReadingImport", { description: "A reading file the Town Clerk imported, kept with its counts and its bad rows (SUL 1205)", simpleResolvers: true })
export class ImportType {
  @Field(() => ID) id: string;
  @Field(() => ID) districtId: string;
  @Field(() => String) fileName: string;
  @Field(() => Int, { description: "Rows after the header" }) rowsRead: number;
  @Field(() => Int) rowsImported: number;
  @Field(() => Int, { description: "Of the rows imported, those estimated (missing reads, or the reader's estimates)" }) rowsEstimated: number;
  @Field(() => Int) rowsRejected: number;
  @Field(() => [RowErrorType]) errors: RowErrorType[];
  @Field(() => String, { nullable: true }) enteredByName: string | null;
  @Field(() => Date) createdAt: Date;
}

const ImportPageType = PageOf("MeterReadingImportPage", () => ImportType);

@ObjectType("MeterReading", { description: "A meter's read and the gallons since its previous read, worked out at import" })
export class ReadingType {
  @Field(() => ID) id: string;
  @Field(() => ID) meterId: string;
  @Field(() => String) meterNumber: string;
  @Field(() => String, { description: "YYYY-MM-DD" }) readOn: string;
  @Field(() => Float, { description: "The register's reading, in its units" }) reading: number;
  @Field(() => String, { description: "ACTUAL or ESTIMATED" }) kind: string;
  @Field(() => Float, { nullable: true, description: "Gallons since the meter's previous read (negative: a true-up giving back an overestimate); null for a meter's baseline" }) gallons: number | null;
  @Field(() => [String], { description: "ROLLOVER, TRUE_UP, FIRST_READ, BASELINE, FINAL, FROM_AVERAGE" }) flags: string[];
  @Field(() => ID, { nullable: true }) importId: string | null;
  @Field(() => Int, { nullable: true, description: "Its line in the import's file" }) line: number | null;
  @Field(() => ID, { nullable: true, description: "For an estimate: the actual read that trued it up" }) truedUpById: string | null;
}

@InputType("ImportMeterReadingsInput")
export class ImportInput {
  @Field(() => ID) districtId: string;
  @Field(() => String, { description: "The file's name, kept with the import" }) fileName: string;
  @Field(() => String, { description: "The CSV text: a header line (meter or account, date, reading, optional kind, new meter, new reading), then one read a line" }) csv: string;
}

const meta = (ctx: Context) => ({ requestId: ctx.requestId });
const STAFF = ["CLERK", "OPERATOR", "BOARD", "ADMIN"] as const;

@Resolver(() => ReadingType)
export class MeterReadingsResolver {
  @Access("CLERK")
  @Mutation(() => ImportType, { description: "The Town Clerk imports a reading file: the good rows go in, each bad row is reported with its line" })
  importMeterReadings(@Arg("input", () => ImportInput) input: ImportInput, @Ctx() ctx: Context) {
    return readings.importReadings(ctx.ds, ctx.viewer!, input, meta(ctx));
  }

  @Access(...STAFF)
  @Query(() => ImportPageType, { description: "The district's reading imports, newest first" })
  meterReadingImports(
    @Arg("districtId", () => ID) districtId: string,
    @Ctx() ctx: Context,
    @Arg("first", () => Int, { nullable: true }) first?: number | null,
    @Arg("after", () => String, { nullable: true }) after?: string | null,
  ) {
    return readings.listImports(ctx.ds, ctx.viewer!, districtId, { first, after });
  }

  @Access(...STAFF)
  @Query(() => ImportType, { description: "One reading import with its report" })
  meterReadingImport(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return readings.getImport(ctx.ds, ctx.viewer!, id);
  }

  @Access(...STAFF)
  @Query(() => [ReadingType], { description: "A meter's reads, newest first" })
  meterReadings(@Arg("meterId", () => ID) meterId: string, @Ctx() ctx: Context, @Arg("first", () => Int, { nullable: true }) first?: number | null) {
    return readings.meterReadings(ctx.ds, ctx.viewer!, meterId, first);
  }

  @FieldResolver(() => String)
  kindLabel(@Root() r: readings.ReadingView) {
    return READ_KIND_LABELS[r.kind as ReadKind];
  }

  @FieldResolver(() => [String])
  flagLabels(@Root() r: readings.ReadingView) {
    return r.flags.map((f) => READ_FLAG_LABELS[f as ReadFlag] ?? f);
  }
}
