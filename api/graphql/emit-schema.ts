import fs from "node:fs";
import { SCHEMA_FILE, schemaText } from "./schema.js";

fs.writeFileSync(SCHEMA_FILE, await schemaText());
console.log(`wrote ${SCHEMA_FILE}`);
