// A text[] parameter in PostgreSQL's binary format (array_recv), for the statements that send many long
// values at once (serve's groups of callbacks, issue 31). pg sends a Buffer parameter as binary, so the
// server takes each element's bytes as they are: no JSON or array literal to parse, no escapes to undo
// (a group of 64 callbacks as one JSON parameter cost PostgreSQL 11-12 µs of CPU a row to take apart,
// as binary text[] columns 6-7, planning included). The encoding is checked by the server as for any
// text it receives.
//
// Layout (src/backend/utils/adt/arrayfuncs.c array_send): int32 dimensions (1), int32 has-nulls flag,
// uint32 element type (25, text), then per dimension int32 length and int32 lower bound (1), then per
// element int32 byte length (-1 for NULL) and the bytes.

const TEXT_OID = 25;
const HEADER = 20;

/** `values` as one binary text[] parameter (nulls kept). */
export function binaryTextArray(values: readonly (string | null)[]): Buffer {
  let size = HEADER;
  let nulls = 0;
  for (const v of values) {
    if (v === null) nulls = 1;
    size += 4 + (v === null ? 0 : Buffer.byteLength(v, 'utf8'));
  }
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(1, 0);
  out.writeInt32BE(nulls, 4);
  out.writeUInt32BE(TEXT_OID, 8);
  out.writeInt32BE(values.length, 12);
  out.writeInt32BE(1, 16);
  let at = HEADER;
  for (const v of values) {
    if (v === null) {
      out.writeInt32BE(-1, at);
      at += 4;
    } else {
      const n = out.write(v, at + 4, 'utf8');
      out.writeInt32BE(n, at);
      at += 4 + n;
    }
  }
  return out;
}
