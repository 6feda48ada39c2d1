import "reflect-metadata";
import { DataSource } from "typeorm";
import { migrations } from "../../migrations/index.js";
import { AuditEntry } from "../audit/audit-entry.entity.js";
import { ApiToken, OneTimeToken, StaffRole, User, UserSession } from "../accounts/user.entity.js";
import { District } from "../districts/district.entity.js";
import { RulebookVersion } from "../districts/rulebook-version.entity.js";
import { Document } from "../documents/document.entity.js";
import { OutboxEmail } from "../outbox/outbox-email.entity.js";
import { Invitation, Membership, Organization } from "../organizations/organization.entity.js";
import { Payment, Refund } from "../payments/payment.entity.js";
import { LateralInspection, LateralPermit, LateralPermitDocument, SewerMoratorium } from "../laterals/lateral-permit.entity.js";
import { Charge, EnforcementAction, FlowDeductionDocument, FlowDeductionRequest, Petition, PetitionDocument, Prosecution, ShowCauseHearing } from "../enforcement/enforcement.entity.js";
import { HaulerLicense, HaulerLoad, HaulerPermission, HaulerVehicle } from "../haulers/hauler.entity.js";

export const entities = [
  District,
  RulebookVersion,
  User,
  StaffRole,
  UserSession,
  ApiToken,
  OneTimeToken,
  Organization,
  Membership,
  Invitation,
  AuditEntry,
  OutboxEmail,
  Document,
  Payment,
  Refund,
  LateralPermit,
  LateralPermitDocument,
  LateralInspection,
  SewerMoratorium,
  EnforcementAction,
  Petition,
  PetitionDocument,
  ShowCauseHearing,
  Prosecution,
  Charge,
  FlowDeductionRequest,
  FlowDeductionDocument,
  HaulerLicense,
  HaulerPermission,
  HaulerVehicle,
  HaulerLoad,
];

/** `poolSize` is 1 on the embedded database (pglite-socket takes one connection at a time). */
export function createDataSource(url: string, opts: { poolSize?: number } = {}): DataSource {
  return new DataSource({
    type: "postgres",
    url,
    entities,
    migrations,
    migrationsTableName: "typeorm_migrations",
    synchronize: false,
    installExtensions: false,
    uuidExtension: "pgcrypto",
    poolSize: opts.poolSize ?? 10,
    extra: { connectionTimeoutMillis: 30_000 },
    logging: false,
  });
}
