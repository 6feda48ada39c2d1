import { Link } from "@remix-run/react";

/** Above a printable document (a receipt, a copy of record): the way back, and how to print it. Not printed. */
export function PrintHint({ backTo, backLabel }: { backTo: string; backLabel: string }) {
  return (
    <p className="tapline-no-print">
      <Link className="usa-link" to={backTo}>
        {backLabel}
      </Link>
      {" · "}To print or save as PDF, use your browser's Print command (Ctrl+P, or ⌘P on a Mac).
    </p>
  );
}
