import path from "node:path";
import { parseArgs } from "node:util";
import { ConfigError, loadConfig, s3Settings } from "../config.js";
import { connect } from "../db/connect.js";
import { migrateDocuments } from "./migrate-documents.js";
import { LocalDocumentStore, S3DocumentStore } from "./storage.js";

/**
 * npm run migrate-documents [-- --from FOLDER]
 * Copies the documents from the local folder (TAPLINE_DATA_DIR/uploads unless --from says) into the
 * bucket the S3_* variables name, checking every SHA-256; exits 1 if any document was not copied
 * whole. Then set DOCUMENT_STORE=s3 and restart. See docs/deploy.md.
 */
const { values } = parseArgs({ options: { from: { type: "string" } } });
let config;
try {
  config = loadConfig();
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(e.message);
    process.exit(1);
  }
  throw e;
}
const env = Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined && v.trim() !== "")) as Record<string, string>;
if (!env.S3_BUCKET) {
  console.error("Set S3_BUCKET (and S3_ENDPOINT, S3_REGION, S3_FORCE_PATH_STYLE, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY as your store needs) to the bucket to copy into.");
  process.exit(1);
}
const from = new LocalDocumentStore(values.from ? path.resolve(values.from) : config.uploadDir);
const to = new S3DocumentStore(s3Settings(env));
const db = await connect(config);
try {
  console.log(`Copying documents from ${from.description} to ${to.description}`);
  const report = await migrateDocuments(db.ds, from, to, (done, total) => {
    if (done % 100 === 0 || done === total) console.log(`  ${done} of ${total}`);
  });
  console.log(`${report.copied} document${report.copied === 1 ? "" : "s"} copied and read back with the SHA-256 the database holds.`);
  for (const p of report.problems) console.error(`  document ${p.documentId} (${p.storageKey}): ${p.problem}`);
  if (report.unreferenced.length) console.log(`${report.unreferenced.length} file(s) in ${from.description} that no document names were left out: ${report.unreferenced.join(", ")}`);
  if (report.problems.length) {
    console.error(`${report.problems.length} document(s) not copied whole: keep DOCUMENT_STORE=local until they are dealt with.`);
    process.exitCode = 1;
  }
} finally {
  await db.close();
}
