import fs from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import purgeCss from "@fullhuman/postcss-purgecss";
import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig } from "vite";
import { purgeContent, purgeExtractor, purgeSafelist } from "./web/styles/purge";

declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}

const uswds = new URL("./node_modules/@uswds/uswds", import.meta.url).pathname;

/**
 * Writes a brotli (`.br`) and a gzip (`.gz`) copy next to each text file of the client build, once,
 * at the highest levels: api/web.ts serves them with `Content-Encoding` (express-static-gzip).
 * A copy that saves too little is not written.
 */
function precompress(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !/\.(js|mjs|css|svg|json|txt|html|xml|map)$/.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const raw = fs.readFileSync(file);
    // Down to small chunks (a 500-byte one compresses by about a third); smaller ones are not worth a file.
    if (raw.length < 256) continue;
    const br = brotliCompressSync(raw, { params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length } });
    const gz = gzipSync(raw, { level: zlib.Z_BEST_COMPRESSION });
    if (br.length < raw.length * 0.9) fs.writeFileSync(`${file}.br`, br);
    if (gz.length < raw.length * 0.9) fs.writeFileSync(`${file}.gz`, gz);
  }
}

export default defineConfig(({ command }) => ({
  plugins: [
    remix({
      appDirectory: "web",
      buildDirectory: "build",
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
      },
      buildEnd: ({ remixConfig }) => precompress(path.join(remixConfig.buildDirectory, "client")),
    }),
  ],
  resolve: {
    alias: {
      "~": new URL("./web", import.meta.url).pathname,
      // USWDS's icons and images, as web/styles/design-system.scss names them ($theme-image-path).
      "/uswds-img": path.join(uswds, "dist/img"),
    },
  },
  css: {
    preprocessorOptions: {
      // USWDS 3's packages (web/styles/design-system.scss); its own Sass warnings are not ours to act on.
      scss: { api: "modern-compiler", loadPaths: [path.join(uswds, "packages")], quietDeps: true, silenceDeprecations: ["global-builtin", "import"] },
    },
    // The build keeps only the rules the portal's files name (web/styles/purge.ts); `npm run dev`
    // keeps all of them.
    postcss: { plugins: command === "build" ? [purgeCss({ content: purgeContent, defaultExtractor: purgeExtractor, safelist: purgeSafelist, keyframes: true })] : [] },
  },
  build: { chunkSizeWarningLimit: 1500 },
}));
