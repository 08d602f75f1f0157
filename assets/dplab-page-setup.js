
    function deepAll(sel) {
      const out = [], stack = [document];
      while (stack.length) {
        const root = stack.pop();
        out.push(...root.querySelectorAll(sel));
        for (const el of root.querySelectorAll("*")) {
          if (el.shadowRoot) stack.push(el.shadowRoot);
        }
      }
      return out;
    }
    export function render({ model }) {
      document.documentElement.lang = model.lang;
      model.on("lang", () => { document.documentElement.lang = model.lang; });
      const sb = document.getElementById("sidebar");
      const btn = document.getElementById("sidebar-button");
      if (sb && btn && !btn.dataset.dpReady) {
        btn.dataset.dpReady = "1";
        btn.setAttribute("role", "button");
        btn.tabIndex = 0;
        btn.setAttribute("aria-label", model.sidebar_label);
        btn.setAttribute("aria-controls", "sidebar");
        const sync = () => btn.setAttribute("aria-expanded",
                                            String(!sb.classList.contains("hidden")));
        new MutationObserver(sync).observe(sb, { attributes: true, attributeFilter: ["class"] });
        btn.addEventListener("keydown", (e) => {
          if (e.key === "Enter" || e.key === " ") { e.preventDefault(); btn.click(); }
        });
        if (window.matchMedia("(max-width: " + model.phone_max + "px)").matches
            && typeof window.closeNav === "function") { window.closeNav(); }
        sync();
      }
      let opened = [];
      const before = () => {
        const closed = deepAll("details:not([open])");
        for (const d of closed) d.open = true;
        opened.push(...closed);
      };
      const after = () => { for (const d of opened) d.open = false; opened = []; };
      window.addEventListener("beforeprint", before);
      window.addEventListener("afterprint", after);
      model.on("remove", () => {
        window.removeEventListener("beforeprint", before);
        window.removeEventListener("afterprint", after);
      });
      return document.createElement("span");
    }
    