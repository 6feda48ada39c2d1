import { createHash } from "node:crypto";
import { renderToStaticMarkup } from "react-dom/server";
import { LimitsTable, RuleLine, SourceTag, byTopic, slugify, type RuleEntry } from "~/components/rulebook";
import { ruleFragments } from "~/components/rule-fragments";

/** A limits table longer than this is folded behind its caption (a phone scrolls past it otherwise). */
const FOLD_ROWS = 8;
/** Rulebooks kept rendered: a few districts, each today's and a few other dates' versions. */
const KEEP = 64;

const hashes = new WeakMap<RuleEntry[], string>();

/** One topic of the rules page: its counts and the keys of its two lists' HTML. */
export type TopicFragment = {
  topic: string;
  id: string;
  applies: number;
  notProvided: number;
  appliesKey: string;
  notProvidedKey: string;
  /** Sent only to a client-side navigation (no page HTML holds the lists then). */
  appliesHtml?: string;
  notProvidedHtml?: string;
};

function AppliesItems({ entries }: { entries: RuleEntry[] }) {
  return entries.map((e) =>
    e.kind === "table" ? (
      <li key={e.key} className="tapline-rule tapline-rule--table">
        {e.note && <p className="tapline-rule__note">{e.note}</p>}
        <p className="tapline-rule__note">
          <SourceTag entry={e} />
          {` ${e.sourceText}.`}
        </p>
        {(e.rows?.length ?? 0) > FOLD_ROWS ? (
          <details className="tapline-details">
            <summary>{`${e.label} (${e.section}): ${e.rows!.length} substances and measures`}</summary>
            <LimitsTable entry={e} />
          </details>
        ) : (
          <LimitsTable entry={e} />
        )}
      </li>
    ) : (
      <li key={e.key} className="tapline-rule">
        <RuleLine entry={e} />
      </li>
    )
  );
}

/**
 * The rule lists of each topic, rendered once per rulebook content (the key is a hash of the
 * entries, so a changed rulebook is a new key: nothing to invalidate) rather than by React on
 * every request: the page's costliest part (about 200 entries).
 */
export function ruleTopicFragments(slug: string, entries: RuleEntry[], withHtml: boolean): TopicFragment[] {
  // The public answer cache hands out the same frozen answer until it changes: hash each once.
  let hash = hashes.get(entries);
  if (hash === undefined) {
    hash = createHash("sha1").update(slug).update(JSON.stringify(entries)).digest("base64url");
    if (Object.isFrozen(entries)) hashes.set(entries, hash);
  }
  return byTopic(entries).map((t, i) => {
    // A Town Board figure not (yet) set stays in the list: the law leaves it to the Board.
    const applies = t.entries.filter((e) => e.applies || e.source === "BOARD");
    const notProvided = t.entries.filter((e) => !e.applies && e.source !== "BOARD");
    const appliesKey = `${hash}:${i}:a`;
    const notProvidedKey = `${hash}:${i}:n`;
    let appliesHtml = ruleFragments.get(appliesKey);
    if (appliesHtml === undefined) {
      appliesHtml = renderToStaticMarkup(<AppliesItems entries={applies} />);
      remember(appliesKey, appliesHtml);
    }
    let notProvidedHtml = ruleFragments.get(notProvidedKey);
    if (notProvidedHtml === undefined) {
      notProvidedHtml = renderToStaticMarkup(
        <>
          {notProvided.map((e) => (
            <li key={e.key} className="tapline-rule">
              <RuleLine entry={e} />
            </li>
          ))}
        </>
      );
      remember(notProvidedKey, notProvidedHtml);
    }
    return {
      topic: t.topic,
      id: `topic-${slugify(t.topic)}`,
      applies: applies.length,
      notProvided: notProvided.length,
      appliesKey,
      notProvidedKey,
      ...(withHtml ? { appliesHtml, notProvidedHtml } : {}),
    };
  });
}

function remember(key: string, html: string) {
  ruleFragments.delete(key);
  ruleFragments.set(key, html);
  // Oldest first out (Map keeps insertion order); two keys per topic, ~15 topics per rulebook.
  while (ruleFragments.size > KEEP * 32) ruleFragments.delete(ruleFragments.keys().next().value!);
}
