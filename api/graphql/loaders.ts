import DataLoader from "dataloader";
import { In, type DataSource } from "typeorm";
import { User } from "../accounts/user.entity.js";
import { District } from "../districts/district.entity.js";
import { Organization } from "../organizations/organization.entity.js";

function byId<T extends { id: string }>(ds: DataSource, entity: new () => T) {
  return new DataLoader<string, T | null>(async (ids) => {
    const rows = await ds.getRepository(entity).findBy({ id: In([...ids]) } as any);
    const map = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => map.get(id) ?? null);
  });
}

/** Per-request loaders: one query per kind of record, never one per row. */
export function createLoaders(ds: DataSource) {
  return {
    district: byId(ds, District),
    user: byId(ds, User),
    organization: byId(ds, Organization),
  };
}
export type Loaders = ReturnType<typeof createLoaders>;
