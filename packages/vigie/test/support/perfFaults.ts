// Pages of a blog copy that are slow or shift in one known way each, under /perf/: a large hero
// image lazy-loaded above the fold (Astro's <Image> default), an image without dimensions above
// the text, a button whose click handler is busy for 300 ms, an image four times wider than its box.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PNG } from "pngjs";

const page = (title: string, head: string, body: string) =>
  `---\n${head}\n---\n<html lang="en"><head><meta charset="utf-8" /><title>${title}</title><link rel="icon" href="data:," /></head><body><main><h1>${title}</h1>\n${body}\n</main></body></html>\n`;

const TEXT = "<p>Some text under the picture, long enough to be seen moving when the picture above it loads.</p>".repeat(6);

export const PERF_FAULT_PAGES = {
  "lazy-hero": page(
    "lazy hero",
    'import { Image } from "astro:assets";\nimport hero from "../../assets/figures/dev-loop.png";',
    `<Image src={hero} alt="The working loop" width={1200} loading="lazy" />\n${TEXT}`,
  ),
  oversized: page("oversized image", "", `<img src="/perf/wide.png" alt="a wide picture" width="600" height="350" />\n<p>Short.</p>`),
  unsized: page("unsized image", "", `<p>Intro.</p>\n<img src="/perf/noise.png" alt="noise" loading="lazy" />\n${TEXT}`),
  "busy-click": page(
    "busy click",
    "",
    `<button id="busy" type="button">Busy</button>\n<p id="out">${"Text. ".repeat(40)}</p>\n<script>\n  document.getElementById("busy")?.addEventListener("click", function busyLoop() {\n    const end = performance.now() + 300;\n    while (performance.now() < end) {}\n    document.getElementById("out")!.textContent = "done";\n  });\n</script>`,
  ),
};

/** A PNG of noise (it does not compress): large enough to arrive after the first paint. */
function noisePng(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < png.data.length; i += 1) png.data[i] = i % 4 === 3 ? 255 : Math.floor(Math.random() * 256);
  return PNG.sync.write(png);
}

/** A PNG of one colour (it compresses to almost nothing): wide, but light. */
function flatPng(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([40, 90, 160, 255], i);
  return PNG.sync.write(png);
}

/** Writes the pages under src/pages/perf/ and their images under public/perf/. */
export function addPerfFaultPages(root: string): void {
  const dir = join(root, "src", "pages", "perf");
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(PERF_FAULT_PAGES)) writeFileSync(join(dir, `${name}.astro`), content);
  mkdirSync(join(root, "public", "perf"), { recursive: true });
  writeFileSync(join(root, "public", "perf", "noise.png"), noisePng(1200, 700));
  writeFileSync(join(root, "public", "perf", "wide.png"), flatPng(2400, 1400));
}
