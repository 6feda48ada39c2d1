import type { ApolloServerPlugin } from "@apollo/server";
import {
  GraphQLError,
  Kind,
  visit,
  type DirectiveNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";
import { badInput } from "../common/errors.js";

/**
 * PostgreSQL cannot store a NUL character in text or JSON, and a lone UTF-16 surrogate is not text
 * at all (the driver would silently store U+FFFD; jsonb refuses it). Such strings are refused once,
 * here, for every argument of every operation, before anything resolves: no service checks them.
 */
export const UNSTORABLE_MESSAGE = "This contains a character that cannot be stored (a NUL or an unpaired surrogate); remove it.";

// Code units, not code points (no `u` flag): a NUL, a high surrogate without its low half, or a low one without its high half.
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// A plain character class first: most strings have neither a NUL nor any surrogate, and it is the cheaper test.
const SUSPECT = /[\0\ud800-\udfff]/;

export const isUnstorable = (s: string): boolean => SUSPECT.test(s) && UNSTORABLE.test(s);

/**
 * Whether a JSON-shaped value (variables, a JSON scalar) holds an unstorable string, in a value or a
 * key. A loop, not recursion: JSON.parse accepts nesting deep enough to overflow the call stack.
 */
function holdsUnstorable(value: unknown): boolean {
  const todo = [value];
  while (todo.length) {
    const v = todo.pop();
    if (typeof v === "string") {
      if (isUnstorable(v)) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) todo.push(x);
    } else if (v !== null && typeof v === "object")
      for (const k in v) {
        if (isUnstorable(k)) return true;
        todo.push((v as Record<string, unknown>)[k]);
      }
  }
  return false;
}

// Parsed documents are reused by Apollo's document cache, so a document's literals are scanned once.
const literalsChecked = new WeakMap<DocumentNode, boolean>();
function documentHoldsUnstorable(doc: DocumentNode): boolean {
  let found = literalsChecked.get(doc);
  if (found === undefined) {
    found = false;
    visit(doc, {
      StringValue(node) {
        if (isUnstorable(node.value)) found = true;
      },
    });
    literalsChecked.set(doc, found);
  }
  return found;
}

/**
 * The field names, as BAD_USER_INPUT names them elsewhere (class-validator's paths): an argument
 * by its name, a field of an input object by its path inside the argument (`email`,
 * `lines.0.note`); a list of strings by the list's name.
 */
function fieldName(path: (string | number)[]): string {
  const p = [...path];
  while (p.length > 1 && typeof p[p.length - 1] === "number") p.pop();
  if (p.length > 1 && typeof p[1] === "string") p.shift();
  return p.join(".");
}

/** Names of the arguments (variables or literals) of `operation` that hold an unstorable string. */
export function unstorableFields(document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined): string[] {
  const vars = variables ?? {};
  const defaults = new Map(operation.variableDefinitions?.map((d) => [d.variable.name.value, d.defaultValue]));
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const found = new Set<string>();
  const seenFragments = new Set<string>();

  // A variable's value, in a loop (see holdsUnstorable); past a few levels (inside a JSON value) the name stays put.
  const runtime = (value: unknown, at: (string | number)[]) => {
    const todo: [unknown, (string | number)[]][] = [[value, at]];
    const deeper = (path: (string | number)[], key: string | number) => (path.length < 8 ? [...path, key] : path);
    while (todo.length) {
      const [v, path] = todo.pop()!;
      if (typeof v === "string") {
        if (isUnstorable(v)) found.add(fieldName(path));
      } else if (Array.isArray(v)) v.forEach((x, i) => todo.push([x, deeper(path, i)]));
      else if (v !== null && typeof v === "object")
        for (const [k, x] of Object.entries(v)) {
          if (isUnstorable(k)) found.add(fieldName(path));
          todo.push([x, deeper(path, k)]);
        }
    }
  };
  const literal = (node: ValueNode | undefined, path: (string | number)[]) => {
    if (!node) return;
    switch (node.kind) {
      case Kind.STRING:
        if (isUnstorable(node.value)) found.add(fieldName(path));
        return;
      case Kind.VARIABLE: {
        const name = node.name.value;
        if (Object.hasOwn(vars, name)) runtime(vars[name], path);
        else literal(defaults.get(name), path);
        return;
      }
      case Kind.LIST:
        node.values.forEach((x, i) => literal(x, [...path, i]));
        return;
      case Kind.OBJECT:
        for (const f of node.fields) literal(f.value, [...path, f.name.value]);
        return;
    }
  };
  const directives = (ds: readonly DirectiveNode[] | undefined) => {
    for (const d of ds ?? []) for (const a of d.arguments ?? []) literal(a.value, [a.name.value]);
  };
  const selections = (set: SelectionSetNode | undefined) => {
    for (const s of set?.selections ?? []) {
      directives(s.directives);
      if (s.kind === Kind.FIELD) {
        for (const a of s.arguments ?? []) literal(a.value, [a.name.value]);
        selections(s.selectionSet);
      } else if (s.kind === Kind.INLINE_FRAGMENT) selections(s.selectionSet);
      else if (!seenFragments.has(s.name.value)) {
        seenFragments.add(s.name.value);
        const f = fragments.get(s.name.value);
        directives(f?.directives);
        selections(f?.selectionSet);
      }
    }
  };
  directives(operation.directives);
  selections(operation.selectionSet);
  return [...found];
}

/**
 * Refuses an operation whose variables or literals hold an unstorable string, once it is parsed,
 * validated and resolved, before any resolver runs (so nothing is written). It applies to HTTP
 * requests and to the portal's in-process calls alike (both go through Apollo's request pipeline).
 * The common case costs a walk of the variables and a cache lookup.
 */
export function storableStringsPlugin<T extends object>(): ApolloServerPlugin<T> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, operation }) {
          if (!holdsUnstorable(request.variables) && !documentHoldsUnstorable(document)) return;
          const names = operation ? unstorableFields(document, operation, request.variables) : [];
          // A bad string no argument uses (an unused variable, say) is refused too, by its variable's name.
          if (!names.length) for (const [k, v] of Object.entries(request.variables ?? {})) if (holdsUnstorable(v)) names.push(k);
          if (!names.length) names.push("query");
          const error = badInput(Object.fromEntries(names.map((n) => [n, UNSTORABLE_MESSAGE])));
          throw new GraphQLError(error.message, { originalError: error, extensions: { code: error.code, fields: error.fields, http: { status: 400 } } });
        },
      };
    },
  };
}
