// Remix's default Node entry (@remix-run/dev's entry.server.node.tsx), plus the
// Content-Security-Policy nonce: RemixServer puts it on the data scripts, React on its own inline
// scripts, and root.tsx on <Scripts> and <ScrollRestoration>. Unlike the default, every page is
// rendered whole, in one synchronous pass, and sent in one piece: no page defers data, so a stream
// gained nothing and cost a compression flush per chunk (issue 20: brotli on a dozen flushed chunks
// cost more CPU than rendering the page; one piece is compressed in one pass, docs/benchmarks.md).
import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToString } from "react-dom/server";
import type { PortalLoadContext } from "../api/web.js";
import { NonceContext } from "./nonce";

const ABORT_DELAY = 5_000;

type StreamCache = NonNullable<NonNullable<EntryContext["renderMeta"]>["streamCache"]>;

/**
 * The loader data for hydration (Remix's single-fetch stream), read whole before the render and
 * handed to RemixServer's StreamTransfer as already read, so no part of the page waits on it
 * (issue 20: each chunk read while rendering suspended the render and scheduled another pass).
 * The page carries the same data in the same scripts: one enqueue of it, then the close.
 */
async function readHandoff(stream: ReadableStream<Uint8Array>): Promise<StreamCache> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let value = "";
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("The page's data took too long")), ABORT_DELAY);
  });
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), timeout]);
      if (chunk.done) break;
      value += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
  }
  value += decoder.decode();
  reader.releaseLock(); // RemixServer takes its own (now finished) reader
  const read = (result: { done: boolean; value: string }) => Object.assign(Promise.resolve(), { result });
  return { 0: read({ done: false, value }), 1: read({ done: true, value: "" }) };
}

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = (loadContext as unknown as Partial<PortalLoadContext>).cspNonce;
  if (remixContext.serverHandoffStream) {
    const renderMeta = (remixContext.renderMeta ??= {});
    renderMeta.streamCache = await readHandoff(remixContext.serverHandoffStream);
  }
  // Nothing suspends now, so the page renders in one pass; React adds no inline script of its own
  // (those complete boundaries streamed late), and the nonce is on Remix's scripts as before.
  const html = renderToString(
    <NonceContext.Provider value={nonce}>
      <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
    </NonceContext.Provider>,
  );
  responseHeaders.set("Content-Type", "text/html");
  const page = html.startsWith("<!DOCTYPE") ? html : `<!DOCTYPE html>${html}`;
  // The portal's server (api/web.ts) takes the page as it is; anything else calling this gets it as the body.
  const portal = loadContext as unknown as Partial<PortalLoadContext>;
  if ("renderedHtml" in portal) {
    portal.renderedHtml = page;
    return new Response(null, { headers: responseHeaders, status: responseStatusCode });
  }
  return new Response(page, { headers: responseHeaders, status: responseStatusCode });
}
