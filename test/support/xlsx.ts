// Reads an .xlsx file the way a spreadsheet would, with a library the app does not write with (exceljs,
// a devDependency used only here): each sheet's cells with their type as the reader makes it of the
// file (number, date, text, boolean), their value and their number format. exceljs decodes OOXML's
// _xHHHH_ escapes in shared strings but not in inline strings, where Excel and LibreOffice decode them
// alike (ECMA-376 ST_Xstring): that one step is done here, as exceljs does it for shared strings.
import ExcelJS from 'exceljs';

export type CellType = 'number' | 'date' | 'text' | 'boolean' | 'empty' | 'other';

export interface ReadCell {
  type: CellType;
  value: number | string | boolean | Date | null;
  numFmt: string | undefined;
}

export interface ReadSheet {
  name: string;
  /** rows[0] is the header; each row as many cells as the header. */
  rows: ReadCell[][];
}

function typeOf(cell: ExcelJS.Cell): CellType {
  switch (cell.type) {
    case ExcelJS.ValueType.Number:
      return 'number';
    case ExcelJS.ValueType.Date:
      return 'date';
    case ExcelJS.ValueType.String:
      return 'text';
    case ExcelJS.ValueType.Boolean:
      return 'boolean';
    case ExcelJS.ValueType.Null:
      return 'empty';
    default:
      return 'other';
  }
}

const decodeXstring = (s: string) =>
  s.replace(/_x([0-9A-F]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

export async function readXlsx(file: string): Promise<ReadSheet[]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  return wb.worksheets.map((ws) => {
    const width = ws.getRow(1).cellCount;
    const rows: ReadCell[][] = [];
    for (let r = 1; r <= ws.rowCount; r++) {
      const row = ws.getRow(r);
      const cells: ReadCell[] = [];
      for (let c = 1; c <= width; c++) {
        const cell = row.getCell(c);
        const type = typeOf(cell);
        const value = type === 'text' ? decodeXstring(cell.value as string) : (cell.value as ReadCell['value']);
        cells.push({ type, value, numFmt: cell.numFmt });
      }
      rows.push(cells);
    }
    return { name: ws.name, rows };
  });
}

/** The header's names, and each row as a record of cells by column name. */
export function recordsOf(sheet: ReadSheet): { header: string[]; records: Record<string, ReadCell>[] } {
  const [head, ...body] = sheet.rows;
  const header = head!.map((c) => String(c.value));
  return { header, records: body.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]!]))) };
}
