
    export function render({ model, el }) {
      // Reports once, when the box comes within 300 px of the viewport; the server then puts
      // the real figure in its place (app/shell/widgets.py RevealSlot). Printing asks too,
      // so a printout made after the first one has every figure.
      let done = false;
      const show = () => {
        if (done) return;
        done = true;
        window.removeEventListener("beforeprint", show);
        model.seen = true;
      };
      if (!("IntersectionObserver" in window)) { show(); return; }
      const io = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) { io.disconnect(); show(); }
      }, { rootMargin: "300px 0px" });
      io.observe(el);
      window.addEventListener("beforeprint", show);
      model.on("remove", () => { io.disconnect(); window.removeEventListener("beforeprint", show); });
    }
