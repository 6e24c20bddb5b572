// Reads the reports' CSV in tests: a minimal RFC 4180 reader (quoted fields, doubled quotes, CRLF).
import fs from 'node:fs';

export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let q = false;
  const endCell = () => {
    row.push(cell);
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (q) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') q = false;
      else cell += ch;
    } else if (ch === '"') q = true;
    else if (ch === ',') endCell();
    else if (ch === '\r' && text[i + 1] === '\n') {
      endCell();
      rows.push(row);
      row = [];
      i++;
    } else cell += ch;
  }
  if (cell || row.length) {
    endCell();
    rows.push(row);
  }
  return rows;
}

export function records(file: string): Record<string, string>[] {
  const [head, ...rest] = parseCsv(fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, ''));
  return rest.map((r) => Object.fromEntries(head!.map((h, i) => [h, r[i]!])));
}
