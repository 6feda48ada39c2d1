import { Field, ObjectType } from "type-graphql";

/** One page of a keyset-paged list, as every staff list returns it. */
export type Page<T> = { items: T[]; nextCursor: string | null };

/** The GraphQL type of a page of `item`s, named `name` ("IndustrialReportPage"); `item` is read lazily, as type-graphql's own thunks are. */
export function PageOf(name: string, item: () => Function) {
  @ObjectType(name, { simpleResolvers: true })
  class PageType {
    @Field(() => [item()]) items: unknown[];
    @Field(() => String, { nullable: true, description: "Pass as `after` for the next page" }) nextCursor: string | null;
  }
  return PageType;
}
