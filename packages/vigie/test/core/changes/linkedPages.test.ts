// HTML entities in a page's title and text (the dev server's answers) and in a link's href
// (the pages a crawl follows) are decoded as a browser decodes them.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { linkedPages } from "../../../src/core/changes/record.ts";
import { htmlText, htmlTitle } from "../../../src/core/devServer/http.ts";

test("a title and a body: named, decimal and hexadecimal entities decoded", () => {
  assert.equal(htmlTitle("<title>Tom &amp; Jerry &eacute;t&#233; &#x2014; &hellip;</title>"), "Tom & Jerry été — …");
  assert.equal(htmlText("<body><p>a &lt;b&gt; &quot;c&quot; &unknown; d</p></body>"), 'a <b> "c" &unknown; d');
});

test("linkedPages follows a link whose query is written with &amp;", () => {
  const dist = mkdtempSync(join(tmpdir(), "vigie-linked-"));
  try {
    writeFileSync(join(dist, "index.html"), '<a href="/tags/?a=1&amp;b=2">tags</a> <a href="/caf&#233;/">café</a>');
    mkdirSync(join(dist, "tags"));
    writeFileSync(join(dist, "tags", "index.html"), "<p>tags</p>");
    assert.deepEqual(linkedPages(dist, "", ["/"]), ["/", "/tags/", "/caf%C3%A9/"]);
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
});
