import { ConfigError, loadConfig } from "../config.js";
import { BackupError, restore } from "./backup.js";

/**
 * npm run restore -- BACKUP_FOLDER
 * Checks every file of the backup against its manifest, then restores it into the database and the
 * document store this environment names, which must both be empty. Start Tapline afterwards as
 * usual. See docs/deploy.md, "Backups".
 */
try {
  const from = process.argv[2];
  if (!from) throw new BackupError("Name the backup folder: npm run restore -- backups/tapline-backup-...");
  const config = loadConfig();
  const { manifest, documents } = await restore(config, from);
  console.log(`Restored the backup of ${manifest.createdAt}: the database (${manifest.database.file}, last migration ${manifest.database.lastMigration}) and ${documents} document(s), each read back with its SHA-256.`);
  if (manifest.problems.length) console.error(`${manifest.problems.length} document(s) were missing from this backup when it was made: ${manifest.problems.map((p) => p.documentId).join(", ")}`);
} catch (e) {
  if (!(e instanceof ConfigError || e instanceof BackupError)) throw e;
  console.error(e.message);
  process.exitCode = 1;
}
