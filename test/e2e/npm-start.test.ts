import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, describe, expect, it } from "vitest";
import { librariesMode } from "../../api/config.js";
import { freshDatabase, type TestDatabase } from "../db.js";

/**
 * What `npm start` runs (after its prestart build check, which the browser tests' build has done):
 * `tsx api/main.ts`, with NODE_ENV unset as a newcomer has it. The libraries' mode and the demo are
 * two settings (issue 20): the libraries run their production builds with the demo on or off.
 */
type Started = { child: ChildProcess; url: string; ready: Record<string, unknown>; db: TestDatabase };
const started: Started[] = [];

async function npmStart(env: Record<string, string>): Promise<Started> {
  const db = await freshDatabase();
  const { NODE_ENV: _, TAPLINE_DEV: __, ...inherited } = process.env; // vitest sets NODE_ENV=test; a newcomer's shell has none
  const child = spawn("node_modules/.bin/tsx", ["api/main.ts"], {
    env: { ...inherited, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", TAPLINE_DATA_DIR: db.dataDir, ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {}), ...env } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`tsx api/main.ts exited with ${code} before it was ready`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (!line.includes("Tapline is ready")) return;
      resolve(JSON.parse(line));
    });
  });
  const s = { child, url: String(ready.url), ready, db };
  started.push(s);
  return s;
}

afterAll(async () => {
  for (const s of started) {
    const exited = new Promise((r) => s.child.once("exit", r));
    s.child.kill("SIGTERM");
    await exited;
    await s.db.drop();
  }
});

const page = async (url: string) => (await fetch(url, { headers: { accept: "text/html" } })).text();

describe("npm start: the libraries' mode and the demo are two settings", () => {
  it("runs the libraries in production mode whatever the deployment's mode, development builds only under npm run dev", () => {
    expect(librariesMode({})).toBe("production");
    expect(librariesMode({ NODE_ENV: "development" })).toBe("production");
    expect(librariesMode({ NODE_ENV: "production" })).toBe("production");
    expect(librariesMode({ TAPLINE_DEV: "1" })).toBe("development");
    expect(librariesMode({ NODE_ENV: "test" })).toBe("test");
  });

  it("a newcomer's npm start: production libraries, the demo on (banner, demo accounts); TAPLINE_DEMO=0: production libraries, no demo", async () => {
    const [demo, plain] = await Promise.all([npmStart({}), npmStart({ TAPLINE_DEMO: "0" })]);

    expect(demo.ready).toMatchObject({ libraries: "production", demo: true });
    expect(await page(`${demo.url}/`)).toContain("Demo mode: demo accounts and test payments only.");
    expect(await page(`${demo.url}/sign-in`)).toContain("Demo accounts");

    expect(plain.ready).toMatchObject({ libraries: "production", demo: false });
    const home = await page(`${plain.url}/`);
    expect(home).toContain("Sewer district services, online");
    expect(home).not.toContain("Demo mode");
    expect(await page(`${plain.url}/sign-in`)).not.toContain("Demo accounts");
  }, 120_000);
});
