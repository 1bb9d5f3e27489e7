// Gemini CLI (the @google/gemini-cli devDependency) as a user gets it after the README's
// `npx vigie init --mcp gemini`, in a copy of the blog, driven by a stand-in model on
// loopback that speaks Gemini's API: it starts the dev server, runs js_errors on a page
// that throws until it gets the error with its source, stops the server, and answers.
// Gemini CLI adds `wait_for_previous` to every tool and the stand-in fills it, as a model
// does: vigie ignores it and names it. Afterwards no process of the site is left.
// Prints the client's version, the bytes of vigie's tool declarations as Gemini sends them
// to the model, and the time from the client's start to vigie's first answer.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { killEverythingIn, processesUnder } from "../packages/vigie/test/core/devServer/helpers.ts";
import { BLOG_ROOT, type BlogCopy, copyBlog, freePort } from "../packages/vigie/test/support/blog.ts";

const GEMINI_BIN = join(BLOG_ROOT, "node_modules", ".bin", "gemini");
const GEMINI_VERSION = (
  JSON.parse(readFileSync(join(BLOG_ROOT, "node_modules", "@google", "gemini-cli", "package.json"), "utf8")) as { version: string }
).version;
const MAIN = join(BLOG_ROOT, "packages", "vigie", "src", "cli", "main.ts");
const PAGE = "src/pages/throws-for-agents.astro";
const MESSAGE = "thrown on purpose for the agent";

interface Part {
  text?: string;
  functionCall?: { name: string; args: Record<string, unknown> };
  functionResponse?: { name: string; response: unknown };
}

interface GeminiRequest {
  contents?: { role: string; parts: Part[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
}

/** The stand-in model: a tool call per turn, chosen from the tool results received so far. */
function standIn(port: number) {
  const requests: GeminiRequest[] = [];
  let firstAnswerAt = 0;
  const send = (response: ServerResponse, url: string, parts: Part[]) => {
    const body = {
      candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
      modelVersion: "gemini-2.5-flash",
    };
    if (url.includes("streamGenerateContent")) {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.end(`data: ${JSON.stringify(body)}\r\n\r\n`);
    } else {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    }
  };
  const decide = (request: GeminiRequest): Part[] => {
    const declared = (request.tools ?? []).flatMap((tool) => tool.functionDeclarations ?? []).map((entry) => entry.name);
    const vigie = (name: string) => declared.find((entry) => entry.endsWith(`blog_${name}`));
    if (!vigie("dev_start")) return [{ text: '{"reasoning": "done", "next_speaker": "user"}' }];
    const results = (request.contents ?? []).flatMap((content) => content.parts).filter((part) => part.functionResponse);
    if (results.length > 0 && firstAnswerAt === 0) firstAnswerAt = Date.now();
    const said = (part: Part | undefined) => JSON.stringify(part?.functionResponse?.response ?? "");
    const call = (name: string, args: Record<string, unknown>): Part[] => [
      { functionCall: { name: vigie(name) ?? name, args: { ...args, wait_for_previous: true } } },
    ];
    const last = results.at(-1);
    if (results.length === 0) return call("dev_start", { port });
    const lastName = last?.functionResponse?.name ?? "";
    if (lastName.endsWith("dev_stop")) return [{ text: "The page throws; the server is stopped." }];
    if (lastName.endsWith("dev_start") || (lastName.endsWith("js_errors") && !said(last).includes(MESSAGE) && results.length < 5))
      return call("browser_js_errors", { path: "/throws-for-agents/" });
    return call("dev_stop", {});
  };
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      const url = request.url ?? "";
      if (url.includes(":countTokens")) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end('{"totalTokens": 1}');
        return;
      }
      let body: GeminiRequest = {};
      try {
        body = JSON.parse(text || "{}") as GeminiRequest;
      } catch {
        // not JSON
      }
      if (!url.includes("generateContent") && !url.includes("GenerateContent")) {
        response.writeHead(200, { "content-type": "application/json" });
        response.end("{}");
        return;
      }
      requests.push(body);
      send(response, url, decide(body));
    });
  });
  return { server, requests, firstAnswerAt: () => firstAnswerAt };
}

