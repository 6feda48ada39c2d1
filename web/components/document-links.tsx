/** Files as download links, separated by commas ("site-plan.pdf, sheet-2.pdf"). */
export function DocumentLinks({ documents }: { documents: { id: string; filename: string; downloadUrl: string }[] }) {
  return (
    <>
      {documents.map((d, i) => (
        <span key={d.id}>
          {i > 0 && ", "}
          <a className="usa-link" href={d.downloadUrl}>
            {d.filename}
          </a>
        </span>
      ))}
    </>
  );
}
