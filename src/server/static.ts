import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveStatic } from "@hono/node-server/serve-static";
import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/** The page's assets: `public/` at the project root. */
export const PUBLIC_DIR = fileURLToPath(new URL("../../public/", import.meta.url));

const require = createRequire(import.meta.url);

/**
 * The page's libraries, served from the installed packages at fixed paths so nothing loads
 * from a CDN and no copy sits in git: marked (Markdown) and DOMPurify (its sanitizer), both
 * as ES modules. marked's `exports` resolve to its ES build; DOMPurify's default is CommonJS,
 * so its ES build is found beside it.
 */
export const VENDOR_FILES: Readonly<Record<string, string>> = {
  "/vendor/marked.js": require.resolve("marked"),
  "/vendor/purify.js": join(dirname(require.resolve("dompurify")), "purify.es.mjs"),
};

/** Security headers for every response; for the page: every asset from this origin, no inline script, no framing. */
export function securityHeaders(): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", "data:"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  });
}

/** Serves the page's static files (index.html for `/`) and its libraries, revalidated on every load. */
export function servePage(root: string = PUBLIC_DIR): MiddlewareHandler {
  const files = serveStatic({
    root,
    onFound: (_path, c) => {
      c.header("Cache-Control", "no-cache");
    },
  });
  return async (c, next) => {
    const vendored = VENDOR_FILES[c.req.path];
    if (vendored === undefined) return files(c, next);
    // Source maps are not served: the files' trailing comment would only make devtools ask for them.
    const body = (await readFile(vendored, "utf8")).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
    return c.body(body, 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      // They change only with the installed version; a day's cache spares a reload.
      "Cache-Control": "public, max-age=86400",
    });
  };
}