describe("Gemini CLI after `vigie init --mcp gemini`, driven by a stand-in model", { timeout: 420_000 }, () => {
  let copy: BlogCopy | undefined;
  let home = "";
  let model: ReturnType<typeof standIn> | undefined;
  let child: ChildProcess | undefined;

  before(async () => {
    copy = copyBlog("gemini");
    writeFileSync(
      join(copy.root, PAGE),
      [
        "---",
        "---",
        '<html lang="en"><head><title>Throws</title></head><body><p>This page throws.</p>',
        "<script>",
        "  function fail(): never {",
        `    throw new Error("${MESSAGE}");`,
        "  }",
        "  fail();",
        "</script>",
        "</body></html>",
        "",
      ].join("\n"),
    );
    home = mkdtempSync(join(tmpdir(), "vigie-gemini-home-"));
    mkdirSync(join(home, ".gemini"), { recursive: true });
    writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }));
  });

  after(async () => {
    if (child?.pid && child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    model?.server.close();
    if (copy) {
      killEverythingIn(copy);
      copy.remove();
    }
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test("start, js_errors with the error and its source line, stop; nothing of the site left", async (t) => {
    assert.ok(copy);
    // The README's command, in the site.
    const init = spawn(process.execPath, [MAIN, "init", "--mcp", "gemini"], { cwd: copy.root, stdio: ["ignore", "pipe", "pipe"] });
    let initOutput = "";
    init.stdout?.on("data", (chunk) => (initOutput += chunk));
    const [initCode] = (await once(init, "exit")) as [number];
    assert.equal(initCode, 0, initOutput);
    assert.match(initOutput, /\.gemini\/settings\.json/);
    assert.match(initOutput, /trust the folder/);

    const modelPort = await freePort();
    model = standIn(await freePort());
    model.server.listen(modelPort, "127.0.0.1");
    await once(model.server, "listening");

    const started = Date.now();
    child = spawn(
      GEMINI_BIN,
      ["-m", "gemini-2.5-flash", "-p", "Does the page /throws-for-agents/ work?", "--approval-mode", "yolo", "--output-format", "json"],
      {
        cwd: copy.root,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          HOME: home,
          XDG_CONFIG_HOME: join(home, ".config"),
          GEMINI_API_KEY: "stand-in",
          GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${modelPort}`,
          GEMINI_CLI_TRUST_WORKSPACE: "true",
          GEMINI_CLI_NO_RELAUNCH: "true",
          NO_COLOR: "1",
        },
      },
    );
    let output = "";
    child.stdout?.on("data", (chunk) => (output += chunk));
    child.stderr?.on("data", (chunk) => (output += chunk));
    const exited = once(child, "exit");
    const timer = setTimeout(() => child?.pid && process.kill(-child.pid, "SIGKILL"), 300_000);
    await exited;
    clearTimeout(timer);
    const doneMs = Date.now() - started;

    const { requests } = model;
    const declarations = requests.find((request) => request.tools?.length)?.tools?.flatMap((tool) => tool.functionDeclarations ?? []) ?? [];
    const ours = declarations.filter((entry) => /blog_/.test(entry.name));
    assert.equal(
      ours.length,
      15,
      `vigie's tools declared to the model: ${declarations.map((entry) => entry.name).join(", ")}\n${output.slice(-3000)}`,
    );
    const results = (requests.at(-1)?.contents ?? []).flatMap((content) => content.parts).filter((part) => part.functionResponse);
    const text = (part: Part | undefined) => JSON.stringify(part?.functionResponse?.response ?? "");
    const start = results.find((part) => part.functionResponse?.name.endsWith("dev_start"));
    assert.match(text(start), /started/, `${text(start)}\n${output.slice(-3000)}`);
    assert.match(text(start), /wait_for_previous/, "the argument Gemini added is named as ignored");
    assert.match(text(start), /stopped when this MCP session ends/);
    const errors = results.filter((part) => part.functionResponse?.name.endsWith("js_errors")).at(-1);
    assert.match(text(errors), new RegExp(MESSAGE), text(errors));
    assert.match(text(errors), /throws-for-agents\.astro:\d+/, "the error's source line");
    const stop = results.find((part) => part.functionResponse?.name.endsWith("dev_stop"));
    assert.match(text(stop), /\\"stopped\\":true|"stopped":true/, text(stop));

    // Nothing of the site is left once the client has exited.
    const deadline = Date.now() + 15_000;
    while (processesUnder(copy.root).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(processesUnder(copy.root), [], "processes left in the site");

    const firstAnswerMs = model.firstAnswerAt() - started;
    t.diagnostic(
      `Gemini CLI ${GEMINI_VERSION}: vigie's 15 declarations ${Buffer.byteLength(JSON.stringify(ours))} bytes as sent to the model; ` +
        `first vigie answer ${firstAnswerMs} ms after the client's start; whole run ${doneMs} ms`,
    );
    console.log(
      `Gemini CLI ${GEMINI_VERSION}: tool list ${Buffer.byteLength(JSON.stringify(ours))} bytes, first answer ${firstAnswerMs} ms, run ${doneMs} ms`,
    );
  });
});
