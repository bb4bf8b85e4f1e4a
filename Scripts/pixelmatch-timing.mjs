// Times pixelmatch's JavaScript original on two raw RGBA8 files, for the Benchmarks executable,
// which runs it beside its own figures on the same files:
//
//   node Scripts/pixelmatch-timing.mjs PIXELMATCH_INDEX_JS ACTUAL.rgba REFERENCE.rgba WIDTH HEIGHT RUNS
//
// Only the pixelmatch call is timed (not reading the files or allocating the diff output), after
// one warm-up call, with and without a diff output buffer. Prints one JSON object:
// {"count": N, "diffCount": N, "countMs": [...], "diffMs": [...], "node": "v20..."}.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [indexPath, actualPath, referencePath, widthText, heightText, runsText] =
  process.argv.slice(2);
if (!runsText) {
  console.error('usage: pixelmatch-timing.mjs INDEX_JS ACTUAL.rgba REFERENCE.rgba W H RUNS');
  process.exit(64);
}
const { default: pixelmatch } = await import(pathToFileURL(indexPath).href);
const width = Number(widthText);
const height = Number(heightText);
const runs = Number(runsText);
const actual = new Uint8Array(readFileSync(actualPath));
const reference = new Uint8Array(readFileSync(referencePath));
if (actual.length !== width * height * 4 || reference.length !== actual.length) {
  console.error(`the files do not hold ${width}x${height} RGBA8 pixels`);
  process.exit(65);
}

function measure(output) {
  let count = pixelmatch(actual, reference, output, width, height, { threshold: 0.1 });
  const times = [];
  for (let run = 0; run < runs; run++) {
    const start = process.hrtime.bigint();
    count = pixelmatch(actual, reference, output, width, height, { threshold: 0.1 });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { count, times };
}

const plain = measure(null);
const withDiff = measure(new Uint8Array(width * height * 4));
console.log(JSON.stringify({
  count: plain.count, diffCount: withDiff.count, countMs: plain.times, diffMs: withDiff.times,
  node: process.version,
}));
