// Load generator for scripts/bench.ts, in its own process so it does not share the server's thread.
// Reads a JSON spec ({ url, method, connections, seconds, headers, bodies }) from the file named by
// argv[2] and prints autocannon's result as JSON. A POST goes through `bodies` in turn, so a
// benchmark can spread writes over many records (one report per request) instead of piling them
// onto one; a GET (a portal page) has no body.
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
              req.body = spec.bodies[next++ % spec.bodies.length];
              return req;
            },
          },
        ],
});
process.stdout.write(JSON.stringify(result));
