// Following a link to a step of the tree opens it (and the steps above it), so that one click on
// a citation or a reference's "step" link shows the step, its reading and its passage.
(function () {
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) return;
    for (var el = target; el; el = el.parentElement) {
      if (el.tagName === "DETAILS") el.open = true;
    }
    var summary = target.querySelector("summary");
    (summary || target).focus({ preventScroll: false });
  }
  window.addEventListener("hashchange", reveal);
  reveal();
})();
