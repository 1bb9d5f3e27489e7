// Draws the page's Mermaid diagrams in the browser. Mermaid is loaded by dynamic
// import, so pages without a diagram never download it.
//
// State for readers and for checkers, on <html data-mermaid>: "pending" while drawing,
// "done" once every diagram has been tried (set in `finally`, so it is reliable).
// Each diagram host gets data-mermaid-state="rendered" or "error".

const SELECTOR = "[data-mermaid-source], pre > code.language-mermaid, pre.mermaid";

interface DiagramSource {
  host: HTMLElement;
  code: string;
}

function collect(): DiagramSource[] {
  const sources: DiagramSource[] = [];
  for (const element of document.querySelectorAll<HTMLElement>(SELECTOR)) {
    if (element.matches("[data-mermaid-source]")) {
      const code = element.querySelector("code, pre")?.textContent ?? element.textContent ?? "";
      sources.push({ host: element, code });
      continue;
    }
    // A fenced ```mermaid block: replace the <pre> by a host like the component's.
    const pre = element.closest("pre") ?? element;
    const host = document.createElement("div");
    host.className = "mermaid-diagram";
    host.dataset.mermaidSource = "fence";
    pre.replaceWith(host);
    host.append(pre);
    sources.push({ host, code: element.textContent ?? "" });
  }
  return sources;
}

function showError(host: HTMLElement, message: string): void {
  host.dataset.mermaidState = "error";
  const note = document.createElement("p");
  note.className = "mermaid-error";
  note.setAttribute("role", "alert");
  note.textContent = `${document.documentElement.lang.startsWith("fr") ? "Ce diagramme n'a pas pu être dessiné" : "This diagram could not be drawn"}: ${message}`;
  host.prepend(note);
}

export async function renderDiagrams(): Promise<void> {
  const sources = collect();
  if (sources.length === 0) return;
  const root = document.documentElement;
  root.dataset.mermaid = "pending";
  try {
    const { default: mermaid } = await import("mermaid");
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral", fontFamily: "inherit" });
    for (const [index, { host, code }] of sources.entries()) {
      try {
        const { svg } = await mermaid.render(`mermaid-diagram-${index + 1}`, code.trim());
        const figure = host.querySelector(".mermaid-output") ?? host;
        figure.innerHTML = svg;
        host.dataset.mermaidState = "rendered";
        host.querySelector("pre")?.setAttribute("hidden", "");
      } catch (error) {
        // mermaid.render leaves its temporary element (with an error drawing) in the body.
        document.getElementById(`dmermaid-diagram-${index + 1}`)?.remove();
        const message = error instanceof Error ? error.message : String(error);
        showError(host, message);
        console.error(`Mermaid diagram ${index + 1} failed to render: ${message}`);
      }
    }
  } finally {
    root.dataset.mermaid = "done";
  }
}
