// JPEG frames, each with the time it is shown at, as a Matroska stream for ffmpeg's stdin. A raw
// JPEG pipe (image2pipe) carries no times, so a still page had to be sent again and again to keep
// the video's clock; with times, only frames that changed are sent and encoded
// (docs/decisions/0067-browser-runs-cost-their-browser.md).
// The elements are Matroska's (https://www.matroska.org/technical/elements.html); only what
// ffmpeg's demuxer needs is written, and the segment's size is left unknown, as in a live stream.

/**
 * The stream's start: the EBML header, the segment (of unknown size), its info and one track.
 * The track names no size: each JPEG has its own, and ffmpeg's decoder takes a JPEG much smaller
 * than the size a track names for one field of an interlaced picture.
 */
export function matroskaHeader(): Buffer {
  return Buffer.concat([
    element(0x1a45dfa3, [
      uintElement(0x4286, 1), // EBMLVersion
      uintElement(0x42f7, 1), // EBMLReadVersion
      uintElement(0x42f2, 4), // EBMLMaxIDLength
      uintElement(0x42f3, 8), // EBMLMaxSizeLength
      stringElement(0x4282, "matroska"), // DocType
      uintElement(0x4287, 4), // DocTypeVersion
      uintElement(0x4285, 2), // DocTypeReadVersion
    ]),
    // Segment, its size unknown (all ones): it lasts until the stream ends.
    Buffer.from([0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
    element(0x1549a966, [
      uintElement(0x2ad7b1, 1_000_000), // TimestampScale: times are in milliseconds
      stringElement(0x4d80, "skillrun"), // MuxingApp
      stringElement(0x5741, "skillrun"), // WritingApp
    ]),
    element(0x1654ae6b, [
      element(0xae, [
        uintElement(0xd7, 1), // TrackNumber
        uintElement(0x73c5, 1), // TrackUID
        uintElement(0x83, 1), // TrackType: video
        stringElement(0x86, "V_MJPEG"), // CodecID
      ]),
    ]),
  ]);
}

/**
 * One frame shown from `atMs` (milliseconds since the stream's start) until the next: a cluster
 * of its own, whose time is the frame's, holding one key-frame SimpleBlock of track 1. The JPEG
 * is not copied: the parts are written one after the other.
 */
export function matroskaFrame(jpeg: Buffer, atMs: number): Buffer[] {
  if (!Number.isInteger(atMs) || atMs < 0) throw new RangeError(`bad frame time ${atMs}`);
  // Track number 1 as a one-byte number, the time relative to the cluster's (0), flags: key frame.
  const blockHead = Buffer.from([0x81, 0x00, 0x00, 0x80]);
  const blockSize = blockHead.length + jpeg.length;
  const simpleBlockHead = Buffer.concat([id(0xa3), size(blockSize)]);
  const timestamp = uintElement(0xe7, atMs);
  const clusterSize = timestamp.length + simpleBlockHead.length + blockSize;
  return [
    Buffer.concat([id(0x1f43b675), size(clusterSize), timestamp, simpleBlockHead, blockHead]),
    jpeg,
  ];
}

function element(elementId: number, children: Buffer[]): Buffer {
  const body = Buffer.concat(children);
  return Buffer.concat([id(elementId), size(body.length), body]);
}

function uintElement(elementId: number, value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  do {
    bytes.unshift(rest % 256);
    rest = Math.floor(rest / 256);
  } while (rest > 0);
  return element(elementId, [Buffer.from(bytes)]);
}

function stringElement(elementId: number, value: string): Buffer {
  return element(elementId, [Buffer.from(value, "ascii")]);
}

/** An element id: its bytes as written (the length marker is part of the id). */
function id(elementId: number): Buffer {
  const bytes: number[] = [];
  let rest = elementId;
  while (rest > 0) {
    bytes.unshift(rest & 0xff);
    rest >>>= 8;
  }
  return Buffer.from(bytes);
}

/** A size as an EBML variable-length number: the shortest of 1 to 8 bytes that holds it. */
function size(value: number): Buffer {
  for (let length = 1; length <= 8; length += 1) {
    // All ones is kept for "unknown", hence the - 1.
    if (value < 2 ** (7 * length) - 1) {
      const bytes = Buffer.alloc(length);
      let rest = value;
      for (let i = length - 1; i >= 0; i -= 1) {
        bytes[i] = rest % 256;
        rest = Math.floor(rest / 256);
      }
      bytes[0] = (bytes[0] as number) | (0x80 >> (length - 1));
      return bytes;
    }
  }
  throw new RangeError(`an element of ${value} bytes is too large`);
}
