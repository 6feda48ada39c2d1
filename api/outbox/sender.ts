import nodemailer from "nodemailer";
import type { Config } from "../config.js";
import { registerJobHandler } from "../jobs/queue.js";

/**
 * Sends unsent outbox emails over SMTP when it is configured. Without SMTP the emails stay in the
 * outbox, where the recipient (and the Clerk) read them in the portal.
 *
 * Each email is sent inside its own short transaction that holds its row (FOR UPDATE SKIP LOCKED)
 * and marks it sent: two runs at once (two instances, or a run whose lease lapsed) never send the
 * same email, and a sent one is never picked again. Only a crash between the mail server's
 * acceptance and the commit can send one email twice; it then goes out with the same Message-ID,
 * which mail systems use to recognise a repeat. On the embedded database (PGlite: one process, one
 * connection) no row is held while an email is handed to the mail server, so no query waits on it.
 */
export function registerOutboxSender(config: Config): void {
  const smtp = config.smtp;
  const transport = smtp
    ? nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        auth: smtp.user ? { user: smtp.user, pass: smtp.password } : undefined,
        // A send holds its email's row (and, on the embedded database, its one connection): a mail
        // server that stops answering fails the send within these instead of nodemailer's minutes.
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      })
    : null;
  const domain = /@([^>\s]+)>?\s*$/.exec(smtp?.from ?? "")?.[1] ?? "tapline.local";
  let inProcess: Promise<unknown> = Promise.resolve(); // one sender at a time on the embedded database
  registerJobHandler("outbox.send", async (ds, _payload, log) => {
    if (!transport) return;
    // The embedded database is one process's alone, and its one connection must not wait on the
    // mail server: there the senders take turns in the process, and each row is read, sent and
    // marked apart.
    const oneConnection = (ds.options as { poolSize?: number }).poolSize === 1;
    const tried: string[] = []; // a failure waits for the next run
    const sendOne = async (db: Pick<typeof ds, "query">, lock: boolean): Promise<boolean> => {
      const [m]: { id: string; to_address: string; subject: string; body_text: string }[] = await db.query(
        `SELECT id, to_address, subject, body_text FROM outbox_email
          WHERE sent_at IS NULL AND attempts < 5 AND id <> ALL($1::uuid[]) ORDER BY created_at LIMIT 1${lock ? " FOR UPDATE SKIP LOCKED" : ""}`,
        [tried],
      );
      if (!m) return false;
      tried.push(m.id);
      try {
        await transport.sendMail({ from: smtp!.from, to: m.to_address, subject: m.subject, text: m.body_text, messageId: `<${m.id}@${domain}>` });
        await db.query(`UPDATE outbox_email SET sent_at = now(), attempts = attempts + 1 WHERE id = $1`, [m.id]);
      } catch (err: any) {
        log.warn({ err, emailId: m.id }, "email not sent; will retry");
        await db.query(`UPDATE outbox_email SET attempts = attempts + 1, last_error = $2 WHERE id = $1`, [m.id, String(err?.message).slice(0, 500)]);
      }
      return true;
    };
    const sendAll = async () => {
      while (tried.length < 50) {
        const more = oneConnection ? await sendOne(ds, false) : await ds.transaction((tx) => sendOne(tx, true));
        if (!more) break;
      }
    };
    if (!oneConnection) return sendAll();
    const mine = inProcess.then(sendAll);
    inProcess = mine.catch(() => undefined);
    return mine;
  });
}
