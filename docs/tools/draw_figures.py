#!/usr/bin/env python3
"""Draws the workbook's pictures into docs/figures/ as plain, hand-written SVG.

    python3 docs/tools/draw_figures.py          # (re)write every figure
    python3 docs/tools/draw_figures.py --check  # exit 1, naming them, if a committed figure differs

The figures:

  NN_name.svg                 per step: which lane, warp or thread holds which rows and columns
                              of X (and B), where A, B and X live, and what one block covers;
                              steps 20-25, whose ideas are choices at launch and instances,
                              instead: which layouts take 16-byte copies (20), where on the
                              batch axis the persistent kernel runs (21), why 16-byte copies by
                              rows need n % 4 == 0 (22), the launches counted on a device of
                              132 SMs (23), the n = 16 instances' buffer and registers (24),
                              and which warp of a 128-thread block copies each chunk of A (25)
  banks_06_07.svg             the shared-memory banks of a warp reading one column of A at row
                              strides 64, 65 and 63
  left_right_looking_4x4.svg  a worked 4 x 4 solve, left-looking against right-looking

Standard library only. Nothing here depends on the clock, the machine or a dict's order: the
same script writes the same bytes. The maps are drawn at n = 64 and k = 8 (step 19: k = 64; step 24: n = 16;
step 30: n = 11, k = 5; step 31: n = 42, k = 10).
"""
import math
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIGURES = ROOT / "docs" / "figures"
STEPS = ROOT / "steps"

# ---------------------------------------------------------------------------------------------
# Style: one set of fonts, sizes and colours for every figure.

WIDTH = 960
SANS = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, Consolas, monospace"
TITLE_SIZE = 19
TEXT_SIZE = 13
SMALL_SIZE = 11
HEAD_SIZE = 12

INK = "#1a1a1a"
MUTED = "#555555"
RULE = "#c8c8c8"
PANEL_BG = "#f7f7f7"
PANEL_EDGE = "#d4d4d4"
A_USED = "#a9a9a9"       # entries of A the solve reads (on or below the diagonal)
A_SPARE = "#e2e2e2"      # copied, but never read
A_EMPTY = "#ffffff"      # not copied / never written
EDGE = "#6e6e6e"
TILE_LINE = "#cfcfcf"
HILITE = "#ff7f00"       # what the warp or thread reads at the moment drawn
GOOD = "#2e8b57"
BAD = "#c0392b"
BUF = ["#c9d9ec", "#ecd9c6"]   # step 19's two buffers of A

# Owners (a warp, a thread, a block): Paul Tol's muted scheme, reordered so that neighbours differ.
OWNERS = ["#332288", "#ddcc77", "#117733", "#cc6677", "#88ccee", "#882255", "#44aa99", "#999933"]
# Text that sits on an owner colour: white on the dark ones.
OWNER_TEXT = ["#ffffff", INK, "#ffffff", INK, INK, "#ffffff", INK, INK]


def tint(colour, amount):
    """colour mixed with white: amount 0 keeps it, 1 is white."""
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    mix = [round(v + (255 - v) * amount) for v in (r, g, b)]
    return "#%02x%02x%02x" % tuple(mix)


def num(v):
    """A coordinate as short, deterministic text."""
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "", "-") else s


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def text_width(s, size, mono=False):
    """A generous estimate of a string's width in DejaVu Sans (wider than Arial or Helvetica)."""
    if mono:
        return len(s) * size * 0.61
    w = 0.0
    for ch in s:
        if ch in "il.,:;|!'[]()` ":
            w += 0.33
        elif ch in "mwMW":
            w += 0.9
        elif ch.isupper() or ch in "#%&@":
            w += 0.72
        else:
            w += 0.6
    return w * size


def markup_width(s, size):
    """Width of a string whose `backticked` parts are set in the monospace font."""
    parts = s.split("`")
    return sum(text_width(p, size, mono=(i % 2 == 1)) for i, p in enumerate(parts))


class Svg:
    def __init__(self, width, height):
        self.width, self.height, self.body = width, height, []
        self.title, self.desc = "", ""

    def add(self, s):
        self.body.append(s)

    def rect(self, x, y, w, h, fill="none", stroke=None, sw=1.0, dash=None, rx=None, opacity=None):
        a = f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" fill="{fill}"'
        if stroke:
            a += f' stroke="{stroke}" stroke-width="{num(sw)}"'
        if dash:
            a += f' stroke-dasharray="{dash}"'
        if rx:
            a += f' rx="{num(rx)}"'
        if opacity is not None:
            a += f' fill-opacity="{num(opacity)}"'
        self.add(a + "/>")

    def line(self, x1, y1, x2, y2, stroke=INK, sw=1.0, dash=None, arrow=False, opacity=None):
        a = (f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" stroke="{stroke}" '
             f'stroke-width="{num(sw)}"')
        if dash:
            a += f' stroke-dasharray="{dash}"'
        if opacity is not None:
            a += f' stroke-opacity="{num(opacity)}"'
        if arrow:
            a += ' marker-end="url(#arrow)"'
        self.add(a + "/>")

    def path(self, d, stroke=INK, sw=1.0, fill="none", arrow=False, dash=None):
        a = f'<path d="{d}" fill="{fill}" stroke="{stroke}" stroke-width="{num(sw)}"'
        if dash:
            a += f' stroke-dasharray="{dash}"'
        if arrow:
            a += ' marker-end="url(#arrow)"'
        self.add(a + "/>")

    def poly(self, points, fill, stroke=None, sw=1.0):
        pts = " ".join(f"{num(x)},{num(y)}" for x, y in points)
        a = f'<polygon points="{pts}" fill="{fill}"'
        if stroke:
            a += f' stroke="{stroke}" stroke-width="{num(sw)}" stroke-linejoin="round"'
        self.add(a + "/>")

    def text(self, x, y, s, size=TEXT_SIZE, anchor="start", fill=INK, weight=None, italic=False,
             rotate=None):
        """One line of text; `backticked` parts are set in the monospace font."""
        a = f'<text x="{num(x)}" y="{num(y)}" font-size="{num(size)}" fill="{fill}"'
        if anchor != "start":
            a += f' text-anchor="{anchor}"'
        if weight:
            a += f' font-weight="{weight}"'
        if italic:
            a += ' font-style="italic"'
        if rotate is not None:
            a += f' transform="rotate({num(rotate)} {num(x)} {num(y)})"'
        parts = s.split("`")
        inner = ""
        for i, p in enumerate(parts):
            if not p:
                continue
            if i % 2 == 1:
                inner += f'<tspan font-family="{MONO}">{esc(p)}</tspan>'
            else:
                inner += esc(p)
        self.add(a + ">" + inner + "</text>")

    def label(self, x, y, s, size=SMALL_SIZE, anchor="start", fill=INK):
        """Text on a white patch, for a callout that sits on a drawing."""
        w = markup_width(s, size)
        x0 = x - (w / 2 if anchor == "middle" else w if anchor == "end" else 0)
        self.rect(x0 - 2, y - size * 0.85, w + 4, size * 1.15, fill="#ffffff", opacity=0.88)
        self.text(x, y, s, size=size, anchor=anchor, fill=fill)

    def render(self):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                f'viewBox="0 0 {self.width} {self.height}">\n'
                f'<title>{esc(self.title.replace("`", ""))}</title>\n'
                f'<desc>{esc(self.desc.replace("`", ""))}</desc>\n'
                '<defs>\n'
                '<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
                f'orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="{INK}"/></marker>\n'
                '<pattern id="hatch" width="4" height="4" patternUnits="userSpaceOnUse" '
                'patternTransform="rotate(45)"><rect width="4" height="4" fill="#ffffff"/>'
                f'<line x1="0" y1="0" x2="0" y2="4" stroke="{EDGE}" stroke-width="1.4"/></pattern>\n'
                '</defs>\n'
                f'<rect x="0" y="0" width="{self.width}" height="{self.height}" fill="#ffffff"/>\n'
                f'<g font-family="{SANS}">\n')
        return head + "\n".join(self.body) + "\n</g>\n</svg>\n"


def frame(svg, title, caption):
    """Title line at the top, the one-line caption at the bottom."""
    svg.title, svg.desc = title, caption
    svg.text(24, 34, title, size=TITLE_SIZE, weight="bold")
    svg.line(24, svg.height - 40, svg.width - 24, svg.height - 40, stroke=RULE)
    svg.text(24, svg.height - 17, caption, size=TEXT_SIZE, italic=True, fill=MUTED)


def legend(svg, items, y, x0=24):
    """A row of swatches whose last line sits at height y; returns the y below it.

    items: (kind, colour, label) with kind "box", "hatch", "edge" (an outlined box), "dash"
    (a dashed outline) or "line".
    """
    widths = [16 + 6 + markup_width(label, TEXT_SIZE) + 20 for _, _, label in items]
    rows, x = 1, x0
    for w in widths:
        if x + w > svg.width - 24:
            rows, x = rows + 1, x0
        x += w
    y -= 22 * (rows - 1)
    x = x0
    for (kind, colour, label), w in zip(items, widths):
        if x + w > svg.width - 24:
            x, y = x0, y + 22
        if kind == "box":
            svg.rect(x, y - 11, 16, 14, fill=colour, stroke=EDGE, sw=0.6)
        elif kind == "hatch":
            svg.rect(x, y - 11, 16, 14, fill="url(#hatch)", stroke=EDGE, sw=0.6)
        elif kind == "edge":
            svg.rect(x + 1, y - 10, 14, 12, fill="none", stroke=colour, sw=2)
        elif kind == "dash":
            svg.rect(x, y - 11, 16, 14, fill="#ffffff", stroke=colour, sw=1, dash="3,2")
        elif kind == "line":
            svg.line(x, y - 4, x + 16, y - 4, stroke=colour, sw=2)
        svg.text(x + 22, y, label)
        x += w
    return y + 22


def panel(svg, x, y, w, h, heading):
    svg.rect(x, y, w, h, fill=PANEL_BG, stroke=PANEL_EDGE, rx=6)
    svg.text(x + 12, y + 20, heading, size=HEAD_SIZE, weight="bold", fill=MUTED)


# ---------------------------------------------------------------------------------------------
# Pieces of the per-step maps.

N = 64          # the matrix size every picture is drawn at
K = 8           # the columns of B and X drawn


def staircase(x, y, e, right_edge, rows=N):
    """Polygon of the cells (r, c) with c < right_edge(r), r < rows, left-aligned at x."""
    pts = [(x, y)]
    for r in range(rows):
        pts.append((x + right_edge(r) * e, y + r * e))
        pts.append((x + right_edge(r) * e, y + (r + 1) * e))
    pts.append((x, y + rows * e))
    return pts


def lower_edge(r):
    return r + 1


