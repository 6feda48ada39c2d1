import { ApolloServer } from "@apollo/server";
import { expressMiddleware } from "@as-integrations/express4";
import { ApolloServerPluginLandingPageDisabled } from "@apollo/server/plugin/disabled";
import responseCachePlugin from "@apollo/server-plugin-response-cache";
import {
  cacheControlPlugin,
  cachedPortalAnswer,
  keepPortalAnswer,
  mayBeCached,
  portalAnswerBeingRead,
  portalAnswerKey,
  publicResponseCache,
  readingPortalAnswer,
} from "./graphql/cache.js";
import { listsChanged, mayChangeLists } from "./graphql/micro-cache.js";
import { ApolloArmor } from "@escape.tech/graphql-armor";
import express from "express";
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { pinoHttp } from "pino-http";
import type { DataSource } from "typeorm";
import { AppError } from "./common/errors.js";
import type { Config } from "./config.js";
import { registerDocumentDownload } from "./documents/download.js";
import { registerPermitPdf } from "./laterals/permit-pdf.js";
import { registerBillPdf } from "./rents/bill-pdf.js";
import { registerPaperMailing } from "./rents/paperless.js";
import { registerStripeWebhook } from "./payments/webhook.js";
import { securityHeaders } from "./security-headers.js";
import { compressResponses } from "./compression.js";
import { formatMegabytes } from "./documents/documents.service.js";
import type { Context } from "./graphql/context.js";
import { makeFormatError } from "./graphql/errors.js";
import { buildContext } from "./graphql/request-context.js";
import { getSchema } from "./graphql/schema.js";
import { jitExecution } from "./graphql/jit.js";
import { storableStringsPlugin } from "./graphql/string-hygiene.js";

/**
 * The largest /graphql request body: a base64-encoded upload of config.uploadMaxBytes (4 characters
 * per 3 bytes) plus 64 KiB for the query, the other variables and the JSON around them.
 */
export function maxBodyBytes(config: Pick<Config, "uploadMaxBytes">): number {
  return Math.ceil((config.uploadMaxBytes * 4) / 3) + 64 * 1024;
}

/** A long query document costs parse and validation time whatever the body limit: cap its tokens. */
export const MAX_QUERY_TOKENS = 20_000;

/** What the portal uses to call the API in-process, with the browser's cookies. */
export type GraphQLExecutor = (
  request: Request,
  query: string,
  variables?: Record<string, unknown>,
  ip?: string,
) => Promise<{ data?: any; errors?: { message: string; extensions?: Record<string, any> }[]; setCookies: string[] }>;

export async function createApi(opts: { ds: DataSource; config: Config; log: Logger }) {
  const { ds, config, log } = opts;
  const armor = new ApolloArmor({
    maxDepth: { n: 10 },
    costLimit: { maxCost: 5000 },
    maxAliases: { n: 15 },
    maxDirectives: { n: 20 },
    maxTokens: { enabled: false }, // its parser turns a syntax error into a 500; parseOptions.maxTokens below bounds size instead
    blockFieldSuggestion: { enabled: config.production },
  });
  const protection = armor.protect();
  const apollo = new ApolloServer<Context>({
    // The schema, its operations executed by graphql-jit (api/graphql/jit.ts).
    gateway: jitExecution(await getSchema()),
    csrfPrevention: true,
    introspection: !config.production,
    formatError: makeFormatError(log),
    parseOptions: { maxTokens: MAX_QUERY_TOKENS },
    ...protection,
    includeStacktraceInErrorResponses: false,
    plugins: [
      ...protection.plugins,
      // NUL and lone surrogates in any argument: BAD_USER_INPUT before anything resolves.
      storableStringsPlugin<Context>(),
      // Apollo's cache-control plugin, without its per-field hook for operations with a signed-in root field.
      cacheControlPlugin<Context>(),
      // Any mutation may change what a cached dashboard or queue shows: clear them, on every instance.
      {
        async requestDidStart() {
          return {
            async willSendResponse({ operation }) {
              if (operation?.operation === "mutation" && mayChangeLists(operation)) await listsChanged(ds, log);
            },
          };
        },
      },
      // Public-only answers are shared; anything with a signed-in field has maxAge 0 and is not cached
      // (nor looked up, when that is known before execution).
      responseCachePlugin({ cache: publicResponseCache, shouldReadFromCache: mayBeCached }),
      ...(config.production ? [ApolloServerPluginLandingPageDisabled()] : []),
    ],
    validationRules: [...protection.validationRules],
  });
  await apollo.start();

  const execute: GraphQLExecutor = async (request, query, variables, ip = "unknown") => {
    // A public-only operation the portal asked for within its maxAge: the same answer, without Apollo.
    const key = portalAnswerKey(query, variables);
    const cached = cachedPortalAnswer(key);
    if (cached !== undefined) return { data: cached, setCookies: [] };
    const beingRead = await portalAnswerBeingRead(key);
    if (beingRead !== undefined) return { data: beingRead, setCookies: [] };
    const done = readingPortalAnswer(key);
    let answer: unknown;
    try {
      let built;
      try {
        built = await buildContext({ ds, config, log, headers: request.headers, ip });
      } catch (e) {
        if (e instanceof AppError) return { errors: [{ message: e.message, extensions: { code: e.code } }], setCookies: [] };
        throw e;
      }
      const res = await apollo.executeOperation({ query, variables }, { contextValue: built.ctx });
      if (res.body.kind !== "single") throw new Error("incremental delivery is not used");
      const { data, errors } = res.body.singleResult;
      if (!errors?.length && data) {
        keepPortalAnswer(key, data, res.http.headers.get("cache-control"));
        answer = cachedPortalAnswer(key);
      }
      return { data, errors: errors as any, setCookies: built.setCookies };
    } finally {
      done?.(answer);
    }
  };

  return { apollo, execute };
}

