// Draws the demo shop's PWA icons (a white padlock on teal) as PNG files with nothing but
// node:zlib, so the demo needs no image tooling: `node scripts/demo-icons.mjs`. The PNGs are
// committed; run this again only to change them. demo/app/icons/icon.svg is the same drawing.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const TEAL = [15, 118, 110];
const WHITE = [255, 255, 255];

/** The colour at (x, y), both in 0..1; the motif stays inside the maskable safe zone (radius 0.4). */
function colourAt(x, y) {
  const keyhole = Math.hypot(x - 0.5, y - 0.53) < 0.045 || (y >= 0.53 && y <= 0.65 && Math.abs(x - 0.5) < 0.012 + (y - 0.53) * 0.2);
  const body = x >= 0.3 && x <= 0.7 && y >= 0.38 && y <= 0.74 && roundedCorner(x, y);
  const handle = y <= 0.4 && Math.abs(Math.hypot(x - 0.5, y - 0.38) - 0.1) < 0.02;
  return (body && !keyhole) || handle ? WHITE : TEAL;
}

/** False in the cut-off corners of the bag's body (corner radius 0.04). */
function roundedCorner(x, y) {
  const r = 0.04;
  const cx = Math.min(Math.max(x, 0.3 + r), 0.7 - r);
  const cy = Math.min(Math.max(y, 0.38 + r), 0.74 - r);
  return Math.hypot(x - cx, y - cy) <= r;
}

/** An RGB PNG of `size` pixels square, each pixel the average of 4x4 samples. */
function drawPng(size) {
  const rows = [];
  for (let py = 0; py < size; py++) {
    const row = Buffer.alloc(1 + size * 3); // filter byte 0: none
    for (let px = 0; px < size; px++) {
      const sum = [0, 0, 0];
      for (let sy = 0; sy < 4; sy++) {
        for (let sx = 0; sx < 4; sx++) {
          const colour = colourAt((px + (sx + 0.5) / 4) / size, (py + (sy + 0.5) / 4) / size);
          for (let c = 0; c < 3; c++) sum[c] += colour[c];
        }
      }
      for (let c = 0; c < 3; c++) row[1 + px * 3 + c] = Math.round(sum[c] / 16);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, RGB, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** A PNG chunk: length, type, data, CRC-32 of type and data. */
function chunk(type, data) {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  let crc = 0xffffffff;
  for (const byte of body) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  const out = Buffer.alloc(body.length + 8);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE((crc ^ 0xffffffff) >>> 0, body.length + 4);
  return out;
}

for (const size of [192, 512]) {
  const file = new URL(`../demo/app/icons/icon-${size}.png`, import.meta.url);
  writeFileSync(file, drawPng(size));
  console.log(`wrote demo/app/icons/icon-${size}.png`);
}
