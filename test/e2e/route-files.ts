/**
 * Remix 2 flat-routes file names as the addresses they answer, for the tests that visit every route
 * file: `staff.petitions_.$id.tsx` → segments `staff`, `petitions`, `$id`. A dot inside `[]` is
 * literal (`enforcement.hearings.$id[.]ics.tsx` → `$id.ics`), a leading `_` is a pathless layout, a
 * trailing `_` leaves its parent's layout, and `_index` is the index route.
 */
export function routeSegments(file: string): { segments: string[]; index: boolean } {
  const name = file.replace(/\.tsx?$/, "");
  const raw: string[] = [];
  let cur = "";
  let bracket = false;
  for (const ch of name) {
    if (ch === "[") bracket = true;
    else if (ch === "]") bracket = false;
    else if (ch === "." && !bracket) {
      raw.push(cur);
      cur = "";
    } else cur += ch;
  }
  raw.push(cur);
  let index = false;
  const segments: string[] = [];
  for (const s of raw) {
    if (s === "_index") index = true;
    else if (!s.startsWith("_")) segments.push(s.replace(/_$/, ""));
  }
  return { segments, index };
}
