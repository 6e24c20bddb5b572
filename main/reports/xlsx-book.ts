// An .xlsx workbook streamed into a file: the package (a ZIP, written by fflate's streaming Zip) with
// its worksheets written row by row, and its workbook, relationships, content types and styles once the
// sheets are done (the ZIP's central directory names every part, so their order in the file is free).
//
// Why this and not exceljs's streaming WorkbookWriter: on this machine exceljs wrote 100,000 collections
// rows in 35 s with 250 MB resident (it does not wait for its ZIP stream to drain), where the CSV writes a
// year, a million rows, in 7 s; a year through it would take about six minutes. A worksheet is a simple
// XML format whose cells xlsx-cells.ts writes as typed as exceljs would; the ZIP is fflate's (no
// dependencies, streamed, synchronous like the rest of the export worker), and each worksheet's bytes
// are deflated by Node's zlib (native: fflate's own deflate, in JavaScript, took 5x longer). A worksheet
// is deflated in slices of about a megabyte, each ended by a sync flush so that the slices, one after
// another, are one deflate stream (as pigz does), and the last slice ends it.
//
// Limits: a worksheet holds at most 1,048,576 rows, so a table continues on a sheet of its own ("Name
// (2)", ...) when it is full; fflate writes no ZIP64, so an entry or the whole file past 4 GiB stops
// the export with a message (a year of collections is about 70 MB deflated, 1 GB as XML).
import fs from 'node:fs';
import zlib from 'node:zlib';
import { Zip, type AsyncFlateStreamHandler, type ZipInputFile } from 'fflate';
import { ReportError } from './errors.js';
import { columnName, MAX_EXPONENT, STYLE, xmlText } from './xlsx-cells.js';

/** Rows of a worksheet, the header's included (Excel's limit). */
export const SHEET_ROWS = 1_048_576;
const ZIP32_LIMIT = 0xffff_ffff;
/** XML buffered before a slice is deflated. */
const SLICE_CHARS = 1 << 20;

function tooLarge(): ReportError {
  return new ReportError(
    'validation',
    'the report is larger than one .xlsx file can hold (4 GiB); export a shorter date range, or as CSV',
  );
}

/** A part of the package, deflated as it is pushed (a ZipInputFile of fflate's Zip). */
class DeflatedPart implements ZipInputFile {
  readonly compression = 8;
  size = 0;
  crc = 0;
  ondata?: AsyncFlateStreamHandler;
  private deflated = 0;
  constructor(readonly filename: string) {}
  push(text: string, final = false): void {
    const bytes = Buffer.from(text, 'utf8');
    this.size += bytes.length;
    this.crc = zlib.crc32(bytes, this.crc);
    // Level 1: a year's worksheet deflates to 10 % of its XML at level 1 and 8 % at level 6, for a fifth
    // of the CPU.
    const out = zlib.deflateRawSync(bytes, {
      level: 1,
      finishFlush: final ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH,
    });
    this.deflated += out.length;
    if (this.size > ZIP32_LIMIT || this.deflated > ZIP32_LIMIT) throw tooLarge();
    this.ondata!(null, out, final);
  }
}

export interface Column {
  header: string;
  /** Width in characters (so that a date shows as a date, not as ####). */
  width: number;
}

interface Sheet {
  name: string;
  /** Where the sheet comes in the workbook: its table's order, then its place within the table. */
  order: number;
  part: number;
  /** The header's filter range ("$A$1:$AD$912"), once the sheet is complete. */
  filter?: string;
}

/** One table of the workbook, on as many worksheets as its rows need. */
export class SheetTable {
  private part: DeflatedPart | null = null;
  private sheet: Sheet | null = null;
  private xml = '';
  private row = 0;
  private sheets = 0;
  /** Rows written, the header's not counted. */
  rows = 0;
  constructor(
    private readonly book: XlsxBook,
    private readonly name: string,
    private readonly order: number,
    private readonly columns: readonly Column[],
  ) {}

  /** The number of the next row (1-based, as in "A7"); starts a worksheet when none is open or it is full. */
  next(): number {
    if (!this.part || this.row === this.book.sheetRows) this.startSheet();
    this.rows++;
    return ++this.row;
  }

  /** Adds a row's XML (`<row r="N">…</row>`, N from next()). */
  push(rowXml: string): void {
    this.xml += rowXml;
    if (this.xml.length >= SLICE_CHARS) this.flush(false);
  }

  /** Ends the table's last worksheet (a table with no rows still gets one: its header). */
  end(): void {
    if (!this.part) this.startSheet();
    this.endSheet();
  }

  private flush(final: boolean): void {
    const text = this.xml;
    this.xml = '';
    this.part!.push(text, final);
  }

  private startSheet(): void {
    if (this.part) this.endSheet();
    this.sheets++;
    const sheetName = this.sheets === 1 ? this.name : `${this.name} (${this.sheets})`;
    this.sheet = this.book.startSheet(sheetName, this.order * 1000 + this.sheets);
    this.part = this.book.addPart(`xl/worksheets/sheet${this.sheet.part}.xml`);
    const cols = this.columns.map((c, i) => `<col min="${i + 1}" max="${i + 1}" width="${c.width}" customWidth="1"/>`);
    const header = this.columns.map(
      (c, i) => `<c r="${columnName(i)}1" t="inlineStr" s="${STYLE.header}"><is><t>${xmlText(c.header)}</t></is></c>`,
    );
    this.xml =
      XML_HEAD +
      `<worksheet xmlns="${MAIN_NS}" xmlns:r="${REL_NS}">` +
      // The header stays in view while scrolling.
      '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>' +
      `<cols>${cols.join('')}</cols><sheetData><row r="1">${header.join('')}</row>`;
    this.row = 1;
  }

