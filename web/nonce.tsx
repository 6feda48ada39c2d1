import { createContext, useContext } from "react";

/**
 * This request's Content-Security-Policy nonce (api/security-headers.ts), provided by
 * web/entry.server.tsx while the page is rendered on the server; undefined in the browser, where
 * Remix's inline scripts are not rendered again.
 */
export const NonceContext = createContext<string | undefined>(undefined);

export const useNonce = () => useContext(NonceContext);
