
    export function render({ model, el }) {
      const show = () => { model.seen = true; };
      if (!("IntersectionObserver" in window)) { show(); return; }
      const io = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) { io.disconnect(); show(); }
      }, { rootMargin: "300px 0px" });
      io.observe(el);
      model.on("remove", () => io.disconnect());
    }
    