import path from "node:path";
import { pathToFileURL } from "node:url";
import express from "express";
import { createRequestHandler } from "@remix-run/express";
import type { Config } from "./config.js";
import { refuseForeignOriginForms } from "./portal-origin.js";
import type { GraphQLExecutor } from "./server.js";

/** What every portal loader and action gets: the API, reached only through GraphQL. */
export type PortalLoadContext = {
  graphql: (request: Request, query: string, variables?: Record<string, unknown>) => ReturnType<GraphQLExecutor>;
  demo: boolean;
  stripeEnabled: boolean;
  sessionSecret: string;
  production: boolean;
};

/** Mounts the Remix portal on every path the API does not take: Vite in development, the build otherwise. */
export async function mountPortal(app: express.Express, config: Config, execute: GraphQLExecutor, dev: boolean): Promise<() => Promise<void>> {
  // Portal forms are read whole (CSRF check, then the action): refuse bodies larger than an upload
  // form can be before anything reads them.
  const maxBody = config.uploadMaxBytes + 1024 * 1024;
  app.use((req, res, next) => {
    const length = Number(req.headers["content-length"] ?? 0);
    if (req.method !== "GET" && req.method !== "HEAD" && length > maxBody)
      return res
        .status(413)
        .type("text/plain")
        .send(`The form is larger than ${Math.round(config.uploadMaxBytes / (1024 * 1024))} MB. Go back and attach a smaller file.`);
    next();
  });
  // A form from another origin (or `Origin: null`) is a 403 here rather than Remix's 500.
  app.use(refuseForeignOriginForms);
  const getLoadContext = (req: express.Request): PortalLoadContext => ({
    graphql: (request, query, variables) => execute(request, query, variables, req.ip ?? "unknown"),
    demo: config.demo,
    stripeEnabled: !!config.stripe,
    sessionSecret: config.sessionSecret,
    production: config.production,
  });
  if (dev) {
    const vite = await import("vite");
    const server = await vite.createServer({ server: { middlewareMode: true } });
    app.use(server.middlewares);
    app.all(
      "*",
      createRequestHandler({
        build: () => server.ssrLoadModule("virtual:remix/server-build") as any,
        getLoadContext: getLoadContext as any,
      }),
    );
    return () => server.close();
  }
  const buildDir = path.resolve("build");
  app.use("/assets", express.static(path.join(buildDir, "client/assets"), { immutable: true, maxAge: "1y" }));
  app.use(express.static(path.join(buildDir, "client"), { maxAge: "1h" }));
  const build = await import(pathToFileURL(path.join(buildDir, "server/index.js")).href);
  app.all("*", createRequestHandler({ build, getLoadContext: getLoadContext as any }));
  return async () => {};
}
