"""Helpers shared by the browser tests (imported by conftest.py and the test modules)."""
from __future__ import annotations

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
PLOT = ".js-plotly-plot"
MENU = ".st-key-menu"
"""The page menu app.py draws at the top of the sidebar."""


def wait_idle(page, content: str | None = None) -> None:
    """Wait for ``content`` (a selector the interaction should produce), then for the
    script run to finish."""
    if content is not None:
        page.locator(content).first.wait_for(state="visible")
    page.locator(IDLE).wait_for(state="attached")


def pick(page, label: str, option: str) -> None:
    """Open the selectbox labelled ``label`` and click ``option``."""
    box = page.get_by_test_id("stSelectbox").filter(
        has=page.get_by_test_id("stWidgetLabel").get_by_text(label, exact=True)).first
    box.click()
    box.locator("input").fill(option)  # filter the (virtualised) list down to the option
    page.get_by_role("option", name=option, exact=True).first.click()


# Everything on a page that does not fit, MEASURED in the browser (issue 28: "0…", "TsR…",
# a formula cut at "(TsRR_α = 1/(r_pr", a chart whose axis stops at 150 of 200). Returns one
# line per problem, in the words of what a user would see:
#  - cut: text that overflows its box (scrollWidth > clientWidth) where the box hides the rest
#    (an ellipsis, overflow hidden/clip, or a box that scrolls sideways: a row of chips or of
#    segmented buttons, a card's label or value, an input's value);
#  - outside: an element wider than the block that holds it, or past the page's edge;
#  - formula: a KaTeX formula wider than its paragraph;
#  - chart: a plotly chart wider than its block, a tick label plotly hid because it would
#    cross the figure's edge, or a title, axis title, legend entry or annotation outside it.
# Tables (st.dataframe) scroll by design and are checked apart (their columns reachable).
LAYOUT_PROBLEMS = r"""(rootSelector) => {
  const out = [];
  const root = document.querySelector(rootSelector);
  if (!root) return out;
  const text = el => (el.value || el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim().slice(0, 60);
  const where = el => el.closest('[data-testid]')?.dataset.testid || el.tagName;
  const hiddenBox = el => {  // visually hidden helpers (1-px boxes), KaTeX's MathML copy
    for (let a = el; a && a !== root; a = a.parentElement) {
      const r = a.getBoundingClientRect();
      if (r.width <= 1 || r.height <= 1) return true;
    }
    return false;
  };
  const skip = el => !!el.closest('[data-testid="stDataFrame"], .js-plotly-plot, .katex-display, .katex') || el.type === 'file';
  const page = (root.querySelector('[data-testid="stMainBlockContainer"]') || root).getBoundingClientRect();
  for (const el of root.querySelectorAll('*')) {
    if (!el.getClientRects().length || skip(el)) continue;
    const style = getComputedStyle(el);
    const hides = style.textOverflow === 'ellipsis' || el.tagName === 'INPUT'
      || ['hidden', 'auto', 'scroll', 'clip'].includes(style.overflowX);
    if (hides && el.scrollWidth > el.clientWidth + 1 && !hiddenBox(el))
      out.push(`cut (${where(el)}): "${text(el)}" needs ${el.scrollWidth} px, has ${el.clientWidth}`);
  }
  for (const box of root.querySelectorAll('[data-testid="stElementContainer"]')) {
    if (box.closest('[data-testid="stDataFrame"]')) continue;
    const b = box.getBoundingClientRect(), holder = box.parentElement.getBoundingClientRect();
    if (!b.width) continue;
    const left = Math.max(holder.left, page.left) - 1, right = Math.min(holder.right, page.right) + 1;
    if (b.left < left || b.right > right) {
      out.push(`outside (${box.firstElementChild?.dataset.testid}): "${text(box)}" spans ${b.left | 0}-${b.right | 0} in ${left | 0}-${right | 0}`);
      continue;
    }
    for (const inner of box.querySelectorAll('*')) {
      if (skip(inner) || hiddenBox(inner)) continue;
      const r = inner.getBoundingClientRect();
      if (r.width && r.height && (r.left < Math.max(b.left, page.left) - 1 || r.right > Math.min(b.right, page.right) + 1)) {
        out.push(`outside (${where(inner)}): "${text(inner)}" spans ${r.left | 0}-${r.right | 0} in ${b.left | 0}-${b.right | 0}`);
        break;
      }
    }
  }
  for (const formula of root.querySelectorAll('.katex-html')) {  // its lines (.base) in its box
    const box = (formula.closest('.katex-display') || formula).getBoundingClientRect();
    const holder = formula.closest('[data-testid="stElementContainer"]').getBoundingClientRect();
    const left = Math.max(box.left, holder.left) - 1, right = Math.min(box.right, holder.right) + 1;
    for (const line of formula.querySelectorAll(':scope > .base, :scope > .tag')) {
      const r = line.getBoundingClientRect();
      if (r.width && (r.left < left || r.right > right)) {
        const source = formula.closest('.katex')?.querySelector('annotation')?.textContent || '';
        out.push(`formula: "${source.replace(/\s+/g, ' ').slice(0, 60)}" spans ${r.left | 0}-${r.right | 0} in ${left + 1 | 0}-${right - 1 | 0}`);
        break;
      }
    }
  }
  for (const gd of root.querySelectorAll('.js-plotly-plot')) {
    const svg = gd.querySelector('svg.main-svg');
    if (!svg) continue;
    const s = svg.getBoundingClientRect();
    const holder = gd.closest('[data-testid="stElementContainer"]').parentElement.getBoundingClientRect();
    const name = (gd.querySelector('.gtitle')?.textContent || gd.closest('[class*="st-key-"]')?.className.match(/st-key-\S+/)?.[0] || 'a chart').slice(0, 50);
    if (s.left < holder.left - 1 || s.right > holder.right + 1)
      out.push(`chart "${name}": ${s.width | 0} px wide in a block of ${holder.width | 0}`);
    for (const t of gd.querySelectorAll('.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .gtitle, .legendtext, .annotation-text')) {
      const r = t.getBoundingClientRect();
      if (getComputedStyle(t).display === 'none')
        out.push(`chart "${name}": tick label "${t.textContent}" hidden (it would cross the edge)`);
      else if (r.width && (r.left < s.left - 1 || r.right > s.right + 1 || r.top < s.top - 2 || r.bottom > s.bottom + 2))
        out.push(`chart "${name}": "${t.textContent.slice(0, 50)}" runs off the chart`);
    }
  }
  return out;
}"""


def layout_problems(page) -> list[str]:
    """:data:`LAYOUT_PROBLEMS` of the main area and of the sidebar."""
    return [*page.evaluate(LAYOUT_PROBLEMS, '[data-testid="stMain"]'),
            *(f"sidebar: {p}" for p in page.evaluate(LAYOUT_PROBLEMS, '[data-testid="stSidebarContent"]'))]
