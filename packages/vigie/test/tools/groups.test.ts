// The on-demand group loader reaches the registry's own definitions, and the group guess
// from a command's first word is right for every tool name form the CLI accepts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ToolGroup } from "../../src/tools/define.ts";
import { groupNamedBy, toolsOfGroup } from "../../src/tools/groups.ts";
import { registry, toolsOf } from "../../src/tools/registry.ts";

const GROUPS: ToolGroup[] = ["dev", "build", "browser"];

describe("tool groups on demand", () => {
  test("each group holds exactly the registry's definitions of that group, the same objects", async () => {
    for (const group of GROUPS) assert.deepEqual([...(await toolsOfGroup(group))], toolsOf(group));
    const all = (await Promise.all(GROUPS.map(toolsOfGroup))).flat();
    assert.equal(all.length, registry.length);
  });

  test("the group is read from every accepted form of a tool's name", () => {
    for (const definition of registry) {
      const { group, exportName } = definition;
      for (const word of [
        group,
        `${group}_${exportName}`,
        `${group}-${exportName.replaceAll("_", "-")}`,
        `blog_${group}_${exportName}`,
        `docs_${group}_${exportName}`,
      ])
        assert.equal(groupNamedBy(word), group, word);
    }
  });

  test("no group from words that name none", () => {
    for (const word of [undefined, "", "list", "start", "js_errors", "blog", "devx_status"])
      assert.equal(groupNamedBy(word), undefined, String(word));
  });
});
