import { pino } from "pino";
import { loadConfig } from "../config.js";
import { connect } from "../db/connect.js";
import { connectAccountByOperator } from "./connect.service.js";

/**
 * The deployment's operator connects a district's existing Stripe account (docs/payments.md,
 * "Each district's own Stripe account"):
 *   npm run stripe-account -- <district-slug> acct_...   connect it (checked with Stripe)
 *   npm run stripe-account -- <district-slug> --none     disconnect (counter payments only)
 * With the embedded database, stop the portal first (one process opens it at a time).
 */
const [slug, account] = process.argv.slice(2);
if (!slug || !account) {
  console.error("usage: npm run stripe-account -- <district-slug> <acct_...|--none>");
  process.exit(2);
}
const config = loadConfig();
const log = pino({ level: config.logLevel });
const db = await connect(config);
try {
  const c = await connectAccountByOperator(db.ds, config, slug, account === "--none" ? null : account, log);
  console.log(c ? `${slug}: ${c.accountId}, ${c.chargesEnabled ? "takes card payments" : "Stripe does not let it take card payments yet"}` : `${slug}: no Stripe account; counter payments only`);
} catch (err: any) {
  console.error(`${slug}: ${err?.message ?? err}`);
  process.exitCode = 1;
} finally {
  await db.close();
}
