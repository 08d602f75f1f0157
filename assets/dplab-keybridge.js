
    export function render({ model }) {
      let count = 0;
      let overlay = null;
      let before = null;
      const KEYS = new Set(["ArrowLeft", "ArrowRight", "?", "p", "d", "1", "2", "3", "4", "5",
                            "6", "7"]);
      function deepAll(sel, root, out) {
        root.querySelectorAll(sel).forEach((e) => out.push(e));
        root.querySelectorAll("*").forEach((e) => {
          if (e.shadowRoot) { deepAll(sel, e.shadowRoot, out); }
        });
        return out;
      }
      function toggleFolds() {
        const folds = deepAll("details", document, []);
        const open = folds.some((d) => !d.open);
        folds.forEach((d) => { d.open = open; });
      }
      function closeHelp() {
        if (overlay) { overlay.remove(); overlay = null; if (before) { before.focus(); } }
      }
      function openHelp() {
        if (overlay) { closeHelp(); return; }
        before = document.activeElement;
        overlay = document.createElement("div");
        overlay.className = "dp-help-overlay dp-no-print";  // (dplab.css: not in print)
        overlay.setAttribute("role", "dialog");
        overlay.setAttribute("aria-modal", "true");
        overlay.setAttribute("aria-labelledby", "dp-help-title");
        overlay.style.cssText = "position:fixed;inset:0;background:#000a;z-index:10000;" +
          "display:flex;align-items:center;justify-content:center;";
        const box = document.createElement("div");
        box.style.cssText = "background:#fff;color:#111;max-width:36em;width:92vw;" +
          "max-height:90vh;overflow:auto;border-radius:10px;padding:1em 1.4em;" +
          "font-size:1.1em;line-height:1.5;box-shadow:0 4px 24px #0008;";
        box.innerHTML = model.help_html;
        const btn = document.createElement("button");
        btn.textContent = model.close_label;
        btn.className = "dp-help-close";
        btn.style.cssText = "font:inherit;padding:.3em 1em;margin-top:.6em;min-height:44px;";
        btn.addEventListener("click", closeHelp);
        box.appendChild(btn);
        overlay.appendChild(box);
        overlay.addEventListener("click", (e) => { if (e.target === overlay) { closeHelp(); } });
        document.body.appendChild(overlay);
        btn.focus();
      }
      function onKey(e) {
        if (e.ctrlKey || e.metaKey || e.altKey) { return; }
        if (overlay) {
          if (e.key === "Escape" || e.key === "?") { e.preventDefault(); closeHelp(); }
          else if (e.key === "Tab") { e.preventDefault(); overlay.querySelector("button").focus(); }
          return;
        }
        if (!KEYS.has(e.key)) { return; }
        const path = e.composedPath ? e.composedPath() : [e.target];
        for (const el of path) {
          if (!el || !el.tagName) { continue; }
          const tag = el.tagName.toLowerCase();
          if (tag === "input" || tag === "textarea" || tag === "select" || el.isContentEditable) {
            return;
          }
          const role = el.getAttribute && el.getAttribute("role");
          if (role === "slider" || role === "radiogroup" || role === "listbox") { return; }
          if (el.classList && el.classList.contains("noUi-handle")) { return; }
        }
        e.preventDefault();
        if (e.key === "?") { openHelp(); return; }
        if (e.key === "d") { toggleFolds(); return; }
        if (e.key === "p") {
          const u = new URL(window.location.href);
          if (u.searchParams.get("size") === "large") { u.searchParams.delete("size"); }
          else { u.searchParams.set("size", "large"); }
          window.location.href = u.toString();
          return;
        }
        count += 1;
        model.event = e.key + "#" + count;
      }
      document.addEventListener("keydown", onKey);
      model.on("remove", () => { document.removeEventListener("keydown", onKey); closeHelp(); });
      const el = document.createElement("span");
      el.className = "dp-keybridge";
      return el;
    }
    