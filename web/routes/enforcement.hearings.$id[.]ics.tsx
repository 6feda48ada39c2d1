import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireSignedIn } from "~/auth.server";

/** The show-cause hearing notice as a calendar file (for the respondent, or staff of the district). */
export async function loader(args: LoaderFunctionArgs) {
  const { hearingIcs } = await requireSignedIn<{ hearingIcs: string }>(args, `query HearingIcs($id: ID!) { hearingIcs(id: $id) }`, { id: args.params.id });
  return new Response(hearingIcs, {
    headers: {
      "content-type": "text/calendar; charset=utf-8",
      "content-disposition": `attachment; filename="show-cause-hearing-${String(args.params.id).replace(/[^a-f0-9-]/gi, "")}.ics"`,
      "cache-control": "private, no-store",
    },
  });
}