def chunk_edge(r):
    return 4 * (r // 4 + 1)


def tile_lines(svg, x, y, e, width_floats, rows=N, every=4, edge_of=None):
    """Thin lines every `every` floats and rows, inside a width_floats x rows box."""
    for c in range(every, width_floats, every):
        top = next((r for r in range(rows) if edge_of(r) > c), rows) if edge_of else 0
        svg.line(x + c * e, y + top * e, x + c * e, y + rows * e, stroke=TILE_LINE, sw=0.5)
    for r in range(every, rows, every):
        x2 = x + (edge_of(r) if edge_of else width_floats) * e
        svg.line(x, y + r * e, x2, y + r * e, stroke=TILE_LINE, sw=0.5)


def draw_global_a(svg, x, y, e, copy):
    """A of one matrix, row-major in global memory, shaded by what the block copies.

    copy: "all" (every element), "lower" (c <= r) or "chunks" (16-byte chunks not wholly above
    the diagonal).
    """
    svg.rect(x, y, N * e, N * e, fill=A_SPARE if copy == "all" else A_EMPTY)
    if copy == "chunks":
        svg.poly(staircase(x, y, e, chunk_edge), fill=A_SPARE)
    svg.poly(staircase(x, y, e, lower_edge), fill=A_USED)
    tile_lines(svg, x, y, e, N)
    if copy == "all":
        svg.rect(x, y, N * e, N * e, stroke=EDGE, sw=1)
    else:
        svg.rect(x, y, N * e, N * e, stroke=EDGE, sw=0.8, dash="3,2")
        svg.poly(staircase(x, y, e, chunk_edge if copy == "chunks" else lower_edge), fill="none", stroke=EDGE, sw=1)


def ticks_left(svg, x, y, e, values=(0, 32, 63), size=SMALL_SIZE):
    for v in values:
        svg.text(x - 4, y + (v + 0.5) * e + size * 0.35, str(v), size=size, anchor="end", fill=MUTED)


def ticks_top(svg, x, y, e, values=(0, 32, 63), size=SMALL_SIZE):
    for v in values:
        svg.text(x + (v + 0.5) * e, y - 4, str(v), size=size, anchor="middle", fill=MUTED)


def draw_shared_a(svg, x, y, e, stride, copy, used_mark=True):
    """sA with rows `stride` floats apart: the words past 64 in a row are padding (hatched).

    One float of padding is drawn two floats wide, so that it shows."""
    pad = max(stride - N, 2) * e if stride > N else 0
    if stride > N:
        svg.rect(x + N * e, y, pad, N * e, fill="url(#hatch)")
    svg.rect(x, y, N * e, N * e, fill=A_SPARE if copy == "all" else A_EMPTY)
    if copy == "chunks":
        svg.poly(staircase(x, y, e, chunk_edge), fill=A_SPARE)
    if used_mark:
        svg.poly(staircase(x, y, e, lower_edge), fill=A_USED)
    tile_lines(svg, x, y, e, N)
    if copy != "all":
        svg.rect(x, y, N * e, N * e, stroke=EDGE, sw=0.8, dash="3,2")
        svg.poly(staircase(x, y, e, chunk_edge if copy == "chunks" else lower_edge), fill="none",
                 stroke=EDGE, sw=1)
    else:
        svg.rect(x, y, N * e, N * e, stroke=EDGE, sw=1)
    if stride > N:
        svg.rect(x, y, N * e + pad, N * e, stroke=EDGE, sw=1)


def draw_columns(svg, x, y, e, col_w, cols, colour_of):
    """B or X of one matrix, 64 rows at the row scale e: one strip per drawn column.

    cols: the column indices drawn, None for an ellipsis gap. colour_of(r, c) gives each cell's
    fill; runs of one colour are merged.
    """
    cx = x
    for c in cols:
        if c is None:
            svg.text(cx + col_w / 2, y + N * e / 2 + 4, "…", size=TEXT_SIZE, anchor="middle", fill=MUTED)
            cx += col_w
            continue
        r0 = 0
        for r in range(1, N + 1):
            if r == N or colour_of(r, c) != colour_of(r0, c):
                svg.rect(cx, y + r0 * e, col_w, (r - r0) * e, fill=colour_of(r0, c))
                r0 = r
        svg.rect(cx, y, col_w, N * e, stroke="#ffffff", sw=0.8)
        svg.text(cx + col_w / 2, y - 4, str(c), size=SMALL_SIZE, anchor="middle", fill=MUTED)
        cx += col_w
    svg.rect(x, y, cx - x, N * e, stroke=EDGE, sw=1)
    return cx


def brace_right(svg, x, y0, y1, label, size=SMALL_SIZE):
    """A bracket to the right of rows y0..y1 with a rotated label."""
    svg.path(f"M{num(x)},{num(y0 + 1)} h4 V{num(y1 - 1)} h-4", stroke=MUTED, sw=1)
    svg.text(x + 9 + size * 0.35, (y0 + y1) / 2, label, size=size, anchor="middle", fill=MUTED, rotate=90)


def mini_matrix(svg, x, y, size, k_strip=True):
    """A small icon of one matrix: A's triangle and (k_strip) a strip for its B and X."""
    svg.rect(x, y, size, size, fill="#ffffff", stroke=EDGE, sw=0.8)
    svg.poly([(x, y), (x + size, y + size), (x, y + size)], fill=A_USED)
    if k_strip:
        svg.rect(x + size + 3, y, size * 0.35, size, fill="#ffffff", stroke=EDGE, sw=0.8)


# ---------------------------------------------------------------------------------------------
# The per-step maps. Common frame: three panels (global memory, shared memory, registers), a few
# lines of notes, the legend and the caption.

STEP_H = 640        # height of a per-step map (13 and 14 are taller)
P_TOP = 74
P_H = 384
P1 = (16, 336)      # x, width of the three panels
P2 = (360, 276)
P3 = (644, 300)
E = 2.5             # pixels per float (and per row) in the 64 x 64 drawings
MAT_Y = P_TOP + 64  # top of the drawn matrices
COL_W = 12          # one column of B / X
CALLOUT_X = 31      # where callouts start, in floats right of sA's left edge


def step_frame(svg, s, reg_heading="REGISTERS (one thread)"):
    frame(svg, s["title"], s["caption"])
    svg.text(24, 58, s["launch"])
    panel(svg, P1[0], P_TOP, P1[1], P_H, "GLOBAL MEMORY (one matrix)")
    panel(svg, P2[0], P_TOP, P2[1], P_H, "SHARED MEMORY (one block)")
    panel(svg, P3[0], P_TOP, P3[1], P_H, reg_heading)


def notes(svg, lines, y):
    for i, line in enumerate(lines):
        svg.text(24, y + i * 20, line)
    return y + len(lines) * 20


def global_panel(svg, s, colour_of, cols=tuple(range(K)), low_high=False, under=""):
    """A and B/X of one matrix in global memory."""
    ax = P1[0] + 34
    svg.text(ax, MAT_Y - 24, "A  64 × 64", weight="bold")
    ticks_left(svg, ax, MAT_Y, E)
    ticks_top(svg, ax, MAT_Y, E)
    draw_global_a(svg, ax, MAT_Y, E, s["copy"])
    bx = ax + N * E + 22
    svg.text(bx, MAT_Y - 24, "B → X  64 × k", weight="bold")
    end = draw_columns(svg, bx, MAT_Y, E, COL_W, cols, colour_of)
    if low_high:
        brace_right(svg, end + 3, MAT_Y, MAT_Y + 32 * E, "x_low")
        brace_right(svg, end + 3, MAT_Y + 32 * E, MAT_Y + 64 * E, "x_high")
    svg.text(bx, MAT_Y + N * E + 16, under, size=SMALL_SIZE, fill=MUTED)
    svg.text(ax, MAT_Y + N * E + 16, s["a_copy"], size=SMALL_SIZE, fill=MUTED)


def block_strip_one_per_matrix(svg, note):
    """What one block covers, steps 01-12: block b solves matrix b, all of its columns."""
    x0, y = P1[0] + 14, MAT_Y + N * E + 48
    svg.text(x0, y, "one block = one matrix, all k columns", weight="bold")
    for b in range(5):
        x = x0 + b * 58
        svg.rect(x - 4, y + 10, 52, 44, stroke=OWNERS[b], sw=1.6, rx=4)
        mini_matrix(svg, x + 2, y + 16, 26)
        svg.text(x + 22, y + 70, f"block {b}", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    svg.text(x0 + 5 * 58 + 2, y + 40, "…", fill=MUTED)
    svg.text(x0, y + 90, note, size=SMALL_SIZE, fill=MUTED)


def lane_grid(svg, x, y, cell, colours, labels, lanes=32, height=11):
    """Registers of a warp: one column per lane, one row per register."""
    for i, (name, colour) in enumerate(zip(labels, colours)):
        yy = y + i * (height + 4)
        svg.text(x - 6, yy + height - 1.5, name, size=SMALL_SIZE, anchor="end")
        svg.rect(x, yy, lanes * cell, height, fill=colour)
        for l in range(1, lanes):
            svg.line(x + l * cell, yy, x + l * cell, yy + height, stroke="#ffffff", sw=0.6)
        svg.rect(x, yy, lanes * cell, height, stroke=EDGE, sw=0.8)
    for l in (0, 8, 16, 24, 31):
        svg.text(x + (l + 0.5) * cell, y - 4, str(l), size=SMALL_SIZE, anchor="middle", fill=MUTED)


def butterfly(svg, x, y, cell, dy=14, lanes=32):
    """The warp's butterfly sum: lane i adds lane i ^ d for d = 16, 8, 4, 2, 1."""
    for lev, d in enumerate((16, 8, 4, 2, 1)):
        y0, y1 = y + lev * dy, y + (lev + 1) * dy
        for i in range(lanes):
            svg.line(x + (i + 0.5) * cell, y0, x + ((i ^ d) + 0.5) * cell, y1, stroke=MUTED, sw=0.45)
        svg.text(x - 6, y0 + dy * 0.5 + 4, f"^{d}", size=SMALL_SIZE, anchor="end", fill=MUTED)
    for lev in range(6):
        for i in range(lanes):
            svg.rect(x + (i + 0.5) * cell - 1, y + lev * dy - 1, 2, 2, fill=INK)
    return y + 5 * dy


def fan_out(svg, x, y, cell, src, h, lanes=32):
    """One lane's value broadcast to every lane (a shuffle)."""
    sx = x + (src + 0.5) * cell
    for i in range(lanes):
        svg.line(sx, y, x + (i + 0.5) * cell, y + h, stroke=HILITE, sw=0.8)
    for i in range(lanes):
        svg.rect(x + (i + 0.5) * cell - 1, y + h - 1, 2, 2, fill=INK)
    svg.rect(sx - 3, y - 3, 6, 6, fill=HILITE, stroke=INK, sw=0.6)
    return y + h


def bank_bar(svg, x, y, hits, cell=7, message=None):
    """The 32 banks and how many of a warp's 32 words one load puts in each."""
    worst = 1 if message else max(hits)
    svg.text(x, y, "banks 0-31: one load of the warp", size=SMALL_SIZE, weight="bold")
    y += 8
    for b in range(32):
        fill = "#ffffff" if hits[b] == 0 else (BAD if worst > 1 else GOOD)
        svg.rect(x + b * cell, y, cell, 12, fill=fill, stroke=TILE_LINE, sw=0.6)
    svg.rect(x, y, 32 * cell, 12, stroke=EDGE, sw=0.8)
    if worst > 1:
        b = hits.index(worst)
        svg.text(x + 32 * cell / 2, y + 24, f"{worst} words in bank {b}: {worst} passes", size=SMALL_SIZE,
                 anchor="middle", fill=BAD, weight="bold")
    else:
        svg.text(x + 32 * cell / 2, y + 24, message or "one word per bank: 1 pass", size=SMALL_SIZE,
                 anchor="middle", fill=GOOD, weight="bold")


def sa_caption(svg, sx, lines):
    y = MAT_Y + N * E + 16
    for i, line in enumerate(lines):
        svg.text(sx, y + i * 15, line, size=SMALL_SIZE, fill=MUTED)
    return y + len(lines) * 15


def shared_notes(svg, lines):
    for i, line in enumerate(lines):
        svg.text(P2[0] + 14, P_TOP + P_H - 14 - (len(lines) - 1 - i) * 16, line, size=SMALL_SIZE, fill=MUTED)


def callout(svg, sx, y, x_from, lines):
    """A leader from a highlighted spot of sA to a two-line label right of it."""
    svg.line(x_from, y, sx + CALLOUT_X * E - 3, y, stroke=HILITE, sw=1)
    for i, line in enumerate(lines):
        svg.label(sx + CALLOUT_X * E, y + 4 + i * 14, line)


# --- steps 01-07: a warp per column --------------------------------------------------------------

def warp_colour(low_high):
    def colour(r, c):
        return tint(OWNERS[c], 0.55) if (low_high and r >= 32) else OWNERS[c]
    return colour


def draw_warp_step(s):
    svg = Svg(WIDTH, STEP_H)
    step_frame(svg, s, "REGISTERS (one lane)")
    in_regs = s["family"] != "01"
    global_panel(svg, s, warp_colour(in_regs), low_high=in_regs, under="warp w = column w")
    block_strip_one_per_matrix(svg, "block (32, k): k warps, one per column")

    # shared memory: sA (and step 01's sXt), with what one row or step reads
    sx = P2[0] + 34
    stride = s["stride"]
    svg.text(sx, MAT_Y - 24, f"sA  64 × {stride} floats", weight="bold")
    ticks_left(svg, sx, MAT_Y, E)
    ticks_top(svg, sx, MAT_Y, E, values=(0, 32, 63) if stride == N else (0, 32, 64))
    draw_shared_a(svg, sx, MAT_Y, E, stride, "all")
    y = sa_caption(svg, sx, [f"row r at `sA[{stride}·r]`: {N * stride * 4:,} B"])
    if s["read"] == "row":
        r = 40
        svg.rect(sx, MAT_Y + r * E - 0.5, r * E, E + 1, fill=HILITE, stroke=HILITE, sw=1)
        svg.line(sx + 20 * E, MAT_Y + r * E - 1, sx + 20 * E, MAT_Y + 22 * E, stroke=HILITE, sw=1)
        svg.label(sx + 4, MAT_Y + 21 * E, "row 40: lane j reads [40][j], [40][32+j]")
    else:
        j = 5
        svg.rect(sx + j * E - 0.5, MAT_Y + (j + 1) * E, E + 1, (N - j - 1) * E, fill=HILITE, stroke=HILITE, sw=1)
        callout(svg, sx, MAT_Y + 16 * E, sx + (j + 1) * E + 1, ["column 5: lane i", "reads rows i, 32+i"])
    if s["read"] == "row":
        hits = [0] * 32
        for j in range(32):
            hits[(40 * stride + j) % 32] += 1
    else:
        hits = [0] * 32
        for i in range(32):
            hits[(i * stride + 5) % 32] += 1
    if s["family"] != "01":
        bank_bar(svg, sx, y + 26, hits)
    if s["family"] == "01":
        ty = y + 24
        svg.text(sx, ty - 8, "sXt  k × 64 (X transposed)", weight="bold")
        for c in range(K):
            svg.rect(sx, ty + c * 6, N * E, 6, fill=OWNERS[c])
        svg.rect(sx, ty, N * E, K * 6, stroke=EDGE, sw=1)
        svg.rect(sx - 1, ty + 3 * 6 - 1, 40 * E + 2, 8, stroke=HILITE, sw=2)
        svg.text(sx, ty + K * 6 + 15, "column w at `sXt[64·w]`: B in, X out", size=SMALL_SIZE, fill=MUTED)
    shared_notes(svg, s["shared_notes"])

    # registers of one lane, and how a row's value moves between the lanes
    x0 = P3[0] + 14
    gx = P3[0] + 62
    cell = 7
    w = 3
    y = MAT_Y - 24
    if in_regs:
        svg.text(x0, y, "lane i of warp w (w = 3 drawn)", weight="bold")
        lane_grid(svg, gx, y + 26, cell, [OWNERS[w], tint(OWNERS[w], 0.55)], ["x_low", "x_high"])
        svg.text(x0, y + 74, "`x_low`  = X row i of column w", size=SMALL_SIZE)
        svg.text(x0, y + 89, "`x_high` = X row 32 + i", size=SMALL_SIZE)
    else:
        svg.text(x0, y, "lane j of warp w (w = 3 drawn)", weight="bold")
        lane_grid(svg, gx, y + 26, cell, [tint(OWNERS[w], 0.55)], ["sum"])
        svg.text(x0, y + 59, "`sum = a[r][j]·x[j] + a[r][32+j]·x[32+j]`", size=SMALL_SIZE)
        svg.text(x0, y + 74, "no row of X stays in a register", size=SMALL_SIZE)
    y += 122
    if s["read"] == "row":
        svg.text(x0, y, "row r: Σ over the 32 lanes", weight="bold")
        end = butterfly(svg, gx, y + 14, cell)
        if s["family"] == "01":
            svg.text(x0, end + 22, "lane 0: `sXt[w][r] = (b_r - sum) / a_rr`", size=SMALL_SIZE)
        else:
            svg.text(x0, end + 22, "lane r mod 32 updates its x_low or x_high", size=SMALL_SIZE)
        if s["name"] in ("04_fmaf_reciprocal", "05_const_correctness"):
            svg.text(x0, end + 38, "chain per row: 5 shuffle + add levels,", size=SMALL_SIZE, fill=MUTED)
            svg.text(x0, end + 54, "then one fmaf (1/a_rr off the chain)", size=SMALL_SIZE, fill=MUTED)
        else:
            svg.text(x0, end + 38, "chain per row: 5 shuffle + add levels, then ÷", size=SMALL_SIZE, fill=MUTED)
    else:
        svg.text(x0, y, "step j: x_j to every lane", weight="bold")
        end = fan_out(svg, gx, y + 16, cell, 5, 54)
        svg.text(gx + 5.5 * cell + 9, y + 14, "lane j mod 32 (j = 5)", size=SMALL_SIZE)
        svg.text(x0, end + 22, "owner scales by 1/a_jj, `__shfl_sync(x, j)`,", size=SMALL_SIZE)
        svg.text(x0, end + 38, "then each lane: `fmaf` on x_low and x_high", size=SMALL_SIZE)
        svg.text(x0, end + 54, "chain per row: scale (FMUL) + 1 shuffle + 1 fmaf", size=SMALL_SIZE, fill=MUTED)

    notes(svg, s["notes"], P_TOP + P_H + 26)
    items = [("box", OWNERS[0], "warp 0"), ("box", OWNERS[1], "warp 1"), ("box", OWNERS[2], "… one per warp")]
    if in_regs:
        items.append(("box", tint(OWNERS[0], 0.55), "x_high rows"))
    items += [("box", A_USED, "A, read"), ("box", A_SPARE, "A, copied, not used by the solve"), ("box", HILITE, "read now")]
    if stride > N:
        items.append(("hatch", None, "padding"))
    legend(svg, items, STEP_H - 62)
    return svg


# --- steps 08-15: a thread per column ------------------------------------------------------------

def thread_colour(r, c):
    return OWNERS[c % 8] if c < K else A_EMPTY


def inside_thread(svg, x0, gx, y, cell, panel_read):
    """One thread's 64 registers and what a step (or a panel) of the solve does to them."""
    svg.text(x0, y, "inside thread 3: no other thread", weight="bold")
    yy = y + 14
    svg.rect(gx, yy, N * cell, 10, fill=OWNERS[3], stroke=EDGE, sw=0.6)
    j = 8
    width = 4 if panel_read else 1
    svg.rect(gx + j * cell - 1, yy - 2, width * cell + 2, 14, stroke=HILITE, sw=2)
    src = gx + (j + width / 2) * cell
    for i in (16, 26, 36, 46, 56, 63):
        svg.path(f"M{num(src)},{num(yy + 12)} Q{num((src + gx + (i + 0.5) * cell) / 2)},{num(yy + 44)} "
                 f"{num(gx + (i + 0.5) * cell)},{num(yy + 12)}", stroke=HILITE, sw=0.9)
    svg.text(gx + (j + width / 2) * cell, yy + 26, "j0" if panel_read else "j", size=SMALL_SIZE,
             anchor="middle", fill=HILITE)
    yy += 58
    if panel_read:
        svg.text(x0, yy, "panel j0..j0+3 solved in turn, then each", size=SMALL_SIZE)
        svg.text(x0, yy + 15, "row i below: one 16-byte load, 4 `fmaf`", size=SMALL_SIZE)
    else:
        svg.text(x0, yy, "step j: `x[j] *= 1/a_jj`, then", size=SMALL_SIZE)
        svg.text(x0, yy + 15, "`x[i] = fmaf(-a_ij, x[j], x[i])`, all i > j", size=SMALL_SIZE)
    svg.text(x0, yy + 31, "no shuffle, no reduction", size=SMALL_SIZE, fill=MUTED)


def thread_strips(svg, gx, y, cell, threads, colour_of, label_of):
    """Threads as rows of 64 registers x[0..63]; returns the y below them."""
    for r in (0, 32, 63):
        svg.text(gx + (r + 0.5) * cell, y - 4, f"x[{r}]", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    for i, c in enumerate(threads):
        yy = y + i * 13
        if c is None:
            svg.text(gx + N * cell / 2, yy + 9, "…", size=SMALL_SIZE, anchor="middle", fill=MUTED)
            continue
        svg.text(gx - 6, yy + 9, label_of(c), size=SMALL_SIZE, anchor="end")
        svg.rect(gx, yy, N * cell, 10, fill=colour_of(c), stroke=EDGE, sw=0.6)
    return y + len(threads) * 13


def draw_thread_step(s):
    svg = Svg(WIDTH, STEP_H)
    step_frame(svg, s)
    global_panel(svg, s, thread_colour, under="thread c = column c")
    block_strip_one_per_matrix(svg, s.get("block", "block: 1, 2 or 4 warps (k ≤ 128), thread c = column c"))

    sx = P2[0] + 34
    stride = s["stride"]
    ticks_left(svg, sx, MAT_Y, E)
    svg.text(sx, MAT_Y - 24, f"sA  64 × {stride} floats", weight="bold")
    ticks_top(svg, sx, MAT_Y, E, values=(0, 32, 63) if stride == N else (0, 32, 64))
    draw_shared_a(svg, sx, MAT_Y, E, stride, s["copy"])
    y = sa_caption(svg, sx, [f"row r at `sA[{stride}·r]`: {N * stride * 4:,} B"])
    i = 40
    start = i * stride
    if s["read"] == "broadcast":
        hits = [0] * 32
        hits[(start + 8) % 32] = 1
        # The source reads one word; the compiler merges four into one 16-byte load (2 passes)
        # wherever they are aligned: 511 of step 08's 577 loads (docs/evidence/08_thread_per_column.md).
        bank_bar(svg, sx, y + 26, hits, message="one word for all (as written): broadcast")
    else:
        hits = [0] * 32
        for q in range(4):
            hits[(start + 8 + q) % 32] = 1
        # Measured: a 16-byte broadcast costs 2 wavefronts (the microbenchmark's 0.50 per cycle,
        # Nsight's 2 per LDS.128 at the PR's shape).
        bank_bar(svg, sx, y + 26, hits, message="16 bytes for all: broadcast, 2 passes")
    if s["read"] == "broadcast":
        j = 8
        svg.rect(sx + j * E - 1, MAT_Y + i * E - 1, E + 2, E + 2, fill=HILITE, stroke=HILITE, sw=1)
        callout(svg, sx, MAT_Y + (i + 0.5) * E, sx + (j + 1) * E + 2, ["a_ij: all threads", "read one word"])
    else:
        j0 = 8
        svg.rect(sx + j0 * E, MAT_Y + j0 * E, 4 * E, 4 * E, stroke=HILITE, sw=1.4)
        svg.rect(sx + j0 * E, MAT_Y + i * E - 0.5, 4 * E, E + 1, fill=HILITE, stroke=HILITE, sw=1)
        callout(svg, sx, MAT_Y + (i + 0.5) * E, sx + (j0 + 4) * E + 1, ["row i, j0..j0+3:", "one 16-byte load"])
    shared_notes(svg, s["shared_notes"])

    x0 = P3[0] + 14
    gx = P3[0] + 58
    cell = 3.5
    y = MAT_Y - 24
    svg.text(x0, y, "thread c holds column c", weight="bold")
    end = thread_strips(svg, gx, y + 26, cell, list(range(K)) + [K],
                        lambda c: OWNERS[c] if c < K else A_EMPTY,
                        lambda c: f"c = {c}" if c < K else "8-31")
    # The machine code of steps 08-10 exits the threads past k before the solve (an EXIT before
    # the first FFMA in the committed sm_90 listing); from step 11 on the inline PTX keeps them in
    # it, on zeros (docs/11_panel_loads.md).
    idle = "exit before the solve" if s["name"][:2] in ("08", "09", "10") else "hold zeros"
    svg.text(x0, end + 14, f"threads c ≥ k (here 8-31) {idle}", size=SMALL_SIZE, fill=MUTED)
    inside_thread(svg, x0, gx, end + 46, cell, s["read"] != "broadcast")

    notes(svg, s["notes"], P_TOP + P_H + 26)
    items = [("box", OWNERS[0], "thread 0"), ("box", OWNERS[1], "thread 1"),
             ("box", OWNERS[2], "… one per thread"), ("box", A_USED, "A, read")]
    if s["copy"] == "all":
        items.append(("box", A_SPARE, "A, copied, not used by the solve"))
    else:
        if s["copy"] == "chunks":
            items.append(("box", A_SPARE, "copied, unread"))
        items.append(("dash", EDGE, "not copied"))
    items.append(("box", HILITE, "read now"))
    if stride > N:
        items.append(("hatch", None, "padding"))
    legend(svg, items, STEP_H - 62)
    return svg


# --- steps 16-18: T threads per column -------------------------------------------------------------

T13 = 8


def draw_step13(s):
    h = STEP_H + 20
    svg = Svg(WIDTH, h)
    step_frame(svg, s)
    global_panel(svg, s, lambda r, c: OWNERS[r % T13], under="t = row mod 8")

    # what one block covers: a column group of one matrix
    x0, y = P1[0] + 14, MAT_Y + N * E + 48
    svg.text(x0, y, "one block = 8 columns of one matrix", weight="bold")
    for b in range(2):
        x = x0 + b * 150
        mini_matrix(svg, x + 2, y + 16, 30, k_strip=False)
        for g in range(3):
            gx = x + 38 + g * 26
            svg.rect(gx, y + 16, 18, 30, fill=A_SPARE, stroke=EDGE, sw=1.2)
            svg.text(gx + 9, y + 60, f"{b},{g}", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    svg.text(x0 + 300, y + 36, "…", fill=MUTED)
    svg.text(x0, y + 78, "grid (matrices, ⌈k/8⌉); drawn for k = 24:", size=SMALL_SIZE, fill=MUTED)
    svg.text(x0, y + 93, "each block copies its matrix's A itself", size=SMALL_SIZE, fill=MUTED)

    sx = P2[0] + 34
    stride = s["stride"]
    svg.text(sx, MAT_Y - 24, f"sA  64 × {stride} floats", weight="bold")
    ticks_left(svg, sx, MAT_Y, E)
    ticks_top(svg, sx, MAT_Y, E, values=(0, 32, 64) if stride > N else (0, 32, 63))
    draw_shared_a(svg, sx, MAT_Y, E, stride, "chunks")
    j0, s0 = 8, 16
    svg.rect(sx + j0 * E, MAT_Y + j0 * E, 4 * E, 4 * E, stroke=HILITE, sw=1.4)
    for t in range(T13):
        svg.rect(sx + j0 * E, MAT_Y + (s0 + t) * E + 0.3, 4 * E, E - 0.6, fill=OWNERS[t])
    svg.rect(sx + j0 * E - 1, MAT_Y + s0 * E - 1, 4 * E + 2, T13 * E + 2, stroke=HILITE, sw=1.4)
    # The callout's three short lines stay in the upper triangle, clear of the copied chunks, the
    # matrix's right edge and the padding.
    ly, lx = MAT_Y + (s0 + 4) * E, sx + 33 * E
    svg.line(sx + (j0 + 4) * E + 2, ly, lx - 3, ly, stroke=HILITE, sw=1)
    for i, line in enumerate(["rows 16-23:", "8 threads,", "a row each"]):
        svg.label(lx, ly - 10 + i * 14, line)
    y = sa_caption(svg, sx, [f"row r at `sA[{stride}·r]`: {4 * N * stride:,} B", "T = 1: a warp reads one row"])
    # where the 8 threads' 16-byte reads of rows 16..23, columns 8..11 land: which four-bank groups
    y += 18
    svg.text(sx, y, "banks 0-31: a 16-byte read, 8 lanes", size=SMALL_SIZE, weight="bold")
    y += 8
    chunks_per_row = stride // 4
    groups = [(chunks_per_row * (s0 + t) + j0 // 4) % 8 for t in range(T13)]
    for g in range(8):
        owners = [t for t in range(T13) if groups[t] == g]
        fill = OWNERS[owners[0]] if owners else "#ffffff"
        svg.rect(sx + g * 28, y, 28, 12, fill=fill, stroke="#ffffff", sw=1)
        if len(owners) > 1:
            svg.text(sx + g * 28 + 14, y + 10, f"×{len(owners)}", size=SMALL_SIZE - 1, anchor="middle",
                     fill=OWNER_TEXT[owners[0]])
    svg.rect(sx, y, 8 * 28, 12, stroke=EDGE, sw=0.8)
    passes = max(groups.count(g) for g in set(groups))
    if passes == 1:
        # No conflict among these 8 lanes; the warp's 32 lanes take 4 wavefronts a load (Nsight).
        svg.text(sx + 112, y + 24, "8 rows, 8 groups: no conflict", size=SMALL_SIZE, anchor="middle", fill=GOOD,
                 weight="bold")
        svg.text(sx + 112, y + 38, "a warp's load: 4 passes", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    else:
        svg.text(sx + 112, y + 24, f"8 rows, 1 group: {passes} passes", size=SMALL_SIZE, anchor="middle",
                 fill=BAD, weight="bold")
        svg.text(sx + 112, y + 38, f"a warp's load: {4 * passes} passes", size=SMALL_SIZE, anchor="middle",
                 fill=MUTED)
    shared_notes(svg, s["shared_notes"])

    # registers: the 8 threads of one column
    x0 = P3[0] + 14
    gx = P3[0] + 58
    cw = 22
    y = MAT_Y - 24
    svg.text(x0, y, "column 0's threads t = 0..7", weight="bold")
    svg.text(gx - 6, y + 22, "x[q]", size=SMALL_SIZE, anchor="end", fill=MUTED)
    for q in range(8):
        svg.text(gx + (q + 0.5) * cw, y + 22, str(q), size=SMALL_SIZE, anchor="middle", fill=MUTED)
    for t in range(T13):
        yy = y + 28 + t * 15
        svg.text(gx - 6, yy + 11, f"t = {t}", size=SMALL_SIZE, anchor="end")
        for q in range(8):
            svg.rect(gx + q * cw, yy, cw, 13, fill=OWNERS[t], stroke="#ffffff", sw=0.8)
            svg.text(gx + (q + 0.5) * cw, yy + 10.5, str(t + T13 * q), size=SMALL_SIZE - 1, anchor="middle",
                     fill=OWNER_TEXT[t])
    yy = y + 28 + T13 * 15 + 16
    svg.text(x0, yy, "cells show rows: `x[q]` of thread t = row t + 8q", size=SMALL_SIZE, fill=MUTED)
    svg.text(x0, yy + 26, "panel j0, in all 8 threads:", weight="bold")
    svg.text(x0, yy + 43, "`v[0..3]` ← rows j0..j0+3 by `__shfl_sync`,", size=SMALL_SIZE)
    svg.text(x0, yy + 58, "solve the 4×4 block; owners keep the result;", size=SMALL_SIZE)
    svg.text(x0, yy + 73, "own rows below: 16-byte load, 4 `fmaf`", size=SMALL_SIZE)
    # T variants as a strip of one column's first 16 rows
    vy = yy + 98
    svg.text(x0, vy, "rows 0-15 of a column, by T", size=SMALL_SIZE, weight="bold")
    for i, (t_, label) in enumerate(((8, "T = 8: 8 columns/block"), (2, "T = 2: 32 or 64 columns"),
                                     (1, "T = 1: 64 or 128 columns"))):
        yy2 = vy + 8 + i * 15
        for r in range(16):
            svg.rect(gx + r * 6, yy2, 6, 11, fill=OWNERS[r % t_], stroke="#ffffff", sw=0.5)
        svg.text(x0 + 30, yy2 + 9.5, f"T={t_}", size=SMALL_SIZE, anchor="end")
        svg.text(gx + 16 * 6 + 8, yy2 + 9.5, label.split(": ")[1], size=SMALL_SIZE, fill=MUTED)

    notes(svg, s["notes"], P_TOP + P_H + 26)
    items = [("box", OWNERS[0], "t = 0"), ("box", OWNERS[1], "t = 1"), ("box", OWNERS[2], "… one per t"),
             ("box", A_USED, "A, read"), ("box", A_SPARE, "copied, unread"), ("dash", EDGE, "not copied"),
             ("edge", HILITE, "read now")]
    if stride > N:
        items.append(("hatch", None, "padding"))
    legend(svg, items, h - 62)
    return svg


# --- step 19: persistent blocks ------------------------------------------------------------------

G14 = 4   # resident blocks drawn


def draw_step14(s):
    h = 760
    svg = Svg(WIDTH, h)
    step_frame(svg, s)
    cols = list(range(6)) + [None, 63]
    global_panel(svg, s, lambda r, c: OWNERS[c % 8], cols=cols, under="thread c = column c")

    x0, y = P1[0] + 14, MAT_Y + N * E + 48
    svg.text(x0, y, f"one block walks m, m+G, m+2G (G = {G14})", weight="bold")
    for m in range(12):
        x = x0 + m * 25
        g = m % G14
        svg.rect(x, y + 12, 21, 21, fill="#ffffff", stroke=OWNERS[g], sw=2)
        svg.poly([(x + 2, y + 14), (x + 19, y + 31), (x + 2, y + 31)], fill=A_USED)
        svg.text(x + 10.5, y + 47, str(m), size=SMALL_SIZE, anchor="middle", fill=MUTED)
    svg.text(x0, y + 64, "matrix m, framed in its block's colour:", size=SMALL_SIZE, fill=MUTED)
    svg.text(x0, y + 79, "block g solves g, g+4, g+8 (grid = G blocks,", size=SMALL_SIZE, fill=MUTED)
    svg.text(x0, y + 94, "as many as the GPU holds at once)", size=SMALL_SIZE, fill=MUTED)

    # shared memory: two buffers of A, rows 68 floats apart, and one of B
    e2 = 1.7
    sx = P2[0] + 16
    svg.text(sx, MAT_Y - 24, "sA  2 buffers, 64 × 68 floats", weight="bold")
    for b in range(2):
        bx = sx + b * (68 * e2 + 6)
        svg.text(bx, MAT_Y - 6, f"buffer {b}", size=SMALL_SIZE, fill=MUTED)
        draw_shared_a(svg, bx, MAT_Y, e2, 68, "chunks", used_mark=False)
        svg.poly(staircase(bx, MAT_Y, e2, lower_edge), fill=BUF[b])
    yb = MAT_Y + N * e2 + 34
    svg.text(sx, yb - 8, "sB  64 × k floats, flat like B", weight="bold")
    sbw = 2 * 68 * e2 + 6
    cw = sbw / N
    for c in range(N):
        svg.rect(sx + c * cw, yb, cw, 64, fill=tint(OWNERS[c % 8], 0.3))
    svg.rect(sx, yb, sbw, 64, stroke=EDGE, sw=1)
    svg.text(sx, yb + 80, "next matrix's B; thread c takes column c", size=SMALL_SIZE, fill=MUTED)
    svg.text(sx, yb + 95, "room for 64 × columns floats: 16 KB or 32 KB", size=SMALL_SIZE, fill=MUTED)
    shared_notes(svg, s["shared_notes"])

    x0 = P3[0] + 14
    gx = P3[0] + 58
    cell = 3.5
    y = MAT_Y - 24
    svg.text(x0, y, "thread c holds column c (T = 1)", weight="bold")
    end = thread_strips(svg, gx, y + 26, cell, list(range(6)) + [None, 63], lambda c: OWNERS[c % 8],
                        lambda c: f"c = {c}")
    svg.text(x0, end + 14, "64 or 128 threads: one per column", size=SMALL_SIZE, fill=MUTED)
    inside_thread(svg, x0, gx, end + 46, cell, True)

    # one block over time
    ty = P_TOP + P_H + 30
    svg.text(24, ty, "one block over time: the next matrix's copies are in flight while this one is solved",
             weight="bold")
    lane_y = (ty + 16, ty + 44)
    svg.text(128, lane_y[0] + 14, "cp.async", size=SMALL_SIZE, anchor="end")
    svg.text(128, lane_y[1] + 14, "threads", size=SMALL_SIZE, anchor="end")
    x = 136.0
    svg.rect(x, lane_y[0], 140, 20, fill=BUF[0], stroke=EDGE, sw=0.8)
    svg.text(x + 70, lane_y[0] + 14, "A(m)→buf 0, B(m)→sB", size=SMALL_SIZE, anchor="middle")
    svg.text(x + 70, lane_y[1] + 14, "wait", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    x += 142
    for it, (mm, buf) in enumerate((("m", 0), ("m+G", 1), ("m+2G", 0))):
        svg.rect(x, lane_y[1], 44, 20, fill="#ffffff", stroke=EDGE, sw=0.8)
        svg.text(x + 22, lane_y[1] + 14, "x ← sB", size=SMALL_SIZE, anchor="middle")
        x += 46
        nxt = ("m+G", "m+2G", "m+3G")[it]
        svg.rect(x, lane_y[0], 132, 20, fill=BUF[1 - buf], stroke=EDGE, sw=0.8)
        svg.text(x + 66, lane_y[0] + 14, f"A({nxt})→buf {1 - buf}, B→sB", size=SMALL_SIZE, anchor="middle")
        svg.rect(x, lane_y[1], 160, 20, fill=BUF[buf], stroke=EDGE, sw=0.8)
        svg.text(x + 80, lane_y[1] + 14, f"solve {mm} · buf {buf}", size=SMALL_SIZE, anchor="middle")
        x += 162
    svg.text(x + 4, lane_y[1] + 14, "…", fill=MUTED)
    svg.line(136, lane_y[1] + 30, x + 20, lane_y[1] + 30, stroke=MUTED, sw=1, arrow=True)
    svg.text(x + 20, lane_y[1] + 44, "time", size=SMALL_SIZE, anchor="end", fill=MUTED)

    notes(svg, s["notes"], lane_y[1] + 70)
    items = [("box", OWNERS[0], "thread 0"), ("box", OWNERS[1], "thread 1"),
             ("box", OWNERS[2], "… one per thread (or block)"), ("box", BUF[0], "buffer 0"),
             ("box", BUF[1], "buffer 1"), ("box", A_USED, "A, read"), ("box", A_SPARE, "copied, unread"),
             ("hatch", None, "padding"), ("edge", HILITE, "read now")]
    legend(svg, items, h - 62)
    return svg


# --- steps 20-22: which copy of A, and where the persistent kernel runs ---------------------------

def float_cells(svg, x, y, cell, first, last, fill_of, h=14):
    """Floats first..last-1 of a buffer as cells in a row, with a tall tick at every 16-byte boundary
    (a float index that is a multiple of 4)."""
    f0 = first
    for f in range(first + 1, last + 1):
        if f == last or fill_of(f) != fill_of(f0):
            svg.rect(x + (f0 - first) * cell, y, (f - f0) * cell, h, fill=fill_of(f0))
            f0 = f
    for f in range(first + 1, last):
        if f % 4 == 0:
            svg.line(x + (f - first) * cell, y - 4, x + (f - first) * cell, y + h + 4, stroke=INK, sw=1.1)
        elif cell >= 6:
            svg.line(x + (f - first) * cell, y, x + (f - first) * cell, y + h, stroke="#ffffff", sw=0.6)
    svg.rect(x, y, (last - first) * cell, h, stroke=EDGE, sw=0.8)


def copies(svg, x, y, cell, spans, colour, h=14):
    """Outlines of copies: (first float, floats) each, as one cp.async covers them."""
    for f, width in spans:
        svg.rect(x + f * cell + 1, y + 1, width * cell - 2, h - 2, stroke=colour, sw=1.8)


STEP20_LAYOUTS = [  # (the layout, where its matrices 0-3 start, in floats from a 16-byte boundary)
    ("n = 64, contiguous: A's matrices 4,096 floats apart", [0, 4096, 8192, 12288]),
    ("n = 64, one float after each matrix (4,097 apart)", [0, 4097, 8194, 12291]),
    ("n = 63, contiguous: 3,969 floats apart", [0, 3969, 7938, 11907]),
    ("n = 64, a view one float past a boundary", [1, 4097, 8193, 12289]),
    ("n = 10, k = 3, contiguous: B's matrices 30 apart", [0, 30, 60, 90]),
]


def draw_step20(s):
    h = 664
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    svg.text(24, 58, "`wide_copies_fit`: are A, B and X, and all six batch strides, multiples of 16 bytes (4 floats)?")
    top, ph = 74, 250
    panel(svg, 16, top, 928, ph, "LAYOUTS: WHERE MATRICES 0-3 START, AGAINST 16-BYTE BOUNDARIES (the tall ticks)")
    cell, wx, ww = 6, 372, 106
    for m in range(4):
        svg.text(wx + m * ww + 36, top + 44, f"matrix {m}", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    svg.text(812, top + 44, "copies", size=SMALL_SIZE, fill=MUTED)
    for i, (what, starts) in enumerate(STEP20_LAYOUTS):
        y = top + 64 + i * 34
        svg.text(32, y + 11, what, size=SMALL_SIZE + 1)
        for m, start in enumerate(starts):
            base = start - start % 4 - 4
            x = wx + m * ww
            float_cells(svg, x, y, cell, base, base + 12, lambda f: A_USED if f >= start else "#ffffff")
            off = start % 4
            mark = GOOD if off == 0 else HILITE
            sx = x + (start - base + 0.5) * cell
            svg.poly([(sx - 4, y - 10), (sx + 4, y - 10), (sx, y - 3)], fill=mark)
            svg.text(x + 12 * cell + 4, y + 11, f"+{4 * off}", size=SMALL_SIZE, fill=mark)
        wide = all(start % 4 == 0 for start in starts)
        svg.text(812, y + 11, "16-byte chunks" if wide else "single floats", size=SMALL_SIZE + 1,
                 weight="bold", fill=GOOD if wide else HILITE)
    svg.text(32, top + ph - 12, "+b: the matrix starts b bytes past a boundary. One layout off anywhere (A, B, X or a "
             "stride) sends the whole launch to single floats.", size=SMALL_SIZE, fill=MUTED)

    # the two copies of one row, and what each launches
    top2, ph2, pw = top + ph + 14, 202, 456
    r, cell2 = 13, 6.5
    heads = ["CHUNK = 4: STEP 19'S KERNELS, ITS MACHINE CODE", "CHUNK = 1: THE RUN-TIME INSTANCE, SINGLE FLOATS"]
    for p in range(2):
        px = 16 + p * (pw + 16)
        panel(svg, px, top2, pw, ph2, heads[p])
        x, y = px + 14, top2 + 60
        svg.text(x, y - 22, f"row {r} of A, copied by thread {r} (a block of 64 or more threads)", size=SMALL_SIZE)
        width = 4 if p == 0 else 1
        end = (r // width + 1) * width
        float_cells(svg, x, y, cell2, 0, 64, lambda f: A_USED if f <= r else A_SPARE if f < end else "#ffffff")
        copies(svg, x, y, cell2, [(c, width) for c in range(0, end, width)], GOOD if p == 0 else HILITE)
        for v in (0, r, 63):
            svg.text(x + (v + 0.5) * cell2, y + 30, str(v), size=SMALL_SIZE, anchor="middle", fill=MUTED)
        lines = ([f"{end // 4} copies of 16 bytes (⌊r/4⌋ + 1): up to the diagonal's chunk",
                  "a block of `<64, 2, 32, 4>`: 544 copies of 16 bytes",
                  "n = 64: `<64, T, columns, 4>`; other n: `<0, T, columns, 4>`",
                  "T = 1 from twice the resident blocks: the persistent",
                  "kernels, with 16-byte copies of A and of B"]
                 if p == 0 else
                 [f"{end} copies of 4 bytes (r + 1): exactly the triangle's row",
                  "a block of `<0, 2, 32, 1>`: 2,080 copies of 4 bytes",
                  "any n: `<0, T, columns, 1>`, T and columns as step 19 picks",
                  "one block per matrix and column group: never persistent",
                  "(a persistent kernel of single floats would spill)"])
        for j, line in enumerate(lines):
            svg.text(x, y + 56 + j * 19, line, size=SMALL_SIZE + 1, fill=INK if j < 2 else MUTED)
    notes(svg, ["Either way the solve reads the same entries and does the same arithmetic; on 16-byte layouts the output is "
                "step 19's, bit for bit."],
          top2 + ph2 + 26)
    legend(svg, [("box", A_USED, "this matrix's floats (A: on or below the diagonal)"), ("box", A_SPARE, "copied, unread"),
                 ("edge", GOOD, "one 16-byte copy"), ("edge", HILITE, "one 4-byte copy")], h - 62)
    return svg


def draw_step21(s):
    h = 660
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    svg.text(24, 58, "n = 64, k = 64 (64 columns; so for any k from 33 to 64), 16-byte aligned: what `plan` launches, "
                     "by the batch's matrices")
    top, ph = 74, 280
    panel(svg, 16, top, 928, ph, "THE BATCH AXIS ON AN H200: 528 PERSISTENT BLOCKS FIT AT ONCE (4 PER SM × 132)")
    x0, x1 = 120, 900

    def bx(b):
        return x0 + math.log2(b) / 14 * (x1 - x0)

    # split_for: T = 1 from 512 matrices (2 warps each, 1,024 warps in all); plan: persistent from the switch
    fills = [tint(OWNERS[4], 0.55), tint(OWNERS[1], 0.35), BUF[0]]
    rows = [("step 21", 990), ("steps 19-20", 1056)]
    for i, (name, switch) in enumerate(rows):
        y = top + 52 + i * 40
        svg.text(x0 - 10, y + 18, name, anchor="end", weight="bold" if i == 0 else None)
        edges = [1, 512, switch, 16384]
        for lo, hi, fill in zip(edges, edges[1:], fills):
            svg.rect(bx(lo), y, bx(hi) - bx(lo), 26, fill=fill, stroke=EDGE, sw=0.8)
        svg.line(bx(switch), y - 4, bx(switch), y + 30, stroke=INK, sw=2)
    y = top + 52
    svg.text(bx(1) + 8, y + 18, "T = 2 grid: `<64, 2, 64, 4>`, 128 threads a matrix", size=SMALL_SIZE)
    svg.text(bx(1100) + 8, y + 18, "persistent `<64, 64, 4>`, 528 blocks", size=SMALL_SIZE)
    svg.text(bx(1100) + 8, y + 58, "the same persistent kernel, from 2 × 528", size=SMALL_SIZE, fill=MUTED)
    svg.text(bx(4), y + 58, "steps 19-20: the same three kernels, the switch at 1,056", size=SMALL_SIZE, fill=MUTED)
    # axis
    ay = top + 146
    svg.line(x0, ay, x1, ay, stroke=INK, sw=1)
    for b in (1, 4, 16, 64, 256, 1024, 4096, 16384):
        svg.line(bx(b), ay, bx(b), ay + 5, stroke=INK, sw=1)
        svg.text(bx(b), ay + 18, f"{b:,}", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    svg.text(x1 + 8, ay + 4, "matrices", size=SMALL_SIZE, fill=MUTED)
    for b, name in ((256, "512 tokens"), (4096, "8k tokens"), (16384, "32k tokens")):
        svg.rect(bx(b) - 3, ay - 3, 6, 6, fill=INK)
        svg.text(bx(b), ay + 32, name, size=SMALL_SIZE, anchor="middle", fill=MUTED)
    # T = 1 band label with a leader
    mid = (bx(512) + bx(990)) / 2
    svg.line(mid, top + 52 - 2, mid, top + 40, stroke=MUTED, sw=0.8)
    svg.text(mid, top + 36, "T = 1 grid: `<64, 1, 64, 4>`, from 512 (1,024 warps)", size=SMALL_SIZE, anchor="middle")
    # zoom of 900-1,100, linear
    zy = ay + 52
    zx0, zx1 = 300, 900

    def zx(b):
        return zx0 + (b - 900) / 200 * (zx1 - zx0)

    svg.text(zx0 - 12, zy + 4, "zoom, 900 to 1,100 matrices:", size=SMALL_SIZE, anchor="end")
    for i, (name, switch) in enumerate(rows):
        yy = zy + 10 + i * 16
        svg.text(zx0 - 12, yy + 11, name, size=SMALL_SIZE, anchor="end", fill=MUTED)
        svg.rect(zx0, yy, zx(switch) - zx0, 13, fill=fills[1], stroke=EDGE, sw=0.6)
        svg.rect(zx(switch), yy, zx1 - zx(switch), 13, fill=fills[2], stroke=EDGE, sw=0.6)
        svg.line(zx(switch), yy - 2, zx(switch), yy + 15, stroke=INK, sw=2)
    svg.line(zx(1024), zy + 6, zx(1024), zy + 44, stroke=INK, sw=1, dash="3,2")
    svg.text(zx(990) - 4, zy + 56, "990 = 15/16 × 2 × 528", size=SMALL_SIZE, anchor="end")
    svg.text(zx(1024), zy + 56, "1,024", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    svg.text(zx(1056) + 4, zy + 56, "1,056 = 2 × 528", size=SMALL_SIZE)

    # two rounds at 990, and what never goes persistent
    top2, ph2, pw = top + ph + 14, 196, 456
    panel(svg, 16, top2, pw, ph2, "FROM 15/16 OF TWO ROUNDS: 990 MATRICES, 528 BLOCKS")
    gx, gy, cw = 110, top2 + 42, 20
    for rnd in range(2):
        svg.text(gx - 8, gy + rnd * 26 + 14, f"round {rnd + 1}", size=SMALL_SIZE, anchor="end")
        for g in range(16):
            full = rnd == 0 or g < 14
            svg.rect(gx + g * cw, gy + rnd * 26, cw - 2, 20, fill=BUF[0] if full else "#ffffff", stroke=EDGE, sw=0.6)
    svg.text(gx, gy + 66, "one cell = 33 blocks: 462 blocks solve two matrices,", size=SMALL_SIZE)
    svg.text(gx, gy + 81, "66 (one in eight) solve one", size=SMALL_SIZE)
    svg.text(30, gy + 110, "`plan`: persistent where `8 · batch ≥ 15 · blocks`, blocks", size=SMALL_SIZE, fill=MUTED)
    svg.text(30, gy + 125, "asked of the runtime for the device (528 on an H200)", size=SMALL_SIZE, fill=MUTED)
    px = 16 + pw + 16
    panel(svg, px, top2, pw, ph2, "NEVER PERSISTENT IN STEP 21: THE GRID INSTEAD")
    items = [("n ≠ 64: the run-time-n persistent kernel is gone", "(step 20 launched it, and it spilled)"),
             ("k > 64: the 128-column persistent kernel is gone", "(step 20 launched it, and it spilled)"),
             ("k ≤ 32, or too few matrices for T = 1", "(fewer than 1,024 warps in all)"),
             ("not 16-byte aligned: step 20's single-float grid", "")]
    for i, (line, why) in enumerate(items):
        y = top2 + 46 + i * 36
        svg.rect(px + 14, y - 10, 10, 10, fill="#ffffff", stroke=EDGE, sw=0.8)
        svg.text(px + 32, y, line, size=SMALL_SIZE + 1)
        if why:
            svg.text(px + 32, y + 15, why, size=SMALL_SIZE, fill=MUTED)
    legend(svg, [("box", fills[0], "grid, T = 2 (a block a matrix)"), ("box", fills[1], "grid, T = 1 (a block a matrix)"),
                 ("box", fills[2], "persistent (a block walks matrices b, b + 528, …)")], h - 62)
    return svg


def draw_step22(s):
    h = 610
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    svg.text(24, 58, "A in global memory, row-major: row r starts at float r · n. A 16-byte `cp.async` needs 16-byte "
                     "boundaries at both ends.")
    cell = 4.6
    row_fill = [tint(OWNERS[4], 0.45), tint(OWNERS[1], 0.25), tint(OWNERS[6], 0.5)]
    x = 44

    def bracket(f0, f1, y, up, colour, dash=None):
        """A bracket over (up) or under floats f0..f1-1 of the strip at height y (16 high)."""
        a, b = x + f0 * cell + 1, x + f1 * cell - 1
        y0, y1 = (y - 3, y - 9) if up else (y + 19, y + 25)
        svg.path(f"M{num(a)},{num(y0)} V{num(y1)} H{num(b)} V{num(y0)}", stroke=colour, sw=2, dash=dash)

    y0 = 74
    panel(svg, 16, y0, 928, 112, "N = 60: EVERY ROW STARTS ON A BOUNDARY")
    y = y0 + 50
    float_cells(svg, x, y, cell, 0, 180, lambda f: row_fill[f // 60], h=16)
    for r in range(3):
        svg.text(x + r * 60 * cell + 2, y - 12, f"row {r} at {r * 60}", size=SMALL_SIZE, fill=MUTED)
    for f in (60, 120):
        bracket(f, f + 4, y, False, GOOD)
    svg.text(x, y + 46, "Thread r's chunks start at r · 60 + 4j: each is one 16-byte copy, within its row (`copy_a`'s copy "
                        "by rows).", size=SMALL_SIZE + 1)

    y0 += 124
    panel(svg, 16, y0, 928, 150, "N = 62: THE ODD ROWS START 8 BYTES PAST ONE")
    y = y0 + 50
    float_cells(svg, x, y, cell, 0, 186, lambda f: row_fill[f // 62], h=16)
    for r in range(3):
        svg.text(x + r * 62 * cell + 2, y - 12, f"row {r} at {r * 62}", size=SMALL_SIZE, fill=MUTED)
    bracket(62, 66, y, True, BAD)
    bracket(60, 64, y, False, HILITE, dash="3,2")
    svg.text(x, y + 46, "Row 1's first 16 bytes (62-65, above) cross the boundary at 64: no 16-byte copy by rows.",
             size=SMALL_SIZE + 1, fill=BAD)
    svg.text(x, y + 64, "Step 21's 16-byte instances took A flat instead, in aligned 4-float pieces: piece 60-63 "
                        "(below) holds row 0's last", size=SMALL_SIZE + 1)
    svg.text(x, y + 82, "two floats and row 1's first two, which land 68 floats apart in sA, so it went as four single "
                        "floats. That flat path is what spilled.", size=SMALL_SIZE + 1)

    y0 += 162
    panel(svg, 16, y0, 456, 138, "STEP 21 (16-BYTE STRIDES, ANY N)")
    panel(svg, 488, y0, 456, 138, "STEP 22")
    left = ["n % 4 = 0: 16-byte chunks, copied by rows", "other n: the same 16-byte instances, whose flat",
            "copy splits each piece into single floats", "`<0, 2, 32, 4>` and `<0, 2, 64, 4>`: 76 bytes of",
            "spills a thread, carried by every launch"]
    right = ["n % 4 = 0 (and aligned): 16-byte chunks, by rows", "other n: the single-float instances",
             "`<0, T, columns, 1>`, which copy by rows too", "the grid's 16-byte instances: the row copy only;",
             "the split is gone, and no instance spills"]
    for i, (a, b) in enumerate(zip(left, right)):
        svg.text(30, y0 + 42 + i * 19, a, size=SMALL_SIZE + 1, fill=BAD if i >= 3 else INK)
        svg.text(502, y0 + 42 + i * 19, b, size=SMALL_SIZE + 1, fill=GOOD if i >= 3 else INK)
    legend(svg, [("box", row_fill[0], "row 0"), ("box", row_fill[1], "row 1"), ("box", row_fill[2], "row 2"),
                 ("line", GOOD, "a 16-byte copy"), ("line", BAD, "16 bytes across a boundary"),
                 ("dash", HILITE, "one of step 21's flat pieces")], h - 62)
    return svg


# --- steps 23-24: switches counted on the device, and instances sized to n = 16 ---------------------

def draw_step23(s):
    h = 680
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    svg.text(24, 58, "n = 64, k = 64, 16-byte aligned: what `plan` launches, by the batch's matrices, on a GPU of 132 "
                     "SMs (an H100 or an H200)")
    top, ph = 74, 248
    panel(svg, 16, top, 928, ph, "THE BATCH AXIS ON 132 SMS: 8 GRID BLOCKS AND 4 PERSISTENT BLOCKS AN SM (THE "
                                 "OCCUPANCY API)")
    x0, x1 = 120, 900

    def bx(b):
        return x0 + math.log2(b) / 14 * (x1 - x0)

    # split_for: T = 1 from 3 * 4 * SMs / 2 warps (step 22: 1,024); persistent_pays: from 8 * batch >= 15 * 528
    # up to 6 * 1,056 (step 22: no upper end)
    fills = [tint(OWNERS[4], 0.55), tint(OWNERS[1], 0.35), BUF[0]]
    rows = [("step 23", [1, 396, 990, 6336, 16384], [0, 1, 2, 1],
             ["T = 2 grid: `<64, 2, 64, 4>`, 128 threads a matrix", "T = 1", "persistent", "T = 1 grid"]),
            ("step 22", [1, 512, 990, 16384], [0, 1, 2],
             ["T = 2 grid: the same kernel", "T = 1", "persistent `<64, 64, 4>` to the end"])]
    bar_y = [top + 58, top + 112]
    for (name, edges, kinds, labels), y in zip(rows, bar_y):
        svg.text(x0 - 10, y + 18, name, anchor="end", weight="bold" if name == "step 23" else None)
        for lo, hi, kind, label in zip(edges, edges[1:], kinds, labels):
            svg.rect(bx(lo), y, bx(hi) - bx(lo), 26, fill=fills[kind], stroke=EDGE, sw=0.8)
            if lo == 1:
                svg.text(bx(lo) + 8, y + 18, label, size=SMALL_SIZE)
            else:
                svg.text((bx(lo) + bx(hi)) / 2, y + 18, label, size=SMALL_SIZE, anchor="middle")
        for b in edges[1:-1]:
            svg.line(bx(b), y - 4, bx(b), y + 30, stroke=INK, sw=2)
    # the boundaries' matrices: step 23's above its bar, step 22's below its own
    for b in (396, 990, 6336):
        svg.text(bx(b), bar_y[0] - 10, f"{b:,}", size=SMALL_SIZE, anchor="middle", weight="bold")
    for b in (512, 990):
        svg.text(bx(b), bar_y[1] + 44, f"{b:,}", size=SMALL_SIZE, anchor="middle", weight="bold")
    # where step 23 launches otherwise than step 22
    for lo, hi in ((396, 512), (6336, 16384)):
        svg.rect(bx(lo) - 1, bar_y[0] - 1, bx(hi) - bx(lo) + 2, bar_y[1] + 28 - bar_y[0], stroke=HILITE, sw=2)
    # axis
    ay = top + 178
    svg.line(x0, ay, x1, ay, stroke=INK, sw=1)
    for b in (1, 4, 16, 64, 256, 1024, 4096, 16384):
        svg.line(bx(b), ay, bx(b), ay + 5, stroke=INK, sw=1)
        svg.text(bx(b), ay + 18, f"{b:,}", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    svg.text(x1 + 8, ay + 4, "matrices", size=SMALL_SIZE, fill=MUTED)
    for b, name in ((256, "512 tokens"), (4096, "8k tokens"), (16384, "32k tokens")):
        svg.rect(bx(b) - 3, ay - 3, 6, 6, fill=INK)
        svg.text(bx(b), ay + 32, name, size=SMALL_SIZE, anchor="middle", fill=MUTED)
    svg.text(30, top + ph - 12, "Outlined, where the two differ: T = 1 from 396 matrices rather than 512, and above "
                                "6,336 the T = 1 grid where step 22 stays persistent.", size=SMALL_SIZE + 1)

    # where each boundary comes from
    top2, ph2 = top + ph + 14, 224
    panel(svg, 16, top2, 928, ph2, "WHERE EACH BOUNDARY COMES FROM: THE DEVICE'S COUNTS, ASKED ONCE PER DEVICE")
    cx = (30, 120, 706)
    svg.text(cx[2], top2 + 40, "step 22", size=SMALL_SIZE, weight="bold", fill=MUTED)
    items = [("396", "T = 1 from 792 warps in all, 2 a matrix: 132 SMs × 4 schedulers × 3/2 warps",
              "`split_for`: `batch · 2 ≥ 3 · 4 · sms / 2`", "a constant 1,024 warps: 512"),
             ("990", "persistent from 15/16 of two rounds of its blocks: 15/16 × 2 × 528 (132 × 4)",
              "`persistent_pays`: `8 · batch ≥ 15 · persistent_blocks`", "the same: 990"),
             ("6,336", "persistent up to six waves of the grid's blocks: 6 × 1,056 (132 × 8)",
              "`persistent_pays`: `batch ≤ persistent_grid_waves · grid_blocks` (6)", "no upper end"),
             ("2 · 4 ≥ 8", "persistent at all only where it keeps half the grid's warps (2 a block in both)",
              "`persistent_pays`: `2 · persistent_per_sm ≥ grid_per_sm`", "no such test")]
    for i, (value, what, code, before) in enumerate(items):
        y = top2 + 58 + i * 36
        svg.text(cx[0], y, value, weight="bold")
        svg.text(cx[1], y, what, size=SMALL_SIZE + 1)
        svg.text(cx[1], y + 15, code, size=SMALL_SIZE, fill=MUTED)
        svg.text(cx[2], y, before, size=SMALL_SIZE + 1, fill=MUTED)
    svg.text(30, top2 + ph2 - 14, "132: the device's SMs. 4 and 8: the occupancy API's blocks an SM of the persistent "
                                  "kernel `<64, 64, 4>` and of the grid's `<64, 1, 64, 4>`.", size=SMALL_SIZE, fill=MUTED)
    legend(svg, [("box", fills[0], "grid, T = 2 (a block a matrix)"), ("box", fills[1], "grid, T = 1 (a block a matrix)"),
                 ("box", fills[2], "persistent (528 blocks walk the batch)"),
                 ("edge", HILITE, "step 23 launches otherwise than step 22")], h - 62)
    return svg


PAST_N = tint(EDGE, 0.6)   # a register of a row past n: updated, never stored


def draw_step24(s):
    h = 740
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    svg.text(24, 58, "n = k = 16, 16-byte aligned, T = 2 with 32 columns (k ≤ 32 and a large batch, as Kimi-Linear's "
                     "1,024 matrices on 132 SMs)")
    top, ph = 74, 262
    panel(svg, 16, top, 928, ph, "SHARED MEMORY: A'S BUFFER IN ONE BLOCK, ROWS 68 FLOATS APART (TO SCALE)")
    n, stride = 16, 68

    def buffer(x, y, rows):
        """sA of `rows` rows at stride 68: A's rows 0-15 copied in 16-byte chunks up to the diagonal."""
        svg.rect(x + N * E, y, (stride - N) * E, rows * E, fill="url(#hatch)")
        svg.rect(x, y, N * E, rows * E, fill=A_EMPTY)
        svg.poly(staircase(x, y, E, chunk_edge, rows=n), fill=A_SPARE)
        svg.poly(staircase(x, y, E, lower_edge, rows=n), fill=A_USED)
        tile_lines(svg, x, y, E, N, rows=rows)
        svg.rect(x, y, N * E, rows * E, stroke=EDGE, sw=0.8, dash="3,2")
        svg.poly(staircase(x, y, E, chunk_edge, rows=n), fill="none", stroke=EDGE, sw=1)
        svg.rect(x, y, stride * E, rows * E, stroke=EDGE, sw=1)
        ticks_top(svg, x, y, E, values=(0, 16, 64))
        ticks_left(svg, x, y, E, values=(0, 15) if rows == n else (0, 15, 63))

    by = top + 76
    # the n = 16 instance: its buffer, and what it holds below it
    lx = 60
    svg.text(34, top + 46, "`<16, 2, 32, 4>`: sA 16 × 68 floats", weight="bold")
    buffer(lx, by, n)
    for i, line in enumerate(["`sA[16 · 68]`: 4,352 B a block",
                              "rows 0-15 copied, thread r copies row r: 16 bytes",
                              "at a time up to its diagonal chunk, 40 copies",
                              "every entry it reads is one it copied"]):
        svg.text(34, by + n * E + 30 + i * 18, line, size=SMALL_SIZE + 1, fill=INK if i < 3 else MUTED)
    svg.text(34, top + ph - 14, "a quarter of the run-time instance's buffer, for the same 40 copies", size=SMALL_SIZE,
             fill=MUTED)
    # the run-time instance: its buffer, and what it holds beside it
    rx = 510
    svg.text(484, top + 46, "`<0, 2, 32, 4>`, step 23's: sA 64 × 68 floats", weight="bold")
    buffer(rx, by, N)
    svg.rect(rx + 1, by + n * E + 1, n * E - 2, (N - n) * E - 2, stroke=HILITE, sw=1.6, dash="4,2")
    tx = rx + stride * E + 14
    for i, line in enumerate(["`sA[64 · 68]`: 17,408 B a block",
                              "the same rows 0-15 copied, by",
                              "the same 40 copies; rows 16-63",
                              "are never written"]):
        svg.text(tx, by + 10 + i * 17, line, size=SMALL_SIZE + 1)
    for i, line in enumerate(["rows 16-63, columns 0-15 (dashed):", "read by the rows past n, at", "every panel"]):
        svg.text(tx, by + 96 + i * 17, line, size=SMALL_SIZE + 1, fill=HILITE if i == 0 else MUTED)

    # registers: the two threads of a column
    top2, ph2 = top + ph + 14, 222
    panel(svg, 16, top2, 928, ph2, "REGISTERS: x IN THE TWO THREADS OF ONE COLUMN (T = 2); A CELL IS A ROW")
    gx, cw = 196, 22
    groups = [("`<16, 2, 32, 4>`", "`float x[8]`", 8, top2 + 52), ("`<0, 2, 32, 4>`", "`float x[32]`", 32, top2 + 120)]
    for name, decl, cells, y in groups:
        svg.text(30, y + 11, name, size=SMALL_SIZE + 1, weight="bold")
        svg.text(30, y + 27, decl, size=SMALL_SIZE + 1)
        svg.text(gx - 6, y - 4, "s", size=SMALL_SIZE, anchor="end", fill=MUTED)
        for q in range(cells):
            svg.text(gx + (q + 0.5) * cw, y - 4, str(q), size=SMALL_SIZE, anchor="middle", fill=MUTED)
        for t in range(2):
            yy = y + 2 + t * 15
            svg.text(gx - 6, yy + 11, f"t = {t}", size=SMALL_SIZE, anchor="end")
            for q in range(cells):
                row = t + 2 * q
                past = row >= n
                svg.rect(gx + q * cw, yy, cw, 13, fill=PAST_N if past else OWNERS[t], stroke="#ffffff", sw=0.8)
                svg.text(gx + (q + 0.5) * cw, yy + 10.5, str(row), size=SMALL_SIZE - 1, anchor="middle",
                         fill=INK if past else OWNER_TEXT[t])
    # the rows past n in the run-time instance
    y = groups[1][3]
    a, b = gx + 8 * cw + 1, gx + 32 * cw - 1
    svg.path(f"M{num(a)},{num(y + 36)} V{num(y + 42)} H{num(b)} V{num(y + 36)}", stroke=MUTED, sw=1)
    svg.text((a + b) / 2, y + 56, "rows 16-63: updated, never stored", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    y = groups[0][3]
    svg.text(gx + 8 * cw + 16, y + 12, "rows t, t + 2, …, t + 14: all before n, all stored (in the columns before k)",
             size=SMALL_SIZE + 1)
    svg.text(30, top2 + ph2 - 14, "Thread t's `x[s]` is row t + 2s. A row past n: 0 from `load_column`, a 16-byte "
                                  "load and 4 `fmaf` at each panel, no store.", size=SMALL_SIZE, fill=MUTED)

    notes(svg, ["Both solve 4 panels (j0 = 0, 4, 8, 12); the rows before n take the same terms in the same order: "
                "so X should be step 23's, bit for bit.",
                "`cuobjdump -res-usage`, sm_90: `<16, 2, 32, 4>` 62 registers; `<0, 2, 32, 4>` 128. Shared: 5,376 B "
                "and 18,432 B, 1 KB reserved."],
          top2 + ph2 + 26)
    legend(svg, [("box", A_USED, "A, read"), ("box", A_SPARE, "copied, unread"), ("dash", EDGE, "not written"),
                 ("hatch", None, "padding"), ("dash", HILITE, "read, never written"), ("box", OWNERS[0], "t = 0"),
                 ("box", OWNERS[1], "t = 1"), ("box", PAST_N, "a row past n: updated, never stored")], h - 62)
    return svg


# --- step 25: every thread of a block copies A ----------------------------------------------------

def step25_most(step):
    """The most copies one thread of each warp issues in a block of 128 threads at n = 64: in step 24 thread r < 64
    copies row r's chunks 0 … r/4; in step 25 threads 2r and 2r + 1 take row r's chunks in turn."""
    def copies(t):
        if step == 24:
            return t // 4 + 1 if t < N else 0
        row = t // 2
        return len(range(t % 2, row // 4 + 1, 2))
    return [max(copies(t) for t in range(32 * w, 32 * w + 32)) for w in range(4)]


def draw_step25(s):
    h = 610
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    svg.text(24, 58, "n = k = 64, 16-byte aligned, T = 2 with 64 columns: `<64, 2, 64, 4>`, 128 threads (4 warps) a "
                     "matrix; row r of A has chunks 0 … r/4")
    top, ph, pw = 74, 360, 456
    cw, rh = 12, 4          # a 16-byte chunk, a row
    heads = ["STEP 24: THREAD r COPIES ROW r", "STEP 25: THREADS 2r AND 2r + 1 SHARE ROW r"]
    subs = ["thread r: chunks 0, 1, 2, … of row r, one after another",
            "thread 2r: chunks 0, 2, 4, …; thread 2r + 1: chunks 1, 3, 5, …"]
    below = [("warps 2, 3 idle; row 63's thread: 16 copies", BAD),
             ("every warp copies; at most 8 copies a thread", GOOD)]
    for p, step in enumerate((24, 25)):
        px = 16 + p * (pw + 16)
        panel(svg, px, top, pw, ph, heads[p])
        svg.text(px + 14, top + 42, subs[p], size=SMALL_SIZE + 1)
        gx, gy = px + 44, top + 72

        def owner(r, j):
            """The warp that copies chunk j of row r, and whether it is the row's second thread."""
            if step == 24:
                return r // 32, False
            return (2 * r) // 32, j % 2 == 1

        # the chunk grid: row r has chunks 0..r/4; rows come in fours of one shape and one warp
        svg.rect(gx, gy, 16 * cw, N * rh, fill=A_EMPTY)
        for g in range(N // 4):
            for j in range(g + 1):
                w, second = owner(4 * g, j)
                fill = tint(OWNERS[w], 0.5) if second else OWNERS[w]
                svg.rect(gx + j * cw, gy + 4 * g * rh, cw, 4 * rh, fill=fill, stroke="#ffffff", sw=0.6)
        svg.rect(gx, gy, 16 * cw, N * rh, stroke=EDGE, sw=0.8, dash="3,2")
        edge = [(gx, gy)]
        for r in range(N):
            edge += [(gx + (r // 4 + 1) * cw, gy + r * rh), (gx + (r // 4 + 1) * cw, gy + (r + 1) * rh)]
        svg.poly(edge + [(gx, gy + N * rh)], fill="none", stroke=EDGE, sw=1)
        for j in (0, 4, 8, 12, 15):
            svg.text(gx + (j + 0.5) * cw, gy - 4, str(j), size=SMALL_SIZE, anchor="middle", fill=MUTED)
        svg.text(gx - 4, gy - 4, "chunk", size=SMALL_SIZE, anchor="end", fill=MUTED)
        for r in (0, 16, 32, 48, 63):
            svg.text(gx - 4, gy + (r + 0.5) * rh + 4, str(r), size=SMALL_SIZE, anchor="end", fill=MUTED)
        svg.text(gx - 30, gy + N * rh / 2, "row", size=SMALL_SIZE, anchor="middle", fill=MUTED, rotate=-90)

        # one copy instruction of warp 0, and a label in the empty upper triangle
        if step == 24:
            svg.rect(gx, gy, cw, 32 * rh, stroke=HILITE, sw=1.8)
            what = "32 rows, 16 B each"
        else:
            svg.path(f"M{num(gx)},{num(gy)} H{num(gx + cw)} V{num(gy + 4 * rh)} H{num(gx + 2 * cw)} "
                     f"V{num(gy + 16 * rh)} H{num(gx)} Z", stroke=HILITE, sw=1.8)
            what = "16 rows, 32 B each"
        ly, lx = gy + 2 * rh, gx + 3 * cw
        svg.line(gx + cw + 1, ly, lx - 3, ly, stroke=HILITE, sw=1)
        svg.label(lx, ly + 4, "warp 0, one instruction:")
        svg.label(lx, ly + 18, what)

        # the most copies one thread of each warp issues
        bx, by = px + 250, gy + 8
        svg.text(bx, by, "most copies by one thread", size=SMALL_SIZE + 1, weight="bold")
        scale = 6.5
        for w, most in enumerate(step25_most(step)):
            y = by + 14 + w * 22
            svg.text(bx, y + 11, f"warp {w}", size=SMALL_SIZE)
            if most:
                svg.rect(bx + 50, y, most * scale, 14, fill=OWNERS[w], stroke=EDGE, sw=0.6)
                svg.text(bx + 54 + most * scale, y + 11, str(most), size=SMALL_SIZE, weight="bold")
            else:
                svg.line(bx + 50, y, bx + 50, y + 14, stroke=EDGE, sw=1)
                svg.text(bx + 54, y + 11, "0: idle", size=SMALL_SIZE, fill=BAD)

        # row r's first 32-byte sector: who fills it, and in how many instructions
        sy = by + 14 + 4 * 22 + 26
        svg.text(bx, sy, "row r's first 32-byte sector", size=SMALL_SIZE + 1, weight="bold")
        half = 84
        if step == 24:
            svg.rect(bx, sy + 10, half, 20, fill=OWNERS[0])
            svg.text(bx + half / 2, sy + 24, "lane r", size=SMALL_SIZE, anchor="middle", fill=OWNER_TEXT[0])
            svg.rect(bx + half + 1, sy + 11, half - 2, 18, fill="#ffffff", stroke=EDGE, sw=1, dash="3,2")
            svg.text(bx + 1.5 * half, sy + 24, "lane r, later", size=SMALL_SIZE, anchor="middle", fill=MUTED)
            lines = ["one instruction: 16 of the 32", "bytes, in each of 32 rows"]
        else:
            svg.rect(bx, sy + 10, half, 20, fill=OWNERS[0])
            svg.text(bx + half / 2, sy + 24, "lane 2r", size=SMALL_SIZE, anchor="middle", fill=OWNER_TEXT[0])
            svg.rect(bx + half, sy + 10, half, 20, fill=tint(OWNERS[0], 0.5))
            svg.text(bx + 1.5 * half, sy + 24, "lane 2r + 1", size=SMALL_SIZE, anchor="middle")
            lines = ["one instruction: all 32 bytes,", "two lanes fill one sector"]
        svg.rect(bx, sy + 10, 2 * half, 20, stroke=EDGE, sw=0.8)
        svg.line(bx + half, sy + 6, bx + half, sy + 34, stroke=INK, sw=1.1)
        for i, line in enumerate(lines):
            svg.text(bx, sy + 50 + i * 15, line, size=SMALL_SIZE, fill=MUTED)

        text, colour = below[p]
        svg.text(px + 14, top + ph - 14, text, size=SMALL_SIZE + 1, weight="bold", fill=colour)

    notes(svg, ["Machine code, sm_90: the 128-thread instance issues 16 `LDGSTS` (cp.async) before its barrier in "
                "step 24, 8 in step 25.",
                "The same chunks land in the same places, and the arithmetic is step 24's: X is the same, bit for bit.",
                "A block of 64 threads (one a row) copies as in step 24."],
          top + ph + 26)
    legend(svg, [("box", OWNERS[0], "warp 0"), ("box", OWNERS[1], "warp 1"), ("box", OWNERS[2], "warp 2"),
                 ("box", OWNERS[3], "warp 3"), ("box", tint(OWNERS[0], 0.5), "lighter: thread 2r + 1"),
                 ("dash", EDGE, "not copied"), ("edge", HILITE, "one copy instruction")], h - 62)
    return svg


# ---------------------------------------------------------------------------------------------
# Banks: a warp reading one column of A at row strides 64, 65 and 63.

def draw_banks():
    h = 660
    svg = Svg(WIDTH, h)
    frame(svg, "Shared-memory banks: a warp reads one column of A",
          "At row stride 64 a column read puts all 32 lanes in one bank (32 passes); at 65 or 63 it spreads over all 32.")
    svg.text(24, 58, "Lane i reads the word `i·s + j` (row i, column j of sA, row stride s), in bank (i·s + j) mod 32. "
                     "Drawn for j = 0.")
    cases = [(64, "s = 64 · step 06 at n = 64"), (65, "s = 65 · step 07, any n"), (63, "s = 63 · step 06 at n = 63")]
    pw, gap, top, ph = 296, 16, 74, 408
    cell = 7
    for p, (stride, heading) in enumerate(cases):
        px = 16 + p * (pw + gap)
        panel(svg, px, top, pw, ph, heading)
        gx, gy = px + 48, top + 64
        banks = [(i * stride) % 32 for i in range(32)]
        per_bank = {b: banks.count(b) for b in banks}
        worst = max(per_bank.values())
        svg.rect(gx, gy, 32 * cell, 32 * cell, fill="#ffffff")
        for b in range(0, 33, 8):
            svg.line(gx + b * cell, gy, gx + b * cell, gy + 32 * cell, stroke=TILE_LINE, sw=0.6)
        for i in range(0, 33, 8):
            svg.line(gx, gy + i * cell, gx + 32 * cell, gy + i * cell, stroke=TILE_LINE, sw=0.6)
        colour = BAD if worst > 1 else GOOD
        for i, b in enumerate(banks):
            svg.rect(gx + b * cell + 0.5, gy + i * cell + 0.5, cell - 1, cell - 1, fill=colour)
        svg.rect(gx, gy, 32 * cell, 32 * cell, stroke=EDGE, sw=1)
        for v in (0, 8, 16, 24, 31):
            svg.text(gx + (v + 0.5) * cell, gy - 4, str(v), size=SMALL_SIZE, anchor="middle", fill=MUTED)
            svg.text(gx - 4, gy + (v + 0.5) * cell + 4, str(v), size=SMALL_SIZE, anchor="end", fill=MUTED)
        svg.text(gx + 16 * cell, gy - 18, "bank", size=SMALL_SIZE, anchor="middle", fill=MUTED)
        svg.text(gx - 26, gy + 16 * cell, "lane", size=SMALL_SIZE, anchor="middle", fill=MUTED, rotate=-90)
        y = gy + 32 * cell + 24
        if worst > 1:
            svg.text(px + 14, y, f"32 lanes, 1 bank: {worst} passes", weight="bold", fill=BAD)
        else:
            svg.text(px + 14, y, "32 lanes, 32 banks: 1 pass", weight="bold", fill=GOOD)
        for r, (name, values) in enumerate((("lane", list(range(32))), ("word", [i * stride for i in range(32)]),
                                            ("bank", banks))):
            yy = y + 22 + r * 16
            svg.text(px + 14, yy, name, size=SMALL_SIZE, fill=MUTED)
            for i in range(4):
                svg.text(px + 86 + i * 36, yy, str(values[i]), size=SMALL_SIZE, anchor="end")
            svg.text(px + 208, yy, "…", size=SMALL_SIZE, anchor="middle", fill=MUTED)
            svg.text(px + 250, yy, str(values[31]), size=SMALL_SIZE, anchor="end")
        g = math.gcd(stride, 32)
        svg.text(px + 14, y + 82, f"gcd({stride}, 32) = {g}: {g} lane{'s' if g > 1 else ''} per bank used",
                 size=SMALL_SIZE, fill=MUTED)
    notes(svg, [
        "Rule: lanes a stride s apart meet in one bank every 32 / gcd(s, 32) lanes, so gcd(s, 32) lanes share each bank used.",
        "s = 64: gcd 32, the whole warp in one bank. s = 65 or 63: gcd 1, no conflict; so for any odd s. s = 66: 2-way; 72: 8-way.",
        "Hence step 07's fixed stride of 65 rather than n + 1: at n = 63, n + 1 = 64 would be 32-way again.",
        "Another column j adds j to every word: every bank moves by j, the picture only shifts.",
    ], top + ph + 28)
    legend(svg, [("box", BAD, "a lane's word, bank shared (conflict)"), ("box", GOOD, "a lane's word, bank its own")],
           h - 62)
    return svg


# ---------------------------------------------------------------------------------------------
# Left-looking against right-looking on a 4 x 4.

A4 = [[2, 0, 0, 0],
      [1, 1, 0, 0],
      [3, 1, 2, 0],
      [1, 2, 1, 1]]
X4 = [2, 1, 3, 1]
B4 = [sum(A4[i][j] * X4[j] for j in range(4)) for i in range(4)]   # (4, 3, 13, 8)
SUB = "₀₁₂₃"
KNOWN = tint(GOOD, 0.72)
NOW = tint(HILITE, 0.55)
UPDATED = tint(OWNERS[4], 0.45)   # a y_i that just took a term


def small_matrix(svg, x, y, cell, used=(), diag=None, size=SMALL_SIZE):
    """A4 with the entries `used` filled and the diagonal entry `diag` outlined."""
    for i in range(4):
        for j in range(4):
            fill = HILITE if (i, j) in used else ("#ffffff" if j > i else "#eeeeee")
            svg.rect(x + j * cell, y + i * cell, cell, cell, fill=fill, stroke="#ffffff", sw=1)
            svg.text(x + (j + 0.5) * cell, y + (i + 0.5) * cell + size * 0.36, str(A4[i][j]), size=size,
                     anchor="middle", fill="#b0b0b0" if j > i else INK)
    if diag is not None:
        svg.rect(x + diag * cell + 1, y + diag * cell + 1, cell - 2, cell - 2, stroke=HILITE, sw=2)
    svg.rect(x, y, 4 * cell, 4 * cell, stroke=EDGE, sw=1)


def vector(svg, x, y, cell, values, fills, size=SMALL_SIZE, names=None):
    for i, (v, f) in enumerate(zip(values, fills)):
        svg.rect(x, y + i * cell, cell * 1.6, cell, fill=f, stroke=EDGE, sw=0.8)
        svg.text(x + cell * 0.8, y + (i + 0.5) * cell + size * 0.36, str(v), size=size, anchor="middle")
    if names:
        svg.text(x + cell * 0.8, y - 5, names, size=SMALL_SIZE, anchor="middle", fill=MUTED)


def chain(svg, x, y, boxes, fills):
    """Boxes joined by arrows, one dependent chain; returns the x past the last box."""
    for i, (label, fill) in enumerate(zip(boxes, fills)):
        w = markup_width(label, SMALL_SIZE) + 12
        svg.rect(x, y, w, 22, fill=fill, stroke=EDGE, sw=0.8, rx=3)
        svg.text(x + w / 2, y + 15, label, size=SMALL_SIZE, anchor="middle")
        x += w
        if i < len(boxes) - 1:
            svg.line(x + 1, y + 11, x + 13, y + 11, stroke=INK, sw=1.2, arrow=True)
            x += 14
    return x


def draw_left_right():
    h = 820
    svg = Svg(WIDTH, h)
    frame(svg, "Left-looking against right-looking forward substitution, on a 4 × 4",
          "The same 6 multiply-adds and 4 divisions in another order: right-looking leaves one fmaf between x_j and x_j+1.")
    # the system
    y0, cell = 76, 24
    svg.text(24, y0 + 12, "A", weight="bold")
    small_matrix(svg, 44, y0, cell, size=TEXT_SIZE)
    svg.text(44 + 4 * cell + 10, y0 + 2 * cell + 5, "·", size=18, anchor="middle")
    vector(svg, 44 + 4 * cell + 20, y0, cell, [f"x{SUB[i]}" for i in range(4)], ["#ffffff"] * 4, size=TEXT_SIZE)
    svg.text(44 + 4 * cell + 72, y0 + 2 * cell + 5, "=", size=16, anchor="middle")
    vector(svg, 44 + 4 * cell + 84, y0, cell, B4, ["#ffffff"] * 4, size=TEXT_SIZE)
    svg.text(44 + 4 * cell + 84 + cell * 0.8, y0 + 4 * cell + 16, "b", weight="bold", anchor="middle")
    svg.text(44 + 4 * cell + 20 + cell * 0.8, y0 + 4 * cell + 16, "x", weight="bold", anchor="middle")
    sx = 44 + 4 * cell + 160
    svg.text(sx - 8, y0 + 2 * cell + 5, "x =", anchor="end")
    vector(svg, sx, y0, cell, X4, [KNOWN] * 4, size=TEXT_SIZE)
    tx = sx + 70
    for i, line in enumerate(["A lower triangular, 1 or 2 on the diagonal; b = A·(2, 1, 3, 1),",
                              "so every value below is an exact integer.",
                              "Left-looking: row r waits for every earlier x, then sums and divides.",
                              "Right-looking: y starts as b; once x_j is known, every later row",
                              "takes its term a_ij·x_j at once."]):
        svg.text(tx, y0 + 14 + i * 19, line)

    top, ph = 200, 526
    pw = 456
    panels = [(16, "LEFT-LOOKING (steps 01-05)", "row r: a dot product of row r of A with the solved x, then ÷ a_rr"),
              (16 + pw + 16, "RIGHT-LOOKING (steps 06 on)",
         "y = b at first; once x_j is known, every later row i: y_i −= a_ij·x_j")]
    for px, heading, line in panels:
        panel(svg, px, top, pw, ph, heading)
        svg.text(px + 12, top + 40, line, size=SMALL_SIZE + 1)
    mc = 18          # cell of the small matrices
    sy = top + 62    # first step
    step_h = 92
    # left-looking
    px = 16
    for r in range(4):
        y = sy + r * step_h
        svg.text(px + 12, y + 14, f"row {r}", weight="bold")
        small_matrix(svg, px + 70, y, mc, used=[(r, j) for j in range(r)], diag=r)
        fills = [KNOWN if i < r else NOW if i == r else "#ffffff" for i in range(4)]
        vals = [X4[i] if i <= r else "?" for i in range(4)]
        vector(svg, px + 160, y, mc, vals, fills, names="x" if r == 0 else None)
        terms = " + ".join(f"{A4[r][j]}·{X4[j]}" for j in range(r))
        total = sum(A4[r][j] * X4[j] for j in range(r))
        lines = [f"sum = {terms} = {total}" if r else "sum = 0 (no terms)",
                 f"x{SUB[r]} = ({B4[r]} − {total}) / {A4[r][r]} = {X4[r]}"]
        if r:
            lines.append(f"waits for x{SUB[r - 1]}, then {r} product{'s' if r > 1 else ''} and the sum")
        for i, t in enumerate(lines):
            svg.text(px + 212, y + 14 + i * 19, t, size=TEXT_SIZE if i < 2 else SMALL_SIZE,
                     fill=INK if i < 2 else MUTED)
    # right-looking
    px = 16 + pw + 16
    y_state = list(B4)
    for j in range(4):
        y = sy + j * step_h
        svg.text(px + 12, y + 14, f"step {j}", weight="bold")
        small_matrix(svg, px + 70, y, mc, used=[(i, j) for i in range(j + 1, 4)], diag=j)
        before = list(y_state)
        x_j = before[j] // A4[j][j]
        for i in range(j + 1, 4):
            y_state[i] -= A4[i][j] * X4[j]
        fills = [KNOWN if i < j else NOW if i == j else UPDATED for i in range(4)]
        vals = [X4[i] if i <= j else y_state[i] for i in range(4)]
        vector(svg, px + 160, y, mc, vals, fills, names="x | y" if j == 0 else None)
        lines = [f"x{SUB[j]} = {before[j]} / {A4[j][j]} = {x_j}"]
        lines += [f"y{SUB[i]} = {before[i]} − {A4[i][j]}·{X4[j]} = {y_state[i]}" for i in range(j + 1, 4)]
        if j == 3:
            lines.append("no row left below")
        for i, t in enumerate(lines):
            svg.text(px + 212, y + 14 + i * 18, t)
    # dependent chains
    cy = sy + 4 * step_h + 6
    svg.text(16 + 12, cy, "dependent chain, x₁ to x₂", weight="bold")
    chain(svg, 16 + 12, cy + 12, ["x₁", "a₂₁·x₁", "Σ with a₂₀·x₀", "(13 − Σ) / 2", "x₂"],
          [KNOWN, NOW, NOW, NOW, KNOWN])
    svg.text(16 + 12, cy + 54, "on a warp: products, a 5-level butterfly sum, ÷", size=SMALL_SIZE, fill=MUTED)
    px = 16 + pw + 16
    svg.text(px + 12, cy, "dependent chain, x₁ to x₂", weight="bold")
    chain(svg, px + 12, cy + 12, ["x₁", "y₂ − 1·x₁ (fmaf)", "× 1/2", "x₂"], [KNOWN, NOW, NOW, KNOWN])
    svg.text(px + 12, cy + 54, "a₂₀·x₀ was taken a step earlier, off the chain; on a warp,", size=SMALL_SIZE,
             fill=MUTED)
    svg.text(px + 12, cy + 69, "x_j reaches the lanes by one shuffle", size=SMALL_SIZE, fill=MUTED)
    legend(svg, [("box", KNOWN, "x known"), ("box", NOW, "computed at this step"),
                 ("box", HILITE, "entries of A used at this step"), ("edge", HILITE, "diagonal: ÷ or × 1/a"),
                 ("box", UPDATED, "y updated")], h - 62)
    return svg


# ---------------------------------------------------------------------------------------------
# What each step's map says. The drawings follow the steps' code: see the comments at the top of
# each steps/NN_name/solve_tri.cu.

WARP_LAUNCH = "grid: one block per matrix · block (32, k): warp w solves column w · drawn at n = 64, k = 8"
THREAD_LAUNCH = ("grid: one block per matrix · block: a warp per 32 columns (k ≤ 128) · thread c solves column c · "
                 "n = 64, k = 8")
THREAD_LAUNCH_ONE_WARP = ("grid: one block per matrix · block: one warp (k ≤ 32) · thread c solves column c · "
                          "n = 64, k = 8")
LOADS_02 = ("Lane i loads B[i][w] into `x_low`, B[32+i][w] into `x_high`, and stores X from them: X never enters "
            "shared memory.")
SAME_02 = "Map and reads as in step 03: lane i holds rows i and 32+i of column w; each row is a dot product over the warp."

def draw_step26(s):
    h = 560
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    svg.text(24, 58, "n = 64, one block of 4 warps per matrix and 64 columns of X; drawn while block row 2 "
                     "(rows 32-47) is worked on")
    top, ph = 74, 420
    # left: A in 16 x 16 blocks
    pw = 400
    panel(svg, 16, top, pw, ph, "A IN 16 x 16 BLOCKS")
    e = 4.2
    gx, gy = 16 + 90, top + 60
    for i in range(4):
        for j in range(i + 1):
            x, y = gx + j * 16 * e, gy + i * 16 * e
            if i == j:
                svg.poly([(x, y), (x + 16 * e, y + 16 * e), (x, y + 16 * e)], fill=OWNERS[4], stroke=EDGE, sw=0.8)
                svg.rect(x, y, 16 * e, 16 * e, stroke=EDGE, sw=0.6, dash="3,2")
            else:
                fill = HILITE if i == 2 else OWNERS[1]
                svg.rect(x, y, 16 * e, 16 * e, fill=tint(fill, 0.35) if i != 2 else tint(HILITE, 0.25),
                         stroke=EDGE, sw=0.8)
            svg.text(x + 8 * e, y + 8 * e + 4, f"L{i}{j}", size=SMALL_SIZE, anchor="middle", weight="bold")
    for r in (0, 16, 32, 48):
        svg.text(gx - 4, gy + r * e + 11, str(r), size=SMALL_SIZE, anchor="end", fill=MUTED)
    svg.text(gx - 30, gy + 32 * e, "row", size=SMALL_SIZE, anchor="middle", fill=MUTED, rotate=-90)
    ly = gy + 64 * e + 24
    svg.rect(gx - 60, ly, 14, 14, fill=OWNERS[4], stroke=EDGE, sw=0.6)
    svg.text(gx - 40, ly + 11, "diagonal blocks: the chain, one thread a column",
             size=SMALL_SIZE)
    svg.rect(gx - 60, ly + 22, 14, 14, fill=tint(OWNERS[1], 0.35), stroke=EDGE, sw=0.6)
    svg.text(gx - 40, ly + 33, "blocks below: products in 16 x 8 tiles (3/4 of the multiply-adds)", size=SMALL_SIZE)
    svg.rect(gx - 60, ly + 44, 14, 14, fill=tint(HILITE, 0.25), stroke=EDGE, sw=0.6)
    svg.text(gx - 40, ly + 55, "L20, L21: what block row 2 takes from the rows solved", size=SMALL_SIZE)

    # right: X, 64 rows x 64 columns, at block row 2
    px = 16 + pw + 16
    pw2 = WIDTH - px - 16
    panel(svg, px, top, pw2, ph, "X IN SHARED MEMORY (64 x 64)")
    ex, ey = 3.4, 4.2
    xx, xy = px + 60, top + 60
    for i, (fill, label) in enumerate([(GOOD, "X0: solved"), (GOOD, "X1: solved"), (None, ""), (A_SPARE, "B3: not yet")]):
        y = xy + i * 16 * ey
        if fill:
            svg.rect(xx, y, 64 * ex, 16 * ey, fill=tint(fill, 0.45) if fill == GOOD else fill, stroke=EDGE, sw=0.6)
            svg.text(xx + 64 * ex + 8, y + 8 * ey + 4, label, size=SMALL_SIZE)
    y2 = xy + 32 * ey
    for t in range(8):
        w = t % 4
        svg.rect(xx + t * 8 * ex, y2, 8 * ex, 16 * ey, fill=OWNERS[w], stroke="#ffffff", sw=0.8)
        svg.text(xx + (t * 8 + 4) * ex, y2 + 8 * ey + 4, f"w{w}", size=SMALL_SIZE, anchor="middle",
                 fill=OWNER_TEXT[w])
    svg.text(xx + 64 * ex + 8, y2 + 8 * ey - 4, "B2 - L20 X0 - L21 X1:", size=SMALL_SIZE)
    svg.text(xx + 64 * ex + 8, y2 + 8 * ey + 10, "tiles of 16 x 8, warp", size=SMALL_SIZE)
    svg.text(xx + 64 * ex + 8, y2 + 8 * ey + 24, "w0 ... w3 in turn", size=SMALL_SIZE)
    for r in (0, 16, 32, 48):
        svg.text(xx - 4, xy + r * ey + 11, str(r), size=SMALL_SIZE, anchor="end", fill=MUTED)
    for c in (0, 32, 63):
        svg.text(xx + (c + 0.5) * ex, xy - 4, str(c), size=SMALL_SIZE, anchor="middle", fill=MUTED)
    svg.text(xx + 32 * ex, xy - 18, "column", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    ny = xy + 64 * ey + 24
    for k, line in enumerate(["then, after a barrier, threads 0-63 each solve their column's",
                              "16 rows of block row 2 by L22 (the chain), write them to X,",
                              "and a barrier hands rows 32-47 to block row 3's products"]):
        svg.text(px + 14, ny + 14 * k + 11, line, size=SMALL_SIZE)
    return svg


def draw_step27(s):
    h = 560
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    svg.text(24, 58, "n = 256 (16 block rows), one block of 8 warps per matrix and 64 columns of X; drawn while "
                     "block row 5 (rows 80-95) is solved")
    top, ph = 74, 420
    # left: A, 16 block rows, as the block reads them
    pw = 400
    panel(svg, 16, top, pw, ph, "A IN GLOBAL MEMORY (256 x 256)")
    e = 1.05
    gx, gy = 16 + 80, top + 34
    for i in range(16):
        y = gy + i * 16 * e
        w = (i + 1) * 16 * e
        fill = tint(A_USED, 0.5) if i < 5 else HILITE if i == 5 else tint(OWNERS[4], 0.6) if i == 6 else A_EMPTY
        svg.poly([(gx, y), (gx + w, y), (gx + w, y + 16 * e), (gx, y + 16 * e)], fill=fill, stroke=EDGE, sw=0.5)
    for r in (0, 80, 96, 255):
        svg.text(gx - 4, gy + r * e + 8, str(r), size=SMALL_SIZE, anchor="end", fill=MUTED)
    svg.text(gx - 34, gy + 128 * e, "row", size=SMALL_SIZE, anchor="middle", fill=MUTED, rotate=-90)
    ly = gy + 256 * e + 14
    for k, (fill, line) in enumerate([(tint(A_USED, 0.5), "block rows 0-4: copied, used, never read again"),
                                      (HILITE, "block row 5: in buffer 1, products then the chain"),
                                      (tint(OWNERS[4], 0.6), "block row 6: its copy in flight, into buffer 0"),
                                      (A_EMPTY, "block rows 7-15: not yet copied")]):
        svg.rect(gx - 60, ly + 20 * k, 14, 14, fill=fill, stroke=EDGE, sw=0.6)
        svg.text(gx - 40, ly + 20 * k + 11, line, size=SMALL_SIZE)

    # right: shared memory of one block
    px = 16 + pw + 16
    pw2 = WIDTH - px - 16
    panel(svg, px, top, pw2, ph, "SHARED MEMORY OF ONE BLOCK (107,008 B AT n = 256)")
    bx, by = px + 30, top + 44
    bw = 200
    for b, (fill, label) in enumerate([(tint(OWNERS[4], 0.6), "buffer 0: block row 6, landing"),
                                       (HILITE, "buffer 1: block row 5")]):
        y = by + b * 30
        svg.rect(bx, y, bw, 22, fill=fill, stroke=EDGE, sw=0.6)
        svg.text(bx + bw + 8, y + 15, label, size=SMALL_SIZE)
    svg.text(bx, by + 70, "two buffers of 16 rows x 260 floats (33,280 B)", size=SMALL_SIZE, fill=MUTED)
    xy = by + 86
    ex, ey = 2.2, 0.95
    for i in range(16):
        fill = tint(GOOD, 0.45) if i < 5 else OWNERS[1] if i == 5 else A_SPARE
        svg.rect(bx, xy + i * 16 * ey, 64 * ex, 16 * ey, fill=fill, stroke="#ffffff", sw=0.6)
    svg.rect(bx, xy, 64 * ex, 256 * ey, stroke=EDGE, sw=0.6)
    svg.text(bx + 64 * ex + 8, xy + 40 * ey, "X0 ... X4: solved", size=SMALL_SIZE)
    svg.text(bx + 64 * ex + 8, xy + 88 * ey + 4, "block row 5: B5 minus L5j Xj (8 warps, a tile each),", size=SMALL_SIZE)
    svg.text(bx + 64 * ex + 8, xy + 88 * ey + 18, "then the chain by L55, one thread a column", size=SMALL_SIZE)
    svg.text(bx + 64 * ex + 8, xy + 180 * ey, "B6 ... B15: not yet", size=SMALL_SIZE)
    svg.text(bx, xy + 256 * ey + 16, "X: 256 rows x 72 floats, 64 columns used (73,728 B)", size=SMALL_SIZE,
             fill=MUTED)
    return svg


def draw_step28(s):
    h = 460
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    svg.text(24, 58, "test-backend-ops' A {64,64,4,4}, B {384,64,4,4}: 16 matrices, k = 384; a small batch, so groups "
                     "of 64 columns, two threads a column")
    top, ph = 74, 320
    pw = 520
    panel(svg, 16, top, pw, ph, "ONE MATRIX: A, AND B'S 384 COLUMNS IN SIX GROUPS")
    ax, ay, e = 40, top + 60, 2.6
    svg.poly([(ax, ay), (ax + 64 * e, ay + 64 * e), (ax, ay + 64 * e)], fill=tint(A_USED, 0.5), stroke=EDGE, sw=0.8)
    svg.text(ax + 20 * e, ay - 8, "A (64 x 64)", size=SMALL_SIZE, anchor="middle")
    bx, ew = ax + 64 * e + 24, 0.75
    for g in range(6):
        svg.rect(bx + g * 64 * ew, ay, 64 * ew, 64 * e, fill=tint(OWNERS[g % len(OWNERS)], 0.55), stroke="#ffffff",
                 sw=1.0)
        svg.text(bx + (g * 64 + 32) * ew, ay + 32 * e + 4, f"y = {g}", size=SMALL_SIZE, anchor="middle")
    svg.text(bx + 192 * ew, ay - 8, "B (64 x 384): groups of 64 columns", size=SMALL_SIZE, anchor="middle")
    for k, line in enumerate(["Each group is one block: it copies A, solves its 64 columns, writes them.",
                              "No block reads another's columns, so the groups need no order."]):
        svg.text(ax, ay + 64 * e + 30 + 16 * k, line, size=SMALL_SIZE)

    px = 16 + pw + 16
    pw2 = WIDTH - px - 16
    panel(svg, px, top, pw2, ph, "THE GRID: 16 x 6 BLOCKS")
    gx, gy, c = px + 60, top + 60, 13
    for m in range(16):
        for g in range(6):
            svg.rect(gx + m * (c + 2), gy + g * (c + 12), c, c + 8, fill=tint(OWNERS[g % len(OWNERS)], 0.55),
                     stroke=EDGE, sw=0.5)
    svg.text(gx + 8 * (c + 2), gy - 10, "x: matrix 0 ... 15", size=SMALL_SIZE, anchor="middle", fill=MUTED)
    svg.text(gx - 10, gy + 3 * (c + 12), "y: group", size=SMALL_SIZE, anchor="middle", fill=MUTED, rotate=-90)
    for k, line in enumerate(["96 blocks of 128 threads; A read 6 times", "a matrix. The grid holds 65,535",
                              "groups in y: k up to 65,535 x 64."]):
        svg.text(px + 14, gy + 6 * (c + 12) + 16 + 15 * k, line, size=SMALL_SIZE)
    return svg


def draw_step29(s):
    h = 700
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    svg.text(24, 58, "one warp's tile, 8 columns of A a step: X[r0 … r0+15][c0 … c0+7] −= "
                     "A[r0 … r0+15][j0 … j0+7] · X[j0 … j0+7][c0 … c0+7]")
    top, ph = 74, 540
    pw = (WIDTH - 48) // 2
    e = 14
    g, q = 1, 1                     # lane 5 = 4g + q
    lane = 4 * g + q
    acc = {(g, 2 * q): 0, (g, 2 * q + 1): 1, (g + 8, 2 * q): 2, (g + 8, 2 * q + 1): 3}
    panels = [
        (16, "STEP 28: FFMA",
         {(r, d): "" for r in (g, g + 8) for d in range(8)},
         {(d, c): "" for d in range(8) for c in (2 * q, 2 * q + 1)},
         [["A: rows g, g+8,", "each column d"], ["X: row d, columns", "2q, 2q+1 (a float2)"],
          ["c₀ … c₃: `acc[0…3]`,", "4 FFMA a column d"]],
         ["per 8 columns of A: 32 FFMA a lane, its A and X from shared memory",
          "the warp's 32 lanes together: 32 x 32 = 16 x 8 x 8 FFMA"]),
        (16 + pw + 16, "STEP 29: mma.sync m16n8k8 (TF32)",
         {(g, q): "a₀", (g + 8, q): "a₁", (g, q + 4): "a₂", (g + 8, q + 4): "a₃"},
         {(q, g): "b₀", (q + 4, g): "b₁"},
         [["a₀ … a₃: A at rows", "g, g+8, columns q, q+4"], ["b₀, b₁: X at rows", "q, q+4, column g"],
          ["c₀ … c₃ in three", "accumulators: `hi_hi`,", "`lo_a_hi`, `hi_a_lo`"]],
         ["6 loads a lane; hi = v rounded to TF32, lo = v - hi truncated",
          "3 mma a step: hi·hi, lo·hi, hi·lo, each into its own accumulator",
          "the warp's 32 lanes together: 16 x 8 x 8 multiply-adds per mma",
          "at the end: X −= hi·hi + (lo·hi + hi·lo); lo·lo is left out"]),
    ]

    def grid(x, y, rows, cols, fill, marks, lane_fill):
        for r in range(rows):
            for c in range(cols):
                mark = marks.get((r, c))
                svg.rect(x + c * e, y + r * e, e, e, fill=fill if mark is None else lane_fill, stroke="#ffffff",
                         sw=0.8)
                if mark:
                    svg.text(x + (c + 0.5) * e, y + (r + 0.5) * e + 3.5, mark, size=10, anchor="middle",
                             fill="#ffffff" if lane_fill == OWNERS[0] else INK)
        svg.rect(x, y, cols * e, rows * e, stroke=EDGE, sw=0.8)

    def ticks(x, y, count, along_rows, lane_ones):
        for i in range(count):
            colour, weight = (INK, "bold") if i in lane_ones else (MUTED, None)
            if along_rows:
                svg.text(x - 4, y + (i + 0.5) * e + 3.5, str(i), size=10, anchor="end", fill=colour, weight=weight)
            else:
                svg.text(x + (i + 0.5) * e, y - 4, str(i), size=10, anchor="middle", fill=colour, weight=weight)

    for px, heading, a_marks, x_marks, callouts, lines in panels:
        panel(svg, px, top, pw, ph, heading)
        ax = px + 52
        tx = ax + 8 * e + 34
        xy = top + 62
        ty = xy + 8 * e + 34
        # X's rows j0 … j0+7 above the tile, A's block left of it
        grid(tx, xy, 8, 8, tint(GOOD, 0.45), x_marks, HILITE)
        grid(ax, ty, 16, 8, tint(A_USED, 0.5), a_marks, HILITE)
        grid(tx, ty, 16, 8, tint(OWNERS[1], 0.35), {k: f"c{SUB[v]}" for k, v in acc.items()}, OWNERS[0])
        ticks(tx, xy, 8, False, {c for _, c in x_marks})
        ticks(tx, xy, 8, True, {r for r, _ in x_marks})
        ticks(ax, ty, 8, False, {c for _, c in a_marks})
        ticks(ax, ty, 16, True, {r for r, _ in a_marks})
        svg.text(tx, xy - 18, "X: row j0 + d, column c0 + …", size=SMALL_SIZE, fill=MUTED)
        svg.text(ax, ty - 18, "A: column j0 + d", size=SMALL_SIZE, fill=MUTED)
        svg.text(ax - 30, ty + 8 * e, "row r0 + …", size=SMALL_SIZE, anchor="middle", fill=MUTED, rotate=-90)
        svg.text(tx + 4 * e, ty + 16 * e + 16, "the tile (16 x 8)", size=SMALL_SIZE, anchor="middle", fill=MUTED)
        svg.text(ax + 4 * e, ty + 16 * e + 16, "A (16 x 8)", size=SMALL_SIZE, anchor="middle", fill=MUTED)
        # what lane 5 holds, beside the drawings
        cx = tx + 8 * e + 12
        for x, y, block in zip((px + 14, cx, cx), (xy + 3 * e, xy + 3 * e, ty + g * e + 10), callouts):
            for k, line in enumerate(block):
                svg.text(x, y + 14 * k, line, size=SMALL_SIZE)
        ly = ty + 16 * e + 42
        for k, line in enumerate(lines):
            svg.text(px + 14, ly + 17 * k, line, size=SMALL_SIZE + 1)
    legend(svg, [("box", HILITE, f"what lane {lane} = 4g + q (g = {g}, q = {q}) loads from shared memory"),
                 ("box", OWNERS[0], f"lane {lane}'s 4 accumulator cells")], h - 62)
    return svg


# --- step 30: the run-time instance sized to n --------------------------------------------------------

STEP30_N, STEP30_T, STEP30_THREADS = 11, 8, 64   # A {11,11,1,1}, B {5,11,1,1}: split_for gives T = 8, 8 columns
STEP30_INSTANCE = {N: "`<0, 8, 8, 1>`", 16: "`<0, 8, 8, 1, 16>`"}   # by the rows they unroll to: step 29's, step 30's
SLOT_OFF = tint(BAD, 0.78)   # an unrolled cp.async whose predicate c <= row is false


def copy_by_rows(rows, tid, n=STEP30_N, threads=STEP30_THREADS, chunk=1):
    """`copy_a`'s copy by rows in an instance of `rows` rows: thread tid's row, and its unrolled slots as (column,
    whether it copies), one per j; no slots where the row is at or past n."""
    sharers = threads // rows
    row, first = tid // sharers, tid % sharers * chunk
    if row >= n:
        return row, []
    return row, [(j + first, j + first <= row) for j in range(0, rows, sharers * chunk)]


def panel_updates(rows, n=STEP30_N, T=STEP30_T):
    """How many of its rows a thread runs `solve_column`'s update for (a 16-byte load and 4 fmaf each, kept or not
    by the select), panel by panel."""
    counts = []
    for j0 in range(0, rows, 4):
        if j0 >= n:
            break
        counts.append(sum(1 for s in range(rows // T) if s * T + T - 1 >= j0 + 4))
    return counts


def draw_step30(s):
    h = 932
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    n, T, threads, stride = STEP30_N, STEP30_T, STEP30_THREADS, 68
    svg.text(24, 58, "test-backend-ops' A {11,11,1,1}, B {5,11,1,1}: n = 11, k = 5, one matrix, single-float copies "
                     "(chunk = 1); T = 8, 8 columns: 64 threads")
    top, ph, pw = 74, 384, 456
    cell, sc = 16, 6          # an entry of the 11 x 11 triangle; a slot of the unrolled copy
    focus = n - 1             # the row whose slots are drawn
    for p, rows in enumerate((N, 16)):
        px = 16 + p * (pw + 16)
        sharers = threads // rows
        panel(svg, px, top, pw, ph, f"STEP {29 + p}: {STEP30_INSTANCE[rows]}, LOOPS UNROLLED TO {rows} ROWS")
        rule = ("thread r copies row r" if sharers == 1
                else f"threads {sharers}r … {sharers}r + {sharers - 1} share row r")
        svg.text(px + 14, top + 42, f"`copy_a`: sharers = {threads} / {rows} = {sharers}: {rule}",
                 size=SMALL_SIZE + 1)

        # who copies each entry, from the copy's own loop
        who, slots_of = {}, {}
        for tid in range(threads):
            row, slots = copy_by_rows(rows, tid)
            slots_of[tid] = slots
            for c, on in slots:
                if on:
                    assert (row, c) not in who
                    who[(row, c)] = tid
        assert sorted(who) == [(r, c) for r in range(n) for c in range(r + 1)]
        gx, gy = px + 44, top + 74
        svg.rect(gx, gy, n * cell, n * cell, fill=A_EMPTY)
        for (r, c), tid in sorted(who.items()):
            f = tid % sharers
            svg.rect(gx + c * cell, gy + r * cell, cell, cell, fill=OWNERS[f], stroke="#ffffff", sw=0.6)
            svg.text(gx + (c + 0.5) * cell, gy + (r + 0.5) * cell + 3.5, str(tid), size=9, anchor="middle",
                     fill=OWNER_TEXT[f])
        svg.rect(gx, gy, n * cell, n * cell, stroke=EDGE, sw=0.8, dash="3,2")
        svg.poly(staircase(gx, gy, cell, lower_edge, rows=n), fill="none", stroke=EDGE, sw=1)
        svg.rect(gx - 1, gy + focus * cell - 1, n * cell + 2, cell + 2, stroke=HILITE, sw=1.6)
        for v in range(n):
            svg.text(gx + (v + 0.5) * cell, gy - 4, str(v), size=SMALL_SIZE - 1, anchor="middle", fill=MUTED)
            svg.text(gx - 4, gy + (v + 0.5) * cell + 3.5, str(v), size=SMALL_SIZE - 1, anchor="end", fill=MUTED)
        svg.text(gx - 4, gy - 4, "c", size=SMALL_SIZE, anchor="end", fill=MUTED)
        svg.text(gx - 26, gy + n * cell / 2, "row", size=SMALL_SIZE, anchor="middle", fill=MUTED, rotate=-90)

        # what the block's threads do
        copies = {tid: sum(on for _, on in slots) for tid, slots in slots_of.items()}
        busy = [tid for tid in range(threads) if copies[tid]]
        idle = threads - len(busy)
        most, total = max(copies.values()), sum(copies.values())
        warps = sorted({tid // 32 for tid in busy})
        last = max(tid for tid in range(threads) if slots_of[tid])
        # threads of a row before n whose every slot is predicated off (first > row)
        none = [tid for tid in range(last + 1) if not copies[tid]]
        assert idle == threads - 1 - last + len(none)
        lines = [f"threads 0-{last}: rows 0-{n - 1};",
                 f"{last + 1}-{threads - 1}: rows {n}-{rows - 1} ≥ n,", "copy nothing"]
        if none:
            lines[-1] += ", nor do"
            lines.append(", ".join(str(t) for t in none) + " (first > row)")
        lines += ["warp 1 copies nothing" if warps == [0] else "both warps copy", "",
                  f"{total} copies of 4 bytes,", f"up to {most} a thread"]
        tx = gx + n * cell + 18
        for i, line in enumerate(lines):
            svg.text(tx, gy + 10 + i * 17, line, size=SMALL_SIZE + 1)

        # the unrolled slots of row `focus`'s threads, to scale: 64 columns, or 16
        mine = [tid for tid in range(threads) if copy_by_rows(rows, tid)[0] == focus]
        step = len(slots_of[mine[0]])
        sy = gy + n * cell + 30
        what = ("`j` = 0, 1, … 63, c = j" if sharers == 1 else "`j` = 0, 4, 8, 12, c = j + first")
        who_text = f"thread {mine[0]}" if len(mine) == 1 else f"threads {mine[0]}-{mine[-1]}"
        svg.text(px + 14, sy, f"{who_text} (row {focus}): {what}: {step} slots" + (" each" if len(mine) > 1 else ""),
                 size=SMALL_SIZE + 1)
        sx, rh = px + 58, 12 if len(mine) == 1 else 10
        yy = sy + 10
        for tid in mine:
            svg.text(sx - 6, yy + rh - 1.5, str(tid), size=SMALL_SIZE, anchor="end", fill=MUTED)
            for c, on in slots_of[tid]:
                svg.rect(sx + c * sc, yy, sc, rh, fill=OWNERS[tid % sharers] if on else SLOT_OFF, stroke="#ffffff",
                         sw=0.6)
            svg.rect(sx, yy, rows * sc, rh, stroke=EDGE, sw=0.6)
            yy += rh + 2
        for v in sorted({0, focus, rows - 1}):
            svg.text(sx + (v + 0.5) * sc, yy + 10, str(v), size=SMALL_SIZE - 1, anchor="middle", fill=MUTED)
        off = step * len(mine) - sum(copies[tid] for tid in mine)
        if sharers == 1:
            svg.text(sx + (focus + 1) * sc, yy + 26, f"{off} predicated off (c > {focus})", size=SMALL_SIZE, fill=BAD)
        else:
            svg.text(sx + rows * sc + 12, sy + 10 + rh + 2 + 8, f"{off} predicated off (c > {focus})",
                     size=SMALL_SIZE, fill=BAD)
            svg.text(sx + rows * sc + 12, sy + 10 + 3 * (rh + 2) + 2, f"c = {rows} … {N - 1}: no slots",
                     size=SMALL_SIZE, fill=MUTED)
        svg.text(px + 14, top + ph - 14, f"{step} unrolled `cp.async` slots a thread; at most {most} copy",
                 size=SMALL_SIZE + 1, weight="bold", fill=BAD if sharers == 1 else GOOD)

    # A's buffer, to scale, and x
    top2, ph2 = top + ph + 14, 278
    panel(svg, 16, top2, pw, ph2, "SHARED MEMORY: sA, ROWS 68 FLOATS APART (TO SCALE)")
    read = 4 * ((n - 1) // 4 + 1)   # columns 0 … read - 1: the panels j0 = 0, 4, 8 read four each

    def buffer(x, y, rows):
        """sA of `rows` rows at stride 68: A's rows 0 … n-1 copied a float at a time up to the diagonal."""
        svg.rect(x + N * E, y, (stride - N) * E, rows * E, fill="url(#hatch)")
        svg.rect(x, y, N * E, rows * E, fill=A_EMPTY)
        svg.poly(staircase(x, y, E, lower_edge, rows=n), fill=A_USED)
        tile_lines(svg, x, y, E, N, rows=rows)
        svg.rect(x, y, N * E, rows * E, stroke=EDGE, sw=0.8, dash="3,2")
        svg.poly(staircase(x, y, E, lower_edge, rows=n), fill="none", stroke=EDGE, sw=1)
        svg.rect(x, y, stride * E, rows * E, stroke=EDGE, sw=1)
        svg.rect(x + 1, y + n * E + 1, read * E - 2, (rows - n) * E - 2, stroke=HILITE, sw=1.4, dash="4,2")
        ticks_top(svg, x, y, E, values=(0, n, N))
        ticks_left(svg, x, y, E, values=(0, rows - 1))

    by = top2 + 70
    for x, rows in ((16 + 44, N), (16 + 270, 16)):
        svg.text(x, by - 24, STEP30_INSTANCE[rows], size=SMALL_SIZE + 1, weight="bold")
        buffer(x, by, rows)
        svg.text(x, by + rows * E + 18, f"`sA[{rows} · {stride}]`: {rows * stride * 4:,} B a block",
                 size=SMALL_SIZE + 1)
    x = 16 + 270
    for i, line in enumerate(["a quarter of step 29's", "", f"dashed, in both: rows {n} and on,",
                              f"columns 0-{read - 1}: read by the rows", "past n at each panel, never", "written"]):
        svg.text(x, by + 16 * E + 36 + i * 16, line, size=SMALL_SIZE + 1 if i < 2 else SMALL_SIZE,
                 fill=HILITE if i == 2 else MUTED)

    px = 16 + pw + 16
    panel(svg, px, top2, pw, ph2, f"REGISTERS: x IN THE {T} THREADS OF A COLUMN (T = {T})")
    cw, gy = 22, top2 + 88
    for rows, gx in ((N, px + 62), (16, px + 62 + 8 * cw + 92)):
        cells = rows // T
        svg.text(gx - 40, top2 + 46, STEP30_INSTANCE[rows], size=SMALL_SIZE + 1, weight="bold")
        svg.text(gx - 40, top2 + 62, f"`float x[{cells}]`", size=SMALL_SIZE + 1)
        svg.text(gx - 6, gy - 4, "s", size=SMALL_SIZE, anchor="end", fill=MUTED)
        for q in range(cells):
            svg.text(gx + (q + 0.5) * cw, gy - 4, str(q), size=SMALL_SIZE, anchor="middle", fill=MUTED)
        for t in range(T):
            yy = gy + 2 + t * 14
            svg.text(gx - 6, yy + 10, f"t = {t}", size=SMALL_SIZE, anchor="end")
            for q in range(cells):
                row = t + T * q
                past = row >= n
                svg.rect(gx + q * cw, yy, cw, 12, fill=PAST_N if past else OWNERS[4], stroke="#ffffff", sw=0.8)
                svg.text(gx + (q + 0.5) * cw, yy + 9.5, str(row), size=SMALL_SIZE - 2, anchor="middle", fill=INK)
    ly = gy + 2 + T * 14 + 20
    for i, line in enumerate([f"A cell is a row: thread t's `x[s]` is row t + {T}s.",
                              f"{N // T} rows a thread in step 29, {16 // T} in step 30; before n = {n}, in both:",
                              f"rows t and t + {T} for t < {n - T}, t alone for t ≥ {n - T}. A row past n: 0 from",
                              "`load_column`, a 16-byte load and 4 `fmaf` at each panel, no store."]):
        svg.text(px + 14, ly + i * 15, line, size=SMALL_SIZE, fill=INK if i < 2 else MUTED)

    up29, up30 = panel_updates(N), panel_updates(16)
    assert len(up29) == len(up30)
    j0s = ", ".join(str(4 * i) for i in range(len(up29)))
    notes(svg, [f"Both leave the panel loop at j0 = {4 * len(up29)} ≥ n: panels j0 = {j0s}, of the {N // 4} "
                f"unrolled in step 29 and the {16 // 4} in step 30.",
                f"At them a thread runs its rows' update (a 16-byte load of A and 4 `fmaf`) "
                f"{' + '.join(map(str, up29))} = {sum(up29)} times in step 29, "
                f"{' + '.join(map(str, up30))} = {sum(up30)} in step 30.",
                "The rows before n take the same terms in the same order: X is step 29's, bit for bit."],
          top2 + ph2 + 26)
    legend(svg, [("box", OWNERS[0], "thread 4r (step 29: r)"), ("box", OWNERS[1], "4r + 1"),
                 ("box", OWNERS[2], "4r + 2"), ("box", OWNERS[3], "4r + 3"), ("box", SLOT_OFF, "slot predicated off"),
                 ("edge", HILITE, f"row {focus}"),
                 ("box", A_USED, "A in sA"), ("dash", EDGE, "not written"), ("hatch", None, "padding"),
                 ("dash", HILITE, "read, never written"), ("box", OWNERS[4], "x: a row before n"),
                 ("box", PAST_N, "x: a row past n, never stored")], h - 62)
    return svg


# --- step 31: the 64-row copy of single floats by warps ----------------------------------------------------------

# test-backend-ops' A {42,42,5,2}, B {10,42,5,2}: n = 42, k = 10; split_for gives T = 8, 8 columns a block
STEP31_N, STEP31_K, STEP31_T, STEP31_BATCH = 42, 10, 8, (5, 2)
STEP31_COLUMNS = 8                  # columns of B a block solves
STEP31_WARP = 32
STEP31_SECTOR = 32                  # bytes in an L1 sector
STEP31_ALIGN = 256                  # cudaMalloc's alignment: where matrix 0 starts
STEP31_NCU = ROOT / "docs" / "results" / "h100-2026-12-07-warp-rows-ncu.txt"


def copy_by_warps(tid, n=STEP31_N, threads=STEP30_THREADS, rows=N):
    """Step 31's `copy_a` in the 64-row instance with single floats: thread tid's unrolled slots, in issue order, as
    (row, column, whether it copies); the warp leaves at its first row past n."""
    warps, warp, lane = threads // STEP31_WARP, tid // STEP31_WARP, tid % STEP31_WARP
    slots = []
    for r in range(0, rows, warps):
        row = r + warp
        if row >= n:
            break
        for j in range(0, rows, STEP31_WARP):
            c = j + lane
            slots.append((row, c, c <= row))
    return slots


def step31_instructions(step, n=STEP31_N, threads=STEP30_THREADS):
    """The block's `cp.async` warp instructions that have an active lane: {(warp, slot): [(lane, row, column)]}."""
    instr = {}
    for tid in range(threads):
        if step == 30:
            row, slots = copy_by_rows(N, tid, n=n, threads=threads)
            slots = [(row, c, on) for c, on in slots]
        else:
            slots = copy_by_warps(tid, n=n, threads=threads)
        for i, (row, c, on) in enumerate(slots):
            if on:
                instr.setdefault((tid // STEP31_WARP, i), []).append((tid % STEP31_WARP, row, c))
    copied = sorted((row, c) for lanes in instr.values() for _, row, c in lanes)
    assert copied == [(r, c) for r in range(n) for c in range(r + 1)], "each entry on or below the diagonal once"
    return instr


def sectors_of(lanes, base, n=STEP31_N):
    """The 32-byte sectors one request touches: those of its active lanes' 4-byte reads, A at byte `base`."""
    return sorted({(base + (row * n + c) * 4) // STEP31_SECTOR for _, row, c in lanes})


def step31_measured():
    """Nsight Compute's ldgsts requests and sectors, and the grid, of each step at n = 42, k = 10, 5 x 2."""
    text = STEP31_NCU.read_text()
    parts = re.split(r"^=== step (\d+), n = (\d+), k = (\d+), (\d+) x (\d+) matrices.*$", text, flags=re.M)
    found = {}
    for i in range(1, len(parts), 6):
        step, n, k, ne2, ne3 = (int(v) for v in parts[i:i + 5])
        if (n, k, (ne2, ne3)) != (STEP31_N, STEP31_K, STEP31_BATCH):
            continue
        body = parts[i + 5]
        grid = re.search(r"\((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\)", body)
        metric = {what: int(re.search(rf"^\s*l1tex__t_{what}_pipe_lsu_mem_global_op_ldgsts_cache_access\.sum\s+"
                                      r"(?:sector\s+)?([\d,]+)\s*$", body, flags=re.M).group(1).replace(",", ""))
                  for what in ("requests", "sectors")}
        found[step] = dict(metric, blocks=math.prod(int(v) for v in grid.groups()[:3]),
                           threads=math.prod(int(v) for v in grid.groups()[3:]))
    assert sorted(found) == [30, 31], found
    return found


def draw_step31(s):
    h = 752
    svg = Svg(WIDTH, h)
    frame(svg, s["title"], s["caption"])
    n, k, T, threads = STEP31_N, STEP31_K, STEP31_T, STEP31_COLUMNS * STEP31_T
    warps = threads // STEP31_WARP
    matrices, groups = math.prod(STEP31_BATCH), -(-k // STEP31_COLUMNS)
    bases = [m * n * n * 4 for m in range(matrices)]   # A's matrices, contiguous from byte 0
    assert bases[0] % STEP31_ALIGN == 0
    measured = step31_measured()
    assert all(measured[st]["blocks"] == matrices * groups and measured[st]["threads"] == threads for st in (30, 31))
    svg.text(24, 58, f"one block at n = {n} (test-backend-ops' A {{{n},{n},{STEP31_BATCH[0]},{STEP31_BATCH[1]}}}, "
                     f"B {{{k},{n},{STEP31_BATCH[0]},{STEP31_BATCH[1]}}}: k = {k}, T = {T}, {STEP31_COLUMNS} columns, "
                     f"{threads} threads = {warps} warps), single-float copies")
    cell, sub = 7, 1.5        # an entry of the 42 x 42 triangle; a float of a drawn sector
    top, pw = 74, 456
    ph = 76 + n * cell + 26 + 66 + 18 + 16   # triangle, sectors, the block's counts
    focus = {30: (0, 5), 31: (1, n - 1)}   # step 30: warp 0's slot c = 5; step 31: warp 1 at row 41
    per_block, totals, instrs = {}, {}, {}
    for p, step in enumerate((30, 31)):
        px = 16 + p * (pw + 16)
        instr = instrs[step] = step31_instructions(step, threads=threads)
        panel(svg, px, top, pw, ph, "STEP 30: A THREAD PER ROW" if step == 30 else "STEP 31: A WARP PER ROW")
        rule = ("`copy_a`: thread r walks the 64 column slots of row r, `c <= row`" if step == 30 else
                f"`copy_a`: warp w copies rows w, w + {warps}, …; lane l columns l and l + {STEP31_WARP}")
        svg.text(px + 14, top + 42, rule, size=SMALL_SIZE + 1)

        # the triangle, coloured by the warp that copies each entry
        warp_of = {(row, c): w for (w, _), lanes in instr.items() for _, row, c in lanes}
        w0 = focus[step][0]
        if step == 30:   # slot j, column c = j
            i0 = focus[step][1]
        else:            # the warp's first instruction at the row
            i0 = min(i for (w, i), lanes in instr.items() if w == w0 and lanes[0][1] == focus[step][1])
        shown = [instr[(w0, i0)]] + ([instr[(w0, i0 + 1)]] if step == 31 and (w0, i0 + 1) in instr else [])
        assert all(lanes[0][1] == focus[31][1] for lanes in shown) if step == 31 else len(shown) == 1
        lit = {(row, c): q for q, lanes in enumerate(shown) for _, row, c in lanes}
        gx, gy = px + 40, top + 76
        for (r, c), w in sorted(warp_of.items()):
            fill = OWNERS[w] if (r, c) not in lit else HILITE if lit[(r, c)] == 0 else tint(HILITE, 0.55)
            svg.rect(gx + c * cell, gy + r * cell, cell, cell, fill=fill, stroke="#ffffff", sw=0.4)
        svg.poly(staircase(gx, gy, cell, lower_edge, rows=n), fill="none", stroke=EDGE, sw=1)
        for v in (0, 8, 16, 24, 32, n - 1):
            svg.text(gx + (v + 0.5) * cell, gy - 4, str(v), size=SMALL_SIZE - 1, anchor="middle", fill=MUTED)
            svg.text(gx - 4, gy + (v + 0.5) * cell + 3.5, str(v), size=SMALL_SIZE - 1, anchor="end", fill=MUTED)
        svg.text(gx - 4, gy - 4, "c", size=SMALL_SIZE, anchor="end", fill=MUTED)
        svg.text(gx - 26, gy + n * cell / 2, "row", size=SMALL_SIZE, anchor="middle", fill=MUTED, rotate=-90)

        # who copies what, and the instruction drawn, in the empty half above the diagonal
        rows_of = [sorted({row for (w, _), lanes in instr.items() if w == ww for _, row, _ in lanes})
                   for ww in range(warps)]
        lanes0 = [lane for lane, _, _ in shown[0]]
        cols0 = sorted({c for _, _, c in shown[0]})
        rows0 = sorted({row for _, row, _ in shown[0]})
        if step == 30:
            idle = [tid for tid in range(threads) if not copy_by_rows(N, tid, n=n, threads=threads)[1]]
            assert all(rows_of[ww] == list(range(STEP31_WARP * ww, min(n, STEP31_WARP * (ww + 1))))
                       for ww in range(warps))
            assert idle == list(range(n, threads)) and cols0 == [focus[30][1]]
            lines = [f"warp {ww}: threads {rows_of[ww][0]}-{rows_of[ww][-1]}, rows {rows_of[ww][0]}-{rows_of[ww][-1]}"
                     for ww in range(warps)]
            lines += [f"threads {idle[0]}-{idle[-1]}: rows ≥ n, no slots", "",
                      f"slot c = {cols0[0]} of warp {w0}: lanes {lanes0[0]}-{lanes0[-1]}",
                      f"read column {cols0[0]} of rows {rows0[0]}-{rows0[-1]}:",
                      f"{len(rows0)} rows, {n * 4} B apart"]
        else:
            assert all(rows_of[ww] == list(range(ww, n, warps)) for ww in range(warps))
            lines = [f"warp {ww}: rows {rows_of[ww][0]}, {rows_of[ww][1]}, … {rows_of[ww][-1]} "
                     f"({len(rows_of[ww])} rows)" for ww in range(warps)]
            lines += ["each leaves at its first row ≥ n", "",
                      f"warp {w0} at row {rows0[0]}: lanes {lanes0[0]}-{lanes0[-1]} read",
                      f"columns {cols0[0]}-{cols0[-1]}, {len(cols0) * 4} B in a row; then"]
            if len(shown) > 1:
                cols1 = sorted({c for _, _, c in shown[1]})
                lanes1 = [lane for lane, _, _ in shown[1]]
                lines.append(f"lanes {lanes1[0]}-{lanes1[-1]}, columns {cols1[0]}-{cols1[-1]}")
        tx = gx + 18 * cell
        for i, line in enumerate(lines):
            y = gy + 12 + i * 16
            assert tx >= gx + ((y + 4 - gy) // cell + 1) * cell + 4, "text over the triangle"
            assert tx + markup_width(line, SMALL_SIZE + 1) <= px + pw - 8, line
            svg.text(tx, y, line, size=SMALL_SIZE + 1)

        # the drawn instruction's sectors at matrix 0 (byte 0), one box of 8 floats each
        sy = gy + n * cell + 26
        svg.text(px + 14, sy, f"its {STEP31_SECTOR}-byte sectors (8 floats; filled: read), A at byte {bases[0]}:",
                 size=SMALL_SIZE + 1)
        sw_ = 8 * sub + 2
        strips = [(lanes, sectors_of(lanes, bases[0])) for lanes in shown]
        first = strips[0][1][0]
        for q, (lanes, secs) in enumerate(strips):
            yy = sy + 10 + q * 20
            read = {(bases[0] + (row * n + c) * 4) // 4 for _, row, c in lanes}
            x0 = px + 14
            for i, sct in enumerate(secs):
                sx = x0 + (i if step == 30 else sct - first) * sw_
                for f in range(8):
                    fl = sct * 8 + f
                    if fl in read:
                        svg.rect(sx + f * sub, yy, sub, 12, fill=HILITE if q == 0 else tint(HILITE, 0.55))
                svg.rect(sx, yy, 8 * sub, 12, stroke=EDGE, sw=0.6)
            end = x0 + (len(secs) if step == 30 else secs[-1] - first + 1) * sw_
            assert end <= px + pw - 8
            if step == 30:   # sectors of different rows, drawn side by side
                what, wx, wy = f"{len(lanes)} lanes, {len(secs)} rows: {len(secs)} sectors", x0, yy + 28
            else:            # neighbouring sectors, drawn where they lie
                what, wx, wy = f"lanes {lanes[0][0]}-{lanes[-1][0]}: {len(secs)} sectors", end + 6, yy + 10
            assert wx + markup_width(what, SMALL_SIZE + 1) <= px + pw - 8, what
            svg.text(wx, wy, what, size=SMALL_SIZE + 1, fill=BAD if step == 30 else GOOD)

        # the block's requests and sectors: matrix 0 drawn; every matrix of the launch summed
        reqs = [sum(1 for (w, _) in instr if w == ww) for ww in range(warps)]
        secs = [sum(len(sectors_of(lanes, b)) for lanes in instr.values()) for b in bases]
        per_block[step] = (sum(reqs), secs)
        totals[step] = (sum(reqs) * matrices * groups, sum(secs) * groups)
        by = sy + 66
        svg.text(px + 14, by, f"requests a block: {' + '.join(map(str, reqs))} = {sum(reqs)} warp instructions",
                 size=SMALL_SIZE + 1, weight="bold", fill=BAD if step == 30 else GOOD)
        kinds = sorted(set(secs))
        if len(kinds) == 1:
            sec_text = f"sectors a block: {kinds[0]}, one for each float copied"
            assert kinds[0] == n * (n + 1) // 2
        else:
            at = [sorted({b % STEP31_SECTOR for b, v in zip(bases, secs) if v == kv}) for kv in kinds]
            assert [len(a) for a in at] == [1] * len(kinds)
            sec_text = "sectors a block: " + ", ".join(
                f"{kv} (A at {a[0]} B mod {STEP31_SECTOR})" if i == 0 else f"{kv} (at {a[0]})"
                for i, (kv, a) in enumerate(zip(kinds, at)))
        for line in (sec_text, f"requests a block: {' + '.join(map(str, reqs))} = {sum(reqs)} warp instructions"):
            assert markup_width(line, SMALL_SIZE + 1) <= pw - 22, line
        svg.text(px + 14, by + 18, sec_text, size=SMALL_SIZE + 1, weight="bold", fill=BAD if step == 30 else GOOD)

    # against what Nsight Compute measured for the launch's blocks
    blocks = matrices * groups
    for st in (30, 31):
        assert totals[st][0] == measured[st]["requests"], (st, totals[st], measured[st])
        assert totals[st][1] == measured[st]["sectors"], (st, totals[st], measured[st])
    r30, r31 = per_block[30][0], per_block[31][0]
    s31 = per_block[31][1]
    s31_kinds = sorted(set(s31))
    # the title's and caption's numbers
    rows_read = {st: max(len({row for _, row, _ in lanes}) for lanes in instrs[st].values()) for st in (30, 31)}
    assert rows_read == {30: STEP31_WARP, 31: 1}
    assert f"n = {n} " in s["caption"] and f"{r31} requests a block, not {r30}" in s["caption"]
    assert f"{'-'.join(map(str, s31_kinds))} sectors, not {per_block[30][1][0]}" in s["caption"]
    s31_sum = " + ".join(f"{s31.count(v)} × {v}" for v in s31_kinds)
    ny = notes(svg, [
        f"Nsight Compute, the launch's {blocks} blocks ({matrices} matrices × {groups} groups of {STEP31_COLUMNS} "
        f"columns): `cp.async` requests {measured[30]['requests']:,} → {measured[31]['requests']:,}: "
        f"{blocks} × {r30} and {blocks} × {r31}.",
        f"Sectors {measured[30]['sectors']:,} → {measured[31]['sectors']:,}, as the count gives: "
        f"{groups} × {matrices} × {per_block[30][1][0]} in step 30, {groups} × ({s31_sum}) in step 31, "
        f"{measured[30]['sectors'] / measured[31]['sectors']:.1f} times fewer.",
    ], top + ph + 26)
    model = [f"The count: a request touches the distinct {STEP31_SECTOR}-byte sectors of the addresses its active "
             f"lanes read (4 bytes each); A's rows lie {n * 4} B apart,",
             f"its {matrices} matrices {n * n * 4:,} B apart from a {STEP31_ALIGN}-byte boundary (byte 0 here); "
             f"both groups of columns copy the same A."]
    for i, line in enumerate(model):
        svg.text(24, ny + i * 15, line, size=SMALL_SIZE, fill=MUTED)
    for line, size in [(l, TEXT_SIZE) for l in (s["caption"], svg.desc)] + [(l, SMALL_SIZE) for l in model]:
        assert markup_width(line, size) <= WIDTH - 48, line
    assert ny + 15 * len(model) + 12 <= h - 62 - 11
    legend(svg, [("box", OWNERS[0], "warp 0 copies it"), ("box", OWNERS[1], "warp 1"),
                 ("box", HILITE, "one warp instruction's floats"),
                 ("box", tint(HILITE, 0.55), "step 31: the same warp's next (c ≥ 32)")], h - 62)
    return svg


STEP_SPECS = [
    {
        "name": "01_shared_memory", "family": "01", "draw": draw_warp_step,
        "title": "Step 01 · shared-memory baseline: who holds what",
        "launch": WARP_LAUNCH, "copy": "all", "a_copy": "all, a float per thread",
        "stride": 64, "read": "row",
        "shared_notes": ["A and X both in shared memory"],
        "notes": [
            "Row r: lane j multiplies `sA[r][j]`·`sXt[w][j]` and `sA[r][32+j]`·`sXt[w][32+j]` (terms j < r): "
            "consecutive words.",
            "The warp sums the 32 products in a 5-level butterfly; lane 0 writes x_r back to `sXt[w][r]`.",
            "Lane j copies B[j][w] and B[32+j][w] into sXt at the start, and X from there at the end.",
        ],
        "caption": "Step 01: A and the transposed X in shared memory; each row of a column is a dot product over a warp.",
    },
    {
        "name": "02_register_storage", "family": "02", "draw": draw_warp_step,
        "title": "Step 02 · the column of X in registers: who holds what",
        "launch": WARP_LAUNCH, "copy": "all", "a_copy": "all, a float per thread",
        "stride": 64, "read": "row",
        "shared_notes": ["only A in shared memory"],
        "notes": [
            LOADS_02,
            "Row r: lane j reads `sA[r][j]` and `sA[r][32+j]` (consecutive words, no conflict); a butterfly sums the warp.",
            "The owner of row r, lane r mod 32, updates its register: x = (x − sum) / a_rr.",
        ],
        "caption": "Step 02: lane i of warp w keeps rows i and 32+i of column w in two registers; A alone is shared.",
    },
    {
        "name": "03_loop_splitting", "family": "02", "draw": draw_warp_step,
        "title": "Step 03 · the row loop split at 32: who holds what",
        "launch": WARP_LAUNCH, "copy": "all", "a_copy": "all, a float per thread",
        "stride": 64, "read": "row",
        "shared_notes": ["only A in shared memory"],
        "notes": [
            LOADS_02,
            "Rows 0-31 touch only `x_low`, rows 32-63 update only `x_high`: the row loop splits at 32, no per-row test.",
            "Row r ≥ 32: lane j reads `sA[r][j]`·`x_low` and `sA[r][32+j]`·`x_high`; a butterfly; lane r − 32 updates.",
        ],
        "caption": "Step 03: the map of step 02; the row loop is split where x_low ends and x_high begins.",
    },
    {
        "name": "04_fmaf_reciprocal", "family": "02", "draw": draw_warp_step,
        "title": "Step 04 · reciprocal and fmaf: who holds what",
        "launch": WARP_LAUNCH, "copy": "all", "a_copy": "all, a float per thread",
        "stride": 64, "read": "row",
        "shared_notes": ["only A in shared memory"],
        "notes": [
            SAME_02,
            "Products accumulate with explicit `fmaf`; the owner lane updates x = fmaf(sum, −d, x·d), d = 1/a_rr.",
        ],
        "caption": "Step 04: the map of step 03; the diagonal update becomes a reciprocal and an fmaf.",
    },
    {
        "name": "05_const_correctness", "family": "02", "draw": draw_warp_step,
        "title": "Step 05 · const correctness: who holds what",
        "launch": WARP_LAUNCH, "copy": "all", "a_copy": "all, a float per thread",
        "stride": 64, "read": "row",
        "shared_notes": ["only A in shared memory"],
        "notes": [
            "Map, reads and arithmetic as in step 04: lane i holds rows i and 32+i of column w; rows are dot products.",
            "Every variable that never changes is const: besides loop counters and row sums, only `x_low`, `x_high` change.",
        ],
        "caption": "Step 05: the map of steps 02-04; const marks everything but x_low, x_high, row sums and loop counters.",
    },
    {
        "name": "06_right_looking", "family": "06", "draw": draw_warp_step,
        "title": "Step 06 · right-looking substitution: who holds what",
        "launch": WARP_LAUNCH, "copy": "all", "a_copy": "all, a float per thread",
        "stride": 64, "read": "column",
        "shared_notes": ["only A in shared memory"],
        "notes": [
            "Step j: lane j mod 32 scales its register by 1/a_jj, and `__shfl_sync` hands x_j to all 32 lanes.",
            "Lane i subtracts `sA[i][j]`·x_j from `x_low` (if i > j) and `sA[32+i][j]`·x_j from `x_high`: column j of A.",
            "Row stride 64: the 32 lanes' words lie 64 apart, all in bank j mod 32: a 32-way conflict, 32 passes a load.",
        ],
        "caption": "Step 06: right-looking: registers as before, but each step reads a column of A, 32-way conflicted.",
    },
    {
        "name": "07_padded_rows", "family": "06", "draw": draw_warp_step,
        "title": "Step 07 · padded rows: who holds what",
        "launch": WARP_LAUNCH, "copy": "all", "a_copy": "all, a float per thread",
        "stride": 65, "read": "column",
        "shared_notes": ["one pad word per row"],
        "notes": [
            "Registers and order as in step 06: step j broadcasts x_j, lane i updates rows i and 32+i with column j of A.",
            "Rows 65 floats apart (one pad word each): lane i's word lies in bank (i + j) mod 32: 32 banks, one pass.",
            "A fixed 65 rather than n + 1: n = 63 would give 64, 32-way again (see banks_06_07.svg).",
        ],
        "caption": "Step 07: step 06 with A's rows padded to 65 floats in shared memory: a column read is conflict-free.",
    },
    {
        "name": "08_thread_per_column", "draw": draw_thread_step,
        "title": "Step 08 · one thread per column: who holds what",
        "launch": THREAD_LAUNCH_ONE_WARP, "block": "block: one warp (k ≤ 32), thread c = column c",
        "copy": "all", "a_copy": "all, a float per thread",
        "stride": 65, "read": "broadcast",
        "shared_notes": ["stride 65 kept from step 07"],
        "notes": [
            "Thread c loads B[r][c] into `x[r]`, r = 0..63 (a warp reads a row of B at once), and stores X[r][c] at the end.",
            "Step j: `x[j] *= 1/a_jj`, then `x[i] -= a_ij·x[j]` for every i > j: a solved value never leaves its thread.",
            "All threads read the same a_ij at once: a broadcast, conflict-free; step 07's padding no longer matters.",
        ],
        "caption": "Step 08: one thread per column, its 64 rows in registers; A in shared memory, read by broadcast.",
    },
    {
        "name": "09_warps_per_block", "draw": draw_thread_step,
        "title": "Step 09 · a warp per 32 columns: who holds what",
        "launch": THREAD_LAUNCH, "copy": "all", "a_copy": "all, a float per thread",
        "stride": 65, "read": "broadcast",
        "shared_notes": ["stride 65 kept from step 07"],
        "notes": [
            "Map and reads as in step 08; a block has 1, 2 or 4 warps (the template's warps), one per 32 columns.",
            "All the block's threads share the copy of A: a thread of a 2-warp block copies half as many floats.",
            "At k ≤ 32 the block is one warp and the kernel is step 08's; k = 64 (Qwen3-Next) now runs.",
        ],
        "caption": "Step 09: step 08's map in blocks of one warp per 32 columns, so k reaches 128.",
    },
    {
        "name": "10_aligned_rows", "draw": draw_thread_step,
        "title": "Step 10 · rows of 64 floats: who holds what",
        "launch": THREAD_LAUNCH, "copy": "all", "a_copy": "all, a float per thread",
        "stride": 64, "read": "broadcast",
        "shared_notes": ["stride 64: rows 16-byte aligned"],
        "notes": [
            "Map and reads as in step 09; a row of sA takes 64 floats, so at n = 64 element idx lands at `sA[idx]`.",
            "Every row starts on a 16-byte boundary: the compiler may merge any four of a row's reads into one load.",
            "A broadcast has no bank conflict to avoid, so step 07's padding only cost index arithmetic.",
        ],
        "caption": "Step 10: step 09 with A's rows 64 floats apart in shared memory.",
    },
    {
        "name": "11_panel_loads", "draw": draw_thread_step,
        "title": "Step 11 · panels read in PTX: who holds what",
        "launch": THREAD_LAUNCH, "copy": "all", "a_copy": "all, a float per thread",
        "stride": 64, "read": "panel",
        "shared_notes": ["stride 64: rows 16-byte aligned"],
        "notes": [
            "Map as in step 10. Rows are solved in panels of 4 columns: the 4×4 block on the diagonal, then every row below.",
            "Row i takes the panel's 4 terms from one 16-byte `ld.shared.v4` (inline PTX) of a_i,j0..j0+3.",
            "At n = 64 step 10's compiler had merged its reads into these 544 loads; the PTX changes the registers (127) and the order.",
            "In the run-time instance (any other n) step 10's machine code reads A in 2,080 single loads, step 11's in 544.",
        ],
        "caption": "Step 11: the map of step 10; A read in 16-byte panels of 4 columns, the load written in PTX.",
    },
    {
        "name": "12_lower_triangle", "draw": draw_thread_step,
        "title": "Step 12 · only the lower triangle: who holds what",
        "launch": THREAD_LAUNCH, "copy": "lower", "a_copy": "lower triangle, per float",
        "stride": 64, "read": "panel",
        "shared_notes": ["upper triangle never written"],
        "notes": [
            "Map and reads as in step 11. The copy skips every element above the diagonal: 2,080 of 4,096 floats.",
            "The rest of sA is never written; a diagonal block's 16-byte load reads a few such words and ignores them.",
            "In global memory row r needs only its first r/8 + 1 sectors of 32 bytes: 56 % of A's sectors.",
        ],
        "caption": "Step 12: step 11, copying only A's lower triangle into shared memory.",
    },
    {
        "name": "13_cp_async", "draw": draw_thread_step,
        "title": "Step 13 · cp.async, a float at a time: who holds what",
        "launch": THREAD_LAUNCH, "copy": "lower", "a_copy": "lower triangle, 4-byte copies",
        "stride": 64, "read": "panel",
        "shared_notes": ["filled by cp.async, 4 bytes each"],
        "notes": [
            "Map and reads as in step 12. Each float of the lower triangle goes with a 4-byte cp.async: no register.",
            "A thread's copies are all in flight at once; one wait before the barrier covers them.",
            "The same entries as step 12, so every shape step 12 takes is still taken.",
        ],
        "caption": "Step 13: step 12's layout, filled with cp.async, a float at a time, all in flight at once.",
    },
    {
        "name": "14_chunk_copies", "draw": draw_thread_step,
        "title": "Step 14 · cp.async in 16-byte chunks: who holds what",
        "launch": THREAD_LAUNCH, "copy": "chunks", "a_copy": "16-byte chunks, cp.async",
        "stride": 64, "read": "panel",
        "shared_notes": ["filled in 16-byte chunks"],
        "notes": [
            "Map and reads as in step 13. A is copied in 16-byte chunks with cp.async, four floats each.",
            "Thread tid takes every (block size)-th chunk; chunks wholly above the diagonal are skipped: 544 of 1,024 go.",
            "A matrix must start on a 16-byte boundary (the launcher refuses others); n % 4 ≠ 0 goes float by float.",
        ],
        "caption": "Step 14: step 13's layout, filled with cp.async in 16-byte chunks.",
    },
    {
        "name": "15_launch_bounds", "draw": draw_thread_step,
        "title": "Step 15 · launch bounds: who holds what",
        "launch": THREAD_LAUNCH, "copy": "chunks", "a_copy": "16-byte chunks, cp.async",
        "stride": 64, "read": "panel",
        "shared_notes": ["filled in 16-byte chunks"],
        "notes": [
            "Map, copy and reads as in step 14: the data layout does not change.",
            "`__launch_bounds__(32·warps, 16 / warps)`: the compiler is told an SM should hold 16 warps: ≤ 128 registers.",
            "The occupancy stays step 14's; the machine code is scheduled anew under the bound.",
        ],
        "caption": "Step 15: step 14 with launch bounds of 16 warps per SM.",
    },
    {
        "name": "16_threads_per_column", "draw": draw_step13,
        "title": "Step 16 · T threads per column: who holds what",
        "launch": ("grid: (matrices, ⌈k/8⌉) · block: 8 columns × T = 8 threads · thread t of a column: rows t, t+8, … "
                   "· k = 8"),
        "copy": "chunks", "a_copy": "16-byte chunks, cp.async", "stride": 64,
        "shared_notes": ["a warp's 4 columns: same words, no saving"],
        "notes": [
            "Panel j0: a column's 8 threads fetch rows j0..j0+3 from their owners (`__shfl_sync`, width 8); each solves "
            "the 4×4.",
            "Then thread t updates its own rows below the panel, one 16-byte load of row i each: 8 threads, 8 rows.",
            "Rows stay 64 floats apart: the 8 rows read at once start in the same 4-bank group (step 17 moves them).",
            "T by shape: k ≤ 32 takes T = 8 (8 columns), wider k T = 2 (64); large batches T = 2 (32 columns) or T = 1.",
        ],
        "caption": "Step 16: T threads share a column (T = 8 drawn); T = 2 or T = 1 for wider k or larger batches.",
    },
    {
        "name": "17_conflict_free_rows", "draw": draw_step13,
        "title": "Step 17 · rows 68 floats apart: who holds what",
        "launch": ("grid: (matrices, ⌈k/8⌉) · block: 8 columns × T = 8 threads · thread t of a column: rows t, t+8, … "
                   "· k = 8"),
        "copy": "chunks", "a_copy": "16-byte chunks, cp.async", "stride": 68,
        "shared_notes": ["a warp's 4 columns: same words, no saving"],
        "notes": [
            "Map, threads and arithmetic as in step 16; only the row stride of sA changes, 64 → 68 floats (17 chunks).",
            "Row r + 1 starts four banks after row r: the 8 rows a column's threads read at once fall in 8 groups.",
            "T = 1 reads one row per warp (a broadcast), as before; a block holds 1 KB more.",
        ],
        "caption": "Step 17: step 16 with A's rows 68 floats apart (T = 8 drawn).",
    },
    {
        "name": "18_row_per_thread_copy", "draw": draw_step13,
        "title": "Step 18 · a row of A per thread: who holds what",
        "launch": ("grid: (matrices, ⌈k/8⌉) · block: 8 columns × T = 8 threads · thread t of a column: rows t, t+8, … "
                   "· k = 8"),
        "copy": "chunks", "a_copy": "row r by thread r, cp.async", "stride": 68,
        "shared_notes": ["a warp's 4 columns: same words, no saving"],
        "notes": [
            "Map, layout and arithmetic as in step 17; only the copy of A changes (blocks of 64 or more threads, 4 | n).",
            "Thread r issues the cp.async of row r's 16-byte chunks up to the diagonal, each at a fixed offset:",
            "no division, remainder or row lookup per chunk, one compare with r; a warp copies 32 rows at once.",
        ],
        "caption": "Step 18: step 17 with A copied a row per thread (T = 8 drawn).",
    },
    {
        "name": "19_persistent_prefetch", "draw": draw_step14,
        "title": "Step 19 · persistent blocks, prefetch: who holds what",
        "launch": ("persistent when T = 1 (k > 32, a large batch): grid = G resident blocks · thread c = column c · "
                   "k = 64"),
        "copy": "chunks", "a_copy": "cp.async chunks; B too",
        "shared_notes": ["2 buffers of A, 1 of B"],
        "notes": [
            "Each round: wait for this matrix's copies; each thread takes its column of B from sB; barrier; start the next",
            "matrix's copies (A into the other buffer, in chunks taken in turn; B into sB); solve this one with T = 1; store X.",
            "Persistent only when the batch is at least twice what the GPU holds at once; otherwise step 18's kernel runs.",
        ],
        "caption": "Step 19: persistent blocks walk matrices m, m+G, …, copying the next A and B while solving this one.",
    },
    {
        "name": "20_any_alignment", "draw": draw_step20,
        "title": "Step 20 · any alignment: which layouts take 16-byte copies",
        "caption": "Step 20: 16-byte copies where every pointer and batch stride allows them; single floats, in the grid, "
                   "elsewhere.",
    },
    {
        "name": "21_persistent_threshold", "draw": draw_step21,
        "title": "Step 21 · where the persistent kernel runs",
        "caption": "Step 21: the persistent kernel only at n = 64 with 64 columns, from 15/16 of two rounds of its "
                   "resident blocks.",
    },
    {
        "name": "22_sixteen_byte_rows", "draw": draw_step22,
        "title": "Step 22 · 16-byte copies only where every row starts on a 16-byte boundary",
        "caption": "Step 22: every row of n floats starts on a 16-byte boundary only where 4 divides n; any other n "
                   "copies single floats.",
    },
    {
        "name": "23_device_choices", "draw": draw_step23,
        "title": "Step 23 · every switch counted in what the device reports",
        "caption": "Step 23: step 22's kernels, switched at the device's counts: on 132 SMs T = 1 from 396 matrices, "
                   "persistent from 990 to 6,336.",
    },
    {
        "name": "24_sixteen_row_instances", "draw": draw_step24,
        "title": "Step 24 · instances for n = 16: A's buffer and x sized to 16 rows",
        "caption": "Step 24: at n = 16 A's buffer, x and the row loops hold 16 rows; step 23's run-time instance "
                   "held 64, and updated the rows past n.",
    },
    {
        "name": "25_every_thread_copies", "draw": draw_step25,
        "title": "Step 25 · every thread of a block copies A",
        "caption": "Step 25: which warp of a 128-thread block copies each 16-byte chunk of A (n = 64): two warps "
                   "before, all four now.",
    },
    {
        "name": "26_blocked_solve", "draw": draw_step26,
        "title": "Step 26 · the blocked solve: a chain on the diagonal blocks, products below",
        "caption": "Step 26: block row i of X is B_i minus the products of the blocks left of the diagonal with "
                   "the rows solved, then the chain by L_ii.",
    },
    {
        "name": "27_streamed_block_rows", "draw": draw_step27,
        "title": "Step 27 · A streamed a block row at a time",
        "caption": "Step 27: past n = 64 a block holds X and two block rows of A; the next block row's copy is in "
                   "flight while it solves this one.",
    },
    {
        "name": "28_column_tiles", "draw": draw_step28,
        "title": "Step 28 · k past 128: one block per matrix and group of columns",
        "caption": "Step 28: the groups of columns that steps 16-27 already launch, now as many as the grid's "
                   "second dimension holds.",
    },
    {
        "name": "29_tensor_core_products", "draw": draw_step29,
        "title": "Step 29 · the products on the tensor cores: one tile, two ways",
        "caption": "Step 29: past n = 64 a tile's products take 3 mma.sync per 8 columns of A, operands split in "
                   "two TF32 parts, not 32 FFMA a lane.",
    },
    {
        "name": "30_sized_run_time_instances", "draw": draw_step30,
        "title": "Step 30 · run-time instances of 16, 32 and 64 rows: n = 11 launches the 16",
        "caption": "Step 30: at n = 11 the 16-row run-time instance, not the 64-row one: 4 copy slots a thread, not "
                   "64, and 2 rows of x, not 8.",
    },
    {
        "name": "31_warp_per_row_copy", "draw": draw_step31,
        "title": "Step 31 · the 64-row copy by warps: one warp instruction reads one row, not 32",
        "caption": "Step 31: at n = 42 a warp copies a row at a time, its lanes along the row: 52 requests a block, "
                   "not 74; 154-155 sectors, not 903.",
    },
]

EXTRA_FIGURES = [("banks_06_07.svg", draw_banks), ("left_right_looking_4x4.svg", draw_left_right)]


def write_all(check):
    """Draws every figure; writes them, or with check compares them with the committed ones."""
    for spec in STEP_SPECS:
        if not (STEPS / spec["name"] / "solve_tri.cu").exists():
            print(f"FAIL: steps/{spec['name']}/solve_tri.cu is missing: the figures no longer match the steps")
            return 1
    drawn = [(spec["name"] + ".svg", spec["draw"](spec).render()) for spec in STEP_SPECS]
    drawn += [(name, draw().render()) for name, draw in EXTRA_FIGURES]
    if check:
        stale = [name for name, content in drawn
                 if not (FIGURES / name).exists() or (FIGURES / name).read_bytes() != content.encode("utf-8")]
        if stale:
            print(f"FAIL: {len(stale)} figure(s) in docs/figures/ differ from what docs/tools/draw_figures.py draws: "
                  f"{', '.join(stale)}; run python3 docs/tools/draw_figures.py")
            return 1
        print(f"{len(drawn)} figures in docs/figures/ are as drawn")
        return 0
    FIGURES.mkdir(parents=True, exist_ok=True)
    for name, content in drawn:
        (FIGURES / name).write_bytes(content.encode("utf-8"))
    print(f"wrote {len(drawn)} figures to docs/figures/")
    return 0


def main():
    args = sys.argv[1:]
    if args not in ([], ["--check"]):
        print(__doc__.strip())
        return 2
    return write_all(args == ["--check"])


if __name__ == "__main__":
    sys.exit(main())
