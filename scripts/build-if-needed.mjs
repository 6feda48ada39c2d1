// Builds the portal when build/ is missing or older than the portal's sources, so `npm start`
// works on a fresh clone and stays fast afterwards.
import { execSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const out = "build/server/index.js";
function newest(dir) {
  let t = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
  }
  return t;
}
const built = fs.existsSync(out) ? fs.statSync(out).mtimeMs : 0;
const sources = Math.max(newest("web"), fs.statSync("vite.config.ts").mtimeMs, fs.statSync("package-lock.json").mtimeMs);
if (built < sources) {
  console.log("Building the portal (first run or sources changed)...");
  execSync("npx remix vite:build", { stdio: "inherit" });
}
