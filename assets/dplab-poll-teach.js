// The teacher's room page (/teach?room=CODE, app/room/poll_pages.py): the results of the
// current private poll and the class's CDF, polled from the room's API (the HTML is made and
// escaped by the server: app/room/poll_cdf.py). The degree slider only shows another
// degree of the same release (every degree was computed from the one release: post-
// processing, no privacy cost). "Show the true CDF" fetches the NOT private comparison.
(function () {
  "use strict";
  var pollSec = document.querySelector(".dp-poll-section[data-poll-api]");
  var cdfSec = document.querySelector(".dp-cdf-section[data-cdf-api]");
  if (!pollSec || !cdfSec) { return; }
  var pollBox = pollSec.querySelector(".dp-poll-results");
  var cdfBox = cdfSec.querySelector(".dp-cdf-results");
  var truthBtn = cdfSec.querySelector(".dp-cdf-truth");
  var truthBox = cdfSec.querySelector(".dp-cdf-truth-box");
  var last = { poll: "", cdf: "", release: "", degree: null };

  function get(url) {
    return fetch(url, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      return r.ok ? r.json() : null;
    });
  }
  function showDegree(d) {
    var boxes = cdfBox.querySelectorAll(".dp-cdf-at[data-degree]");
    Array.prototype.forEach.call(boxes, function (b) {
      b.hidden = b.getAttribute("data-degree") !== String(d);
    });
    var out = cdfBox.querySelector(".dp-cdf-degree-out");
    if (out) { out.textContent = String(d); }
  }
  cdfBox.addEventListener("input", function (ev) {
    if (ev.target && ev.target.classList.contains("dp-cdf-degree")) {
      last.degree = ev.target.value;
      showDegree(ev.target.value);
    }
  });

  var delay = 1000;
  function tick() {
    Promise.all([get(pollSec.getAttribute("data-poll-api")),
                 get(cdfSec.getAttribute("data-cdf-api"))]).then(function (both) {
      var p = both[0], c = both[1];
      delay = (p && c) ? 1000 : Math.min(5000, delay * 2);
      if (p && p.html !== last.poll) { pollBox.innerHTML = p.html; last.poll = p.html; }
      if (c && c.html !== last.cdf) {
        // A keyboard user on the degree slider keeps it when the box is drawn again.
        var had = document.activeElement && document.activeElement.classList &&
          document.activeElement.classList.contains("dp-cdf-degree");
        cdfBox.innerHTML = c.html;
        last.cdf = c.html;
        var rid = c.release ? c.release.id : "";
        if (rid !== last.release) { last.release = rid; last.degree = null; }
        var slider = cdfBox.querySelector(".dp-cdf-degree");
        if (slider && last.degree !== null) { slider.value = last.degree; showDegree(last.degree); }
        if (slider && had) { slider.focus(); }
        truthBtn.disabled = !rid;
      }
    }).catch(function () { delay = Math.min(5000, delay * 2); })
      .then(function () { window.setTimeout(tick, delay); });
  }
  truthBtn.addEventListener("click", function () {
    if (!truthBox.hidden) {
      truthBox.hidden = true; truthBox.innerHTML = "";
      truthBtn.setAttribute("aria-expanded", "false");
      return;
    }
    var url = cdfSec.getAttribute("data-cdf-api") + "&truth=1";
    get(url).then(function (c) {
      if (c && c.truth_html) {
        truthBox.innerHTML = c.truth_html;
        truthBox.hidden = false;
        truthBtn.setAttribute("aria-expanded", "true");
      }
    });
  });
  tick();
}());
