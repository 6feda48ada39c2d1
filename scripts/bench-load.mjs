// Load generator for scripts/bench.ts, in its own process so it does not share the server's thread.
// Reads a JSON spec ({ url, method, connections, seconds, headers, bodies, clients }) from the file
// named by argv[2] and prints autocannon's result as JSON. A POST goes through `bodies` in turn, so a
// benchmark can spread writes over many records (one report per request) instead of piling them
// onto one; a GET (a portal page) has no body. `clients` (a number) sends each request from another
// of that many client addresses (X-Forwarded-For, which the server trusts from the loopback proxy),
// as requests from many residents arrive (quick pay's limits count per address).
import { readFileSync } from "node:fs";
import autocannon from "autocannon";

const spec = JSON.parse(readFileSync(process.argv[2], "utf8"));
let next = 0;
const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.seconds,
  method: spec.method ?? "POST",
  headers: spec.headers,
  requests:
    (spec.method ?? "POST") === "GET"
      ? undefined
      : [
          {
            setupRequest(req) {
              const n = next++;
              req.body = spec.bodies[n % spec.bodies.length];
              if (spec.clients) req.headers = { ...req.headers, "x-forwarded-for": `10.${(n % spec.clients) >> 16 & 255}.${((n % spec.clients) >> 8) & 255}.${(n % spec.clients) & 255}` };
              return req;
            },
          },
        ],
});
process.stdout.write(JSON.stringify(result));
