import { money } from "./money";

export type FeeLine = { code: string; label: string; section: string; amountCents: number; refundable?: boolean; refunded?: boolean };

/**
 * Itemised fees, each with the section of the law it comes from, and the total. `depositNotes`
 * marks refundable lines (and whether they were returned), as the payment page does; the permit
 * page's labels already say "(refundable)".
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
              {depositNotes && l.refundable && <span className="display-block text-base-dark">Refundable deposit{l.refunded ? ", returned" : ""}</span>}
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
