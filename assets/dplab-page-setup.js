(function () {
  "use strict";
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
    // Names for screen readers that Bokeh's widgets lack: a slider handle (role=slider) gets
    // its title as aria-label, a slider on a log10 scale gets aria-valuetext with the value
    // itself ("σ = 2.5"), a checkbox gets the text beside it (Bokeh draws that in a <div>,
    // not a <label>; a click on it now toggles the box too). Widgets are drawn (and redrawn)
    // after this runs, so the scan repeats, and runs on focus.
    function fmtPow(v) {
      const x = Math.pow(10, v);
      if (!isFinite(x)) return String(x);
      if (x !== 0 && (x < 1e-3 || x >= 1e5)) {
        return x.toExponential(2).replace(/\.?0+e/, "e").replace("e+", "e");
      }
      return String(Number(x.toPrecision(4)));
    }
    function nameWidgets(logSliders) {
      for (const h of deepAll(".noUi-handle")) {
        if (h.dataset.dpNamed) continue;
        h.dataset.dpNamed = "1";
        const root = h.getRootNode();
        const title = root.querySelector && root.querySelector(".bk-slider-title");
        const label = title ? title.textContent.replace(/:\s*[^:]*$/, "").trim() : "";
        if (label && !h.hasAttribute("aria-label")) h.setAttribute("aria-label", label);
        // noUiSlider rounds aria-valuenow to one decimal ("2.0" for 2.05): the handle's tooltip
        // has the value as shown, so aria-valuetext reads that (or 10^value for a log slider)
        const host = root.host;
        const sym = host && Object.keys(logSliders).find((c) => host.classList.contains(c));
        const text = () => {
          const tip = h.querySelector(".noUi-tooltip");  // noUiSlider replaces it at times
          const shown = tip ? tip.textContent.trim() : "";
          const v = parseFloat(shown !== "" ? shown : h.getAttribute("aria-valuenow"));
          if (isNaN(v)) return;
          const t = sym ? logSliders[sym] + " = " + fmtPow(v) : (shown || String(v));
          if (h.getAttribute("aria-valuetext") !== t) h.setAttribute("aria-valuetext", t);
        };
        text();
        new MutationObserver(text).observe(h, { attributes: true, attributeFilter: ["aria-valuenow"],
                                                childList: true, characterData: true,
                                                subtree: true });
      }
      for (const box of deepAll("input[type=checkbox]")) {
        if (box.dataset.dpNamed) continue;
        box.dataset.dpNamed = "1";
        const next = box.nextElementSibling;
        if (next && next.classList.contains("bk-label") && !box.closest("label")
            && !box.hasAttribute("aria-label")) {
          box.setAttribute("aria-label", next.textContent.trim());
          next.style.cursor = "pointer";
          next.addEventListener("click", () => { if (!box.disabled) box.click(); });
        }
      }
    }
    // A release-only slider (class dp-release-only: app/shell/widgets.py ImmediateSlider)
    // has a server that acts on the release alone. BokehJS's slider sends `value` on every
    // drag step and key press, then `value_throttled` in a second message; here a step moves
    // the value in the browser only (the title's readout still follows), and the release
    // sends both values in one message. Other sliders keep BokehJS's behaviour.
    const RELEASE_ONLY = "dp-release-only";
    function releaseOnlySliders() {
      const models = window.Bokeh && window.Bokeh.Models;
      const Slider = models && models.get && models.get("Slider");
      const View = Slider && Slider.prototype.default_view;
      let proto = View && View.prototype;
      while (proto && !Object.prototype.hasOwnProperty.call(proto, "_slide")) {
        proto = Object.getPrototypeOf(proto);
      }
      if (!proto || proto._dpReleaseOnly || typeof proto._change !== "function") return;
      const slide = proto._slide, change = proto._change;
      const mine = (view) => (view.model.css_classes || []).includes(RELEASE_ONLY);
      proto._slide = function (values) {
        if (!mine(this)) return slide.call(this, values);
        this.model.setv({ value: this._calc_from(values) }, { sync: false });
      };
      proto._change = function (values) {
        if (!mine(this)) return change.call(this, values);
        const value = this._calc_from(values);
        // check_eq: `value` already holds the new value here (set without sync above). Sent
        // even when released where it started: the server may have moved the slider since
        // (a typed σ), and an equal value costs it nothing.
        this.model.setv({ value, value_throttled: value }, { check_eq: false });
      };
      proto._dpReleaseOnly = true;
    }
    // A figure's automatic range (DataRange1d) is computed in the browser from the data, and
    // BokehJS sent each new start and end to the server: one message per figure whose data
    // changed, on every σ move. The server never reads them (it sets a range it needs itself),
    // so they stay in the browser. A range a student pans or zooms is not touched.
    function quietAutoRanges() {
      const models = window.Bokeh && window.Bokeh.Models;
      const DataRange1d = models && models.get && models.get("DataRange1d");
      const proto = DataRange1d && DataRange1d.prototype;
      if (!proto || proto._dpQuiet || typeof proto.update !== "function") return;
      const update = proto.update;
      proto.update = function (...args) {
        const setv = this.setv;
        this.setv = (attrs, options) => setv.call(this, attrs, { ...(options || {}), sync: false });
        try { return update.apply(this, args); } finally { delete this.setv; }
      };
      proto._dpQuiet = true;
    }
    // Print (issue 39, 5; assets/dplab-controls.css): on paper a Panel Column is a plain block,
    // but only one that is shown. Bokeh hides a component with a style sheet in its own shadow
    // root, which that rule would override, so every view's host carries `data-dp-shown` while
    // its model is visible: set wherever Bokeh applies a change of `visible`, and for every
    // view by the scan below (the views drawn after this ran included) and when print media
    // starts to apply. Without it (a BokehJS whose internals differ) nothing changes on paper.
    const SHOWN = "data-dp-shown";
    function markShown(view) {
      // (a view that draws on a canvas has no element of its own)
      if (view && view.el instanceof Element && view.model) {
        view.el.toggleAttribute(SHOWN, view.model.visible !== false);
      }
    }
    function markAllShown() {
      const index = window.Bokeh && window.Bokeh.index;
      if (index && typeof index.all_views === "function") {
        for (const view of index.all_views()) markShown(view);
      }
    }
    function shownOnPaper() {
      const models = window.Bokeh && window.Bokeh.Models;
      const Column = models && models.get && models.get("Column");
      const View = Column && Column.prototype.default_view;
      let proto = View && View.prototype;
      while (proto && !Object.prototype.hasOwnProperty.call(proto, "_apply_visible")) {
        proto = Object.getPrototypeOf(proto);
      }
      if (!proto || proto._dpShown) return;
      const apply = proto._apply_visible;
      proto._apply_visible = function (...args) {
        const out = apply.apply(this, args);
        markShown(this);
        return out;
      };
      proto._dpShown = true;
    }
    // The page's settings (app/shell/template.py page_setup_json): the page language, the
    // sidebar toggle's and region's names, the skip link's text, the phone width, the log10
    // sliders.
    function setup(model) {
      try { releaseOnlySliders(); } catch (e) { /* BokehJS's own behaviour stays */ }
      try { quietAutoRanges(); } catch (e) { /* BokehJS's own behaviour stays */ }
      try { shownOnPaper(); } catch (e) { /* the print keeps Bokeh's flex columns */ }
      const logSliders = model.log_sliders || {};
      const scan = () => {
        try { nameWidgets(logSliders); } catch (e) { /* never break */ }
        try { markAllShown(); } catch (e) { /* never break */ }
      };
      // (this runs before the page's views exist: the scan is frequent for the first 20 s)
      let tick = 0;
      setInterval(() => { tick += 1; if (tick <= 25 || tick % 5 === 0) scan(); }, 800);
      document.addEventListener("focusin", scan);
      setTimeout(scan, 0);
      if (model.lang) document.documentElement.lang = model.lang;
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
      // Landmarks and the page heading the Fast template lacks, and a skip link to the content
      // (the first thing Tab reaches; the same look as the plain pages' .dp-skip).
      const header = document.getElementById("header");
      const mainEl = document.getElementById("main");
      if (header && !header.dataset.dpLandmarks) {
        header.dataset.dpLandmarks = "1";
        const title = header.querySelector(".app-header");
        if (title) { title.setAttribute("role", "heading"); title.setAttribute("aria-level", "1"); }
        if (sb) {
          sb.setAttribute("role", "region");
          sb.setAttribute("aria-label", model.region_label);
          for (const ul of sb.querySelectorAll("ul.nav")) ul.setAttribute("role", "presentation");
        }
        if (mainEl) {
          mainEl.setAttribute("role", "main");
          mainEl.tabIndex = -1;
          const skip = document.createElement("a");
          skip.className = "dp-skip dp-skip-panel";
          skip.href = "#main";
          skip.textContent = model.skip_label;
          skip.addEventListener("click", (e) => {
            e.preventDefault();
            mainEl.focus({ preventScroll: false });
          });
          document.body.insertBefore(skip, document.body.firstChild);
        }
      }
      // Folded <details> print their contents without this (assets/dplab-controls.css: a print
      // server fires no `beforeprint`); a browser without ::details-content gets them opened
      // here, on `beforeprint` or when print media starts to apply, and closed again after.
      let opened = [];
      const before = () => {
        try { markAllShown(); } catch (e) { /* never break */ }
        const closed = deepAll("details:not([open])");
        for (const d of closed) d.open = true;
        opened.push(...closed);
      };
      const after = () => { for (const d of opened) d.open = false; opened = []; };
      const printing = window.matchMedia("print");
      const media = (e) => { if (e.matches) before(); else after(); };
      window.addEventListener("beforeprint", before);
      window.addEventListener("afterprint", after);
      printing.addEventListener("change", media);
    }
    // A classic script deferred after BokehJS (app/shell/template.py): it runs when the page's
    // HTML is parsed, before Bokeh builds the document's views (DOMContentLoaded), so the
    // prototypes above are changed before any view is made.
    function start() {
      const el = document.getElementById("dp-page-setup");
      if (!el || el.dataset.dpStarted) return;
      el.dataset.dpStarted = "1";
      let settings;
      try { settings = JSON.parse(el.textContent); } catch (e) { return; }
      setup(settings);
    }
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", start);
    } else {
      start();
    }
})();
    