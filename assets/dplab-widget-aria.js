/* Names and error states of Bokeh's widgets from the moment they are drawn (issue 39, item 3).

   A classic script in every Panel page's <head> (app/shell/template.py), deferred like Bokeh's
   own, so it runs after BokehJS has loaded and before the page's document is built: it wraps
   the render methods of Bokeh's widget views, and every slider, checkbox and text field gets
   its name in the same task that creates it. (assets/dplab-page-setup.js names them too, but
   only once its component is drawn and then on a timer: a screen reader or a checker on a busy
   machine found them unnamed for seconds.)

   - a slider's handle (role=slider) gets the slider's title as aria-label;
   - a checkbox gets the text beside it as aria-label (Bokeh draws that text in a <div>, not a
     <label>), and a click on that text toggles the box;
   - a text field whose model has the tag ERROR_TAG followed by a message (app/shell/widgets.py
     show_field_error) gets aria-invalid="true" and aria-describedby naming an element in its
     own shadow root that holds the message (an id cannot point into another component's
     shadow root, where the page shows the message).
   Anything unexpected leaves Bokeh's own behaviour as it is. */
(function () {
  "use strict";
  var ERROR_TAG = "dp-field-error";
  var ERROR_ID = "dp-field-error";

  function viewProto(name) {
    var models = window.Bokeh && window.Bokeh.Models;
    var Model = models && models.get && models.get(name);
    var View = Model && Model.prototype.default_view;
    return View ? View.prototype : null;
  }

  // The prototype up the chain from `proto` that defines `method` itself.
  function owner(proto, method) {
    while (proto && !Object.prototype.hasOwnProperty.call(proto, method)) {
      proto = Object.getPrototypeOf(proto);
    }
    return proto;
  }

  function wrap(proto, method, after) {
    var own = owner(proto, method);
    if (!own || typeof own[method] !== "function") return;
    var flag = "_dpAria_" + method;
    if (own[flag]) return;
    var orig = own[method];
    own[method] = function () {
      var out = orig.apply(this, arguments);
      try { after(this); } catch (e) { /* never break a widget */ }
      return out;
    };
    own[flag] = true;
  }

  // ---- sliders ------------------------------------------------------------------------------
  function nameSlider(view) {
    var title = view.model.title;
    if (!view.slider_el || typeof title !== "string" || !title.trim()) return;
    var handles = view.slider_el.querySelectorAll(".noUi-handle");
    for (var i = 0; i < handles.length; i++) handles[i].setAttribute("aria-label", title.trim());
  }

  // ---- checkboxes ---------------------------------------------------------------------------
  function nameCheckbox(view) {
    var box = view.checkbox_el, label = view.label_el;
    if (!box || !label) return;
    var text = String(view.model.label || "").trim();
    if (!text) { box.removeAttribute("aria-label"); return; }
    box.setAttribute("aria-label", text);
    if (!label.dataset.dpClick) {
      label.dataset.dpClick = "1";
      label.style.cursor = "pointer";
      label.addEventListener("click", function () { if (!box.disabled) box.click(); });
    }
  }

  // ---- a text field's error -----------------------------------------------------------------
  function fieldError(view) {
    var input = view.input_el, group = view.group_el;
    if (!input || !group) return;
    var tags = view.model.tags || [];
    var at = tags.indexOf(ERROR_TAG);
    var msg = at >= 0 && typeof tags[at + 1] === "string" ? tags[at + 1] : "";
    var box = group.querySelector("#" + ERROR_ID);
    if (msg) {
      if (!box) {
        box = document.createElement("span");
        box.id = ERROR_ID;
        // read by a screen reader with the field; the page shows the message below it
        box.style.cssText = "position:absolute;width:1px;height:1px;overflow:hidden;"
          + "clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap;";
        group.appendChild(box);
      }
      box.textContent = msg;
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", ERROR_ID);
    } else if (box) {
      box.remove();
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }
  }

  function install() {
    var slider = viewProto("Slider");
    if (slider) {
      wrap(slider, "render", nameSlider);
      wrap(slider, "_update_title", nameSlider);
    }
    var checkbox = viewProto("Checkbox");
    if (checkbox) {
      wrap(checkbox, "render", nameCheckbox);
      wrap(checkbox, "_update_label", nameCheckbox);
    }
    var text = viewProto("TextInput");
    if (text) {
      wrap(text, "render", fieldError);
      wrap(text, "connect_signals", function (view) {
        view.on_change(view.model.properties.tags, function () { fieldError(view); });
      });
    }
  }

  try { install(); } catch (e) { /* Bokeh's own behaviour stays */ }
})();
