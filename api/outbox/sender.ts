import nodemailer from "nodemailer";
import type { Config } from "../config.js";
import { registerJobHandler } from "../jobs/queue.js";

/**
 * Sends unsent outbox emails over SMTP when it is configured. Without SMTP the emails stay in the
 * outbox, where the recipient (and the Clerk) read them in the portal.
 */
export function registerOutboxSender(config: Config): void {
  const smtp = config.smtp;
  const transport = smtp
    ? nodemailer.createTransport({ host: smtp.host, port: smtp.port, auth: smtp.user ? { user: smtp.user, pass: smtp.password } : undefined })
    : null;
  registerJobHandler("outbox.send", async (ds, _payload, log) => {
    if (!transport) return;
    const rows: { id: string; to_address: string; subject: string; body_text: string }[] = await ds.query(
      `SELECT id, to_address, subject, body_text FROM outbox_email WHERE sent_at IS NULL AND attempts < 5 ORDER BY created_at LIMIT 50`,
    );
    for (const m of rows) {
      try {
        await transport.sendMail({ from: smtp!.from, to: m.to_address, subject: m.subject, text: m.body_text });
        await ds.query(`UPDATE outbox_email SET sent_at = now(), attempts = attempts + 1 WHERE id = $1`, [m.id]);
      } catch (err: any) {
        log.warn({ err, emailId: m.id }, "email not sent; will retry");
        await ds.query(`UPDATE outbox_email SET attempts = attempts + 1, last_error = $2 WHERE id = $1`, [m.id, String(err?.message).slice(0, 500)]);
      }
    }
  });
}