export function createApp(opts: { ds: DataSource; config: Config; log: Logger; api: Awaited<ReturnType<typeof createApi>>; viteHmr?: boolean }) {
  const { ds, config, log, api } = opts;
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.trustProxy); // TRUST_PROXY: whose X-Forwarded-For names the client (req.ip)
  // First, so every response carries them: CSP with a per-request nonce, frame and referrer rules,
  // HSTS in production, and `private, no-store` for anyone signed in (api/security-headers.ts).
  app.use(securityHeaders(config, { viteHmr: opts.viteHmr }));
  // Every text response compressed (brotli or gzip), build files excepted: they are already (api/compression.ts).
  app.use(compressResponses());

  // One line per request with its duration; headers (cookies, tokens) are never logged.
  app.use(
    pinoHttp({
      logger: log,
      genReqId: (req, res) => {
        const id = randomUUID();
        res.setHeader("x-request-id", id);
        return id;
      },
      serializers: {
        req: (req) => ({ method: req.method, url: req.url?.split("?")[0] }),
        res: (res) => ({ statusCode: res.statusCode }),
      },
      autoLogging: { ignore: (req) => req.url === "/healthz" || req.url?.startsWith("/assets/") === true },
    }),
  );

  // Shutting down (api/app.ts close()): connections are not kept for another request, and the
  // health check says so, so the load balancer stops sending here while requests in flight finish.
  app.locals.draining = false;
  app.use((_req, res, next) => {
    if (app.locals.draining) res.setHeader("Connection", "close");
    next();
  });

  app.get("/healthz", async (_req, res) => {
    if (app.locals.draining) return void res.status(503).json({ status: "draining" });
    try {
      await ds.query("SELECT 1");
      res.status(200).json({ status: "ok" });
    } catch (err) {
      log.warn({ err }, "health check failed: database did not answer");
      res.status(503).json({ status: "database unavailable" });
    }
  });

  // Before the portal is mounted (it takes every path the API does not).
  registerDocumentDownload(app, { ds, config, log });
  registerPermitPdf(app, { ds, config, log });
  registerBillPdf(app, { ds, config, log });
  registerPaperMailing(app, { ds, config, log });
  // Stripe signs the raw body: this route reads it raw, before any JSON parser.
  registerStripeWebhook(app, { ds, config, log });

  const bodyLimit = maxBodyBytes(config);
  app.use(
    "/graphql",
    express.json({ limit: bodyLimit }),
    (err: any, _req: express.Request, res: express.Response, next: express.NextFunction) => {
      if (err?.type === "entity.too.large") {
        lingeringClose(_req, res);
        return res.status(413).json({ errors: [{ message: `The request is larger than ${formatMegabytes(bodyLimit)}.`, extensions: { code: "PAYLOAD_TOO_LARGE" } }] });
      }
      if (err?.type === "entity.parse.failed")
        return res.status(400).json({ errors: [{ message: "The request body is not valid JSON.", extensions: { code: "BAD_REQUEST" } }] });
      next(err);
    },
    async (req: express.Request, res: express.Response, next: express.NextFunction) => {
      // Resolve who is calling before Apollo, so a bad bearer token is a clean 401.
      try {
        const built = await buildContext({ ds, config, log, headers: req.headers, ip: req.ip ?? "unknown", requestId: String((req as any).id) });
        (req as any).taplineContext = built;
        next();
      } catch (e) {
        if (e instanceof AppError) return res.status(401).json({ errors: [{ message: e.message, extensions: { code: e.code } }] });
        next(e);
      }
    },
    expressMiddleware(api.apollo, {
      context: async ({ req, res }) => {
        const built = (req as any).taplineContext as Awaited<ReturnType<typeof buildContext>>;
        const ctx = built.ctx;
        const push = ctx.setSessionCookie;
        ctx.setSessionCookie = (token) => {
          push(token);
          res.setHeader("Set-Cookie", built.setCookies);
        };
        if (built.setCookies.length) res.setHeader("Set-Cookie", built.setCookies);
        return ctx;
      },
    }),
  );
  return app;
}

/**
 * A request refused before its body was read (413): the connection closes after the answer, but
 * the body still arriving is read and dropped first, for at most 10 seconds, as nginx's
 * "lingering close" does. Closing with unread bytes makes the kernel reset the connection, and
 * the client may lose the 413 it was sent.
 */
function lingeringClose(req: express.Request, res: express.Response) {
  res.set("Connection", "close");
  const timer = setTimeout(() => req.socket.destroy(), 10_000);
  timer.unref();
  req.on("end", () => clearTimeout(timer));
  req.resume();
}
