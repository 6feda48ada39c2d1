import { money } from "./money";

export type FeeLine = { code: string; label: string; section: string; amountCents: number; refundable?: boolean; refunded?: boolean; owedBack?: boolean };

/**
 * Itemised fees, each with the section of the law it comes from, and the total. Each line is told
 * by what it is: `depositNotes` marks the deposits the law returns (and whether they were), as the
 * payment page does (the permit page's labels already say "(refundable)"); a fee is a fee, and says
 * only whether it is owed back (a refused load's dumping fee) or was refunded.
 */
export function FeeLinesTable({ lines, totalCents, caption, depositNotes = true }: { lines: FeeLine[]; totalCents: number; caption: string; depositNotes?: boolean }) {
  return (
    <table className="usa-table usa-table--borderless width-full">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col">Law</th>
          <th scope="col" className="tapline-num">
            Amount
          </th>
        </tr>
      </thead>
      <tbody>
        {lines.map((l) => (
          <tr key={l.code}>
            <th scope="row">
              {l.label}
              {depositNotes && <LineNote l={l} />}
            </th>
            <td>{l.section}</td>
            <td className="tapline-num">{money(l.amountCents)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row" colSpan={2}>
            Total
          </th>
          <td className="tapline-num text-bold">{money(totalCents)}</td>
        </tr>
      </tfoot>
    </table>
  );
}

/** What a line is, beyond its label: a deposit the law returns, or a fee owed back or refunded; nothing for a fee. */
function LineNote({ l }: { l: FeeLine }) {
  const note = l.refundable ? `Refundable deposit${l.refunded ? ", returned" : ""}` : l.refunded ? "Refunded" : l.owedBack ? "To be refunded" : null;
  return note ? <span className="display-block text-base-dark">{note}</span> : null;
}