  private endSheet(): void {
    const last = columnName(this.columns.length - 1);
    // A filter on the header: finance sorts and filters at once.
    this.xml += `</sheetData><autoFilter ref="A1:${last}${this.row}"/></worksheet>`;
    this.flush(true);
    this.sheet!.filter = `$A$1:$${last}$${this.row}`;
    this.part = null;
    this.sheet = null;
  }
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const DOC_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const SHEET_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml';

/** The number formats: one per currency exponent (0 to MAX_EXPONENT), then the times'. */
function stylesXml(): string {
  const formats: string[] = [];
  for (let e = 0; e <= MAX_EXPONENT; e++) formats.push(e === 0 ? '#,##0' : '#,##0.' + '0'.repeat(e));
  formats.push('yyyy-mm-dd hh:mm:ss');
  const numFmts = formats.map((f, i) => `<numFmt numFmtId="${164 + i}" formatCode="${f}"/>`).join('');
  // cellXfs: 0 the default, 1 the header (bold), then one per number format, in STYLE's order.
  const xfs = [
    '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>',
    '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>',
    ...formats.map(
      (_, i) => `<xf numFmtId="${164 + i}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`,
    ),
  ];
  return (
    XML_HEAD +
    `<styleSheet xmlns="${MAIN_NS}">` +
    `<numFmts count="${formats.length}">${numFmts}</numFmts>` +
    '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>' +
    '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    `<cellXfs count="${xfs.length}">${xfs.join('')}</cellXfs>` +
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
    '</styleSheet>'
  );
}

/**
 * A workbook written into `fd` as it goes: tables of rows (table()), then close() writes the parts that
 * name the sheets. Everything is synchronous; what is held in memory is one slice of XML.
 */
export class XlsxBook {
  private readonly zip: Zip;
  private readonly sheets: Sheet[] = [];
  private written = 0;
  private tables = 0;
  /** Rows a worksheet holds, its header's included: Excel's limit (a test makes it smaller). */
  readonly sheetRows: number;
  constructor(
    private readonly fd: number,
    opts: { sheetRows?: number } = {},
  ) {
    this.sheetRows = opts.sheetRows ?? SHEET_ROWS;
    this.zip = new Zip((err, data) => {
      if (err) throw err;
      this.written += data.length;
      if (this.written > ZIP32_LIMIT) throw tooLarge();
      for (let done = 0; done < data.length;) done += fs.writeSync(this.fd, data, done, data.length - done);
    });
  }

  /** A new table: its rows go to worksheets named `name`, `name (2)`...; `order` places it among the tables. */
  table(name: string, columns: readonly Column[], order = this.tables): SheetTable {
    this.tables++;
    return new SheetTable(this, name, order, columns);
  }

  /** @internal A new worksheet (SheetTable's). */
  startSheet(name: string, order: number): Sheet {
    const sheet = { name, order, part: this.sheets.length + 1 };
    this.sheets.push(sheet);
    return sheet;
  }

  /** @internal A new part of the package; the one before it must be complete. */
  addPart(filename: string): DeflatedPart {
    const p = new DeflatedPart(filename);
    this.zip.add(p);
    return p;
  }

  private whole(filename: string, text: string): void {
    this.addPart(filename).push(text, true);
  }

  /** Writes the workbook's own parts and the ZIP's directory. */
  close(): void {
    const sheets = [...this.sheets].sort((a, b) => a.order - b.order);
    this.whole('xl/styles.xml', stylesXml());
    this.whole(
      'xl/workbook.xml',
      XML_HEAD +
        `<workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets>` +
        sheets.map((s, i) => `<sheet name="${xmlText(s.name)}" sheetId="${i + 1}" r:id="rId${s.part}"/>`).join('') +
        // The header's filter, as spreadsheets name it (LibreOffice shows it only with this name).
        '</sheets><definedNames>' +
        sheets
          .map(
            (s, i) =>
              `<definedName name="_xlnm._FilterDatabase" localSheetId="${i}" hidden="1">'${xmlText(s.name)}'!${s.filter ?? '$A$1:$A$1'}</definedName>`,
          )
          .join('') +
        '</definedNames></workbook>',
    );
    this.whole(
      'xl/_rels/workbook.xml.rels',
      XML_HEAD +
        `<Relationships xmlns="${PKG_REL_NS}">` +
        this.sheets
          .map(
            (s) =>
              `<Relationship Id="rId${s.part}" Type="${DOC_REL}/worksheet" Target="worksheets/sheet${s.part}.xml"/>`,
          )
          .join('') +
        `<Relationship Id="rId${this.sheets.length + 1}" Type="${DOC_REL}/styles" Target="styles.xml"/>` +
        '</Relationships>',
    );
    this.whole(
      '_rels/.rels',
      XML_HEAD +
        `<Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${DOC_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    );
    this.whole(
      '[Content_Types].xml',
      XML_HEAD +
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
        this.sheets
          .map((s) => `<Override PartName="/xl/worksheets/sheet${s.part}.xml" ContentType="${SHEET_TYPE}"/>`)
          .join('') +
        '</Types>',
    );
    this.zip.end();
  }
}
