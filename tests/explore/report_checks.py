"""What the sweep report checks share (check_sweep_report.py, check_precision_report.py,
check_cores_report.py, check_cores_split.py): a quiet sweep into a database, its summary rows,
headless Chromium, and a report page loaded with a layout probe at a desktop and at a phone
width; a fresh database."""
import os
import re
import shutil
import sqlite3
import subprocess

from sweep_cli import fail


def sweep(vtasim, spec, db):
    """`vtasim sweep SPEC --db DB -j 2 --quiet`; its output, or a failure with both streams."""
    p = subprocess.run([vtasim, "sweep", spec, "--db", db, "-j", "2", "--quiet"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        fail("vtasim sweep %s: exit %d\n%s%s" % (spec, p.returncode, p.stdout, p.stderr))
    return p.stdout


def summary_rows(db):
    """A sweep database's summary rows (one per design point), in point order, as dicts."""
    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    return [dict(r) for r in con.execute("SELECT * FROM results WHERE row_kind = 'summary' "
                                         "ORDER BY point")]


def fresh_database(work, name):
    """WORK/NAME, with WORK made and a database of that name from an earlier run removed."""
    os.makedirs(work, exist_ok=True)
    db = os.path.join(work, name)
    if os.path.exists(db):
        os.remove(db)
    return db


def find_browser():
    """Debian's chromium, or None when it is not installed."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


# Injected into a copy of the page: what lies beyond the viewport's width outside a scrolling
# box, and which SVG texts leave their figure (a clipped title or label).
LAYOUT_PROBE = """<script>window.addEventListener('load',function(){
var vw=document.documentElement.clientWidth,off=[],clip=[];
document.querySelectorAll('body *').forEach(function(e){
 if(e.closest('svg')||e.closest('.scroll')&&!e.classList.contains('scroll'))return;
 var r=e.getBoundingClientRect();if(r.width&&r.right>vw+1)off.push(e.tagName+'#'+e.id);});
document.querySelectorAll('svg').forEach(function(s){var vb=s.viewBox.baseVal;
 s.querySelectorAll('g[id^=text_]').forEach(function(t){var b=t.getBBox();
  if(b.width&&(b.x<vb.x-1||b.y<vb.y-1||b.x+b.width>vb.x+vb.width+1||b.y+b.height>vb.y+vb.height+1))
   clip.push(s.id+':'+t.id);});});
if(document.documentElement.scrollWidth>vw+1)off.push('page '+document.documentElement.scrollWidth);
document.body.dataset.offscreen=off.join(' ');document.body.dataset.clipped=clip.join(' ');
document.body.dataset.probed='1';});</script>"""


def open_in_browser(browser, html_path, width):
    """Loads the page at `width` px; returns the body's data attributes and console lines."""
    p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000",
                        "--window-size=%d,900" % width, "--dump-dom",
                        "file://" + os.path.abspath(html_path)],
                       capture_output=True, text=True, timeout=180)
    body = re.search(r"<body[^>]*>", p.stdout)
    if body is None:
        fail("Chromium did not render %s: %s" % (html_path, p.stderr[-500:]))
    console = [l for l in p.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(0))), console


def check_page_layout(browser, page, out, ran=("loaded", "probed"), check=None):
    """Loads the report page `page` (its HTML) with LAYOUT_PROBE, written to
    OUT/layout_probe.html, at 1400 and 390 px: no console messages, the data attributes `ran`
    set by the page's scripts, `check(attrs, width)` when given, nothing clipped or
    off-screen."""
    probe = os.path.join(out, "layout_probe.html")
    with open(probe, "w") as f:  # the page's own scripts stay: they count what they draw
        f.write(page.replace("</head>", LAYOUT_PROBE + "</head>", 1))
    for width in (1400, 390):
        attrs, console = open_in_browser(browser, probe, width)
        if console:
            fail("console messages at %d px: %s" % (width, console[:3]))
        if any(attrs.get(name) != "1" for name in ran):
            fail("the page's scripts did not run at %d px (data-%s)"
                 % (width, ", data-".join(n for n in ran if attrs.get(n) != "1")))
        if check is not None:
            check(attrs, width)
        if attrs.get("offscreen") or attrs.get("clipped"):
            fail("at %d px: off-screen [%s], clipped texts [%s]"
                 % (width, attrs.get("offscreen"), attrs.get("clipped")))
