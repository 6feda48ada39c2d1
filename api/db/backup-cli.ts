import { ConfigError, loadConfig } from "../config.js";
import { backup, BackupError } from "./backup.js";

/**
 * npm run backup [-- FOLDER]
 * Writes tapline-backup-<UTC time>/ under FOLDER (./backups unless given): the database and every
 * document, with a manifest of checksums. Exits 1 if it could not, or if a document could not be
 * read whole (the backup is then written without it, and says so). See docs/deploy.md, "Backups".
 */
try {
  const config = loadConfig();
  const { dir, manifest } = await backup(config, process.argv[2] ?? "backups");
  console.log(`Backup written to ${dir}: the ${manifest.database.kind === "pglite" ? "embedded database" : "database"} (${manifest.database.file}) and ${manifest.documents.length} document(s) from ${manifest.documentStore}.`);
  if (manifest.problems.length) {
    for (const p of manifest.problems) console.error(`  document ${p.documentId} (${p.storageKey}) is not in it: ${p.problem}`);
    console.error(`${manifest.problems.length} document(s) could not be read whole and are not in the backup.`);
    process.exitCode = 1;
  }
} catch (e) {
  if (!(e instanceof ConfigError || e instanceof BackupError)) throw e;
  console.error(e.message);
  process.exitCode = 1;
}
