import type { AddressInfo } from "node:net";
import { pino } from "pino";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerOutboxSender } from "../../api/outbox/sender.js";
import { enqueueJob, runDueJobs } from "../../api/jobs/queue.js";
import { Client, DEMO, startTestServer, type TestServer } from "../harness.js";

let srv: TestServer;
let smtp: SMTPServer;
const received: { to: string[]; data: string }[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    onData(stream, session, cb) {
      let data = "";
      stream.on("data", (c) => (data += c));
      stream.on("end", () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), data });
        cb();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, "127.0.0.1", () => r()));
  const port = (smtp.server.address() as AddressInfo).port;
  srv = await startTestServer({ env: { SMTP_HOST: "127.0.0.1", SMTP_PORT: String(port), SMTP_FROM: "Lakeview Sewer District <clerk@lakeview.example.gov>" } });
});
afterAll(async () => {
  await srv?.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

describe("outbox with a mail server", () => {
  it("sends each queued email once over SMTP and marks it sent; the portal copy hides one-time links", async () => {
    const c = new Client(srv.url);
    await c.signUp("mailbox@example.org", "Mel Mailbox");
    const ds = srv.running.ds;
    // The test server runs without background workers; register the sender as startWorkers does.
    registerOutboxSender({ smtp: { host: "127.0.0.1", port: (smtp.server.address() as AddressInfo).port, from: "Lakeview Sewer District <clerk@lakeview.example.gov>" } } as any);
    await enqueueJob(ds, { name: "outbox.send" });
    await runDueJobs(ds, pino({ level: "silent" }));
    const mine = received.filter((m) => m.to.includes("mailbox@example.org"));
    expect(mine).toHaveLength(1);
    expect(mine[0].data).toMatch(/Subject: Confirm your email address/);
    expect(mine[0].data).toMatch(/verify-email\?token=/);
    const [row] = await ds.query(`SELECT sent_at, attempts FROM outbox_email WHERE to_address = 'mailbox@example.org'`);
    expect(row.sent_at).toBeTruthy();
    await enqueueJob(ds, { name: "outbox.send" });
    await runDueJobs(ds, pino({ level: "silent" }));
    expect(received.filter((m) => m.to.includes("mailbox@example.org"))).toHaveLength(1);
    // With a mail server the link is proven by the mailbox, not readable in the portal.
    const emails = await c.ok(`{ myEmails { subject bodyText sentAt } }`);
    expect(emails.myEmails[0].bodyText).not.toMatch(/token=/);
    expect(emails.myEmails[0].sentAt).toBeTruthy();
  });

  it("the Clerk and ADMIN read the district's outgoing email", async () => {
    const admin = new Client(srv.url);
    await admin.signIn(DEMO.lakeviewAdmin);
    const { district } = await admin.ok(`{ district(slug: "lakeview") { id } }`);
    await admin.ok(`mutation($i: GrantStaffRoleInput!) { grantStaffRole(input: $i) { ok } }`, { i: { districtId: district.id, email: DEMO.applicant, role: "BOARD", reason: "Appointed to the Board" } });
    const out = await admin.ok(`query($d: ID!) { districtOutbox(districtId: $d) { kind subject bodyText } }`, { d: district.id });
    expect(out.districtOutbox.find((e: any) => e.kind === "staff.role_granted").bodyText).toMatch(/Appointed to the Board/);
  });
});
