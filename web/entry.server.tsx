// Remix's default Node entry (@remix-run/dev's entry.server.node.tsx), plus the
// Content-Security-Policy nonce: RemixServer puts it on the data scripts, React on its own inline
// scripts, and root.tsx on <Scripts> and <ScrollRestoration>. Unlike the default, every page is
// sent in one piece once it has rendered whole: no page defers data, so a stream gained nothing and
// cost a compression flush per chunk (issue 20: brotli on a dozen flushed chunks cost more CPU than
// rendering the page; one piece is compressed in one pass, docs/benchmarks.md).
import { Writable } from "node:stream";

import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToPipeableStream } from "react-dom/server";
import type { PortalLoadContext } from "../api/web.js";
import { NonceContext } from "./nonce";

const ABORT_DELAY = 5_000;

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = (loadContext as unknown as Partial<PortalLoadContext>).cspNonce;

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const chunks: Buffer[] = [];
    const page = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
      final(done) {
        clearTimeout(timer);
        responseHeaders.set("Content-Type", "text/html");
        resolve(new Response(Buffer.concat(chunks), { headers: responseHeaders, status: responseStatusCode }));
        done();
      },
    });
    const { pipe, abort } = renderToPipeableStream(
      <NonceContext.Provider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
      </NonceContext.Provider>,
      {
        nonce,
        onShellReady() {
          shellRendered = true;
        },
        onAllReady() {
          pipe(page);
        },
        onShellError(error: unknown) {
          clearTimeout(timer);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          // Errors inside the shell are logged here; a shell's own error rejects, and Remix logs it
          // (handleDocumentRequest).
          if (shellRendered) console.error(error);
        },
      },
    );
    const timer = setTimeout(abort, ABORT_DELAY);
  });
}
