#!/usr/bin/env python3
r"""Keeps the docs' diffs and timing tables equal to the code and the measurements.

A chapter never holds a hand copy of a diff or a number. It holds markers,
and this script fills the text between them:

  <!-- diff: 02_register_storage 03_loop_splitting -->
  ...the unified diff of the two steps' solve_tri.cu...
  <!-- /diff -->

  <!-- timing: 03_loop_splitting -->
  ...the timing table that step's test printed on the H200, read from
     docs/results/RUN-step-tests.log (the step against its predecessor)...
  <!-- /timing -->

  <!-- compare: 07_padded_rows -->
  ...a table of the step against the one before it, with cuBLAS and the
     empty kernel, at the report's shapes in both timing modes, read from
     the report's CSV (docs/results/RUN.csv)...
  <!-- /compare -->

  <!-- report: the PR's shape -->
  ...the section of the report's output (docs/results/RUN-report.txt) whose
     heading line starts with "== the PR's shape"...
  <!-- /report -->

  <!-- margins -->
  ...the noise margins per shape and timing mode: the largest difference that identical machine
     code showed in the committed report runs, rounded up to the next 0.5 %...

  <!-- shapes: h100-2026-12-07-sized-instances 29_tensor_core_products 30_sized_run_time_instances -->
  ...two steps at every shape of a committed run's report CSV (docs/results/RUN.csv, one shape_id per
     shape of its own), both modes, with the fastest step of each mode and the second step over it...
  <!-- /shapes -->

  <!-- previous-at: h100-2026-12-07-small-batch-experiments.txt A{64,64,8,32} B{64,64,8,32} -->
  ...every experiment of a committed log's "=== BINARY, against the previous step ===" sections
     at one shape: the step's and the variant's kernels, both modes' us/run of each, and the change...
  <!-- /previous-at -->

  <!-- ncu: pr -->, <!-- microbench -->, <!-- sass: 09_vector_panel_reads -->, <!-- steps -->,
  <!-- experiment: 12_packed_triangle+no_launch_bounds -->
  ...the Nsight Compute table at a report shape (docs/results/RUN-ncu-SHAPE.txt),
     the microbenchmarks' table (RUN-microbench.txt), or one step's section of
     the machine-code counts (RUN-sass.txt), or the README's table of steps
     (each step's one idea from its file's first comment, and its changed lines),
     or one experiment's variant against its step (RUN-experiments.txt)...

A figure inside a sentence is a marker too, filled with one value:

  <!--f:us:pr:07_padded_rows:graph-->4.30<!--/f-->        us/run at a report shape, b2b or graph
  <!--f:copy:large_batch:13_threads_per_column-->90.2<!--/f-->   % of the copy bandwidth (b2b)
  <!--f:ratio:pr:06_right_looking:05_const_correctness:b2b-->1.24<!--/f-->   one row's time over another's
  <!--f:change:pr:03_loop_splitting:b2b-->-2.8<!--/f-->   % change against the step above
  <!--f:res:pr:08_thread_per_column:registers_per_thread-->165<!--/f-->   a resource column of the CSV
  <!--f:nmse:pr:04_fmaf_reciprocal-->6.5e-12<!--/f-->   test-backend-ops' NMSE of the checked output
  <!--f:ncu:large_batch:06:shared bank conflicts, loads-->1009002063<!--/f-->   a row of an Nsight table
  <!--f:stall:pr:01:short_scoreboard-->5.41<!--/f-->     a stall reason, cycles per issued instruction
  <!--f:mb:shfl dependent:cycles-->26.00<!--/f-->          a microbenchmark row (cycles or ns)
  <!--f:sass:09_vector_panel_reads:64,1:LDS-->544<!--/f-->   an opcode count (or "total") of <64, 1>
  <!--f:copybw-->4.232<!--/f-->                             the run's copy bandwidth, TB/s
  <!--f:us@h100-2026-12-06:pr:23_device_choices:graph-->...<!--/f-->   any of the report's figures
                                                     above from another committed run's CSV
                                                     (a ratio then to three decimals)
  <!--f:grep:large-check.txt:elapsed (\d+) s-->199<!--/f-->  the first match of a regular expression's
                                                     group in docs/results/RUN-NAME (or in NAME itself,
                                                     where NAME names an earlier run: h200-DATE-...)

With --check it also fails when the docs no longer hang together:
  - a lesson page (docs/NN_name.md) has lost one of its sections, which come in this order:
    "## The idea", "## The picture", "## The change", "## The prediction", "## The result",
    "## Why: the evidence", "## What did not pay, and the limits", "## Exercises";
    or it has no evidence page (docs/evidence/NN_name.md) beside it, or never links to it;
  - a relative link of a page in docs/, docs/evidence/, docs/results/ or the README names a
    file that does not exist, or an anchor (#name) that its page has not: a heading's
    GitHub-style anchor, or an explicit <a id="name"></a>.

Run it after changing a kernel or committing new measurements:
    python3 docs/tools/sync_docs.py          # rewrite the docs in place
    python3 docs/tools/sync_docs.py --check  # exit 1 if any doc is stale or broken (a meson test)
    python3 docs/tools/sync_docs.py docs/08_thread_per_column.md   # only the files named
"""
import difflib
import functools
import subprocess
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUN = "h200-2026-12-02"  # the committed run the docs quote
STEP_LOG = ROOT / "docs" / "results" / f"{RUN}-step-tests.log"
REPORT_LOG = ROOT / "docs" / "results" / f"{RUN}-report.txt"
SHAPES = [("pr", "the PR's, 8 matrices, k = 6"), ("upstream_perf", "upstream perf, 16 matrices, k = 32"),
          ("qwen3_next", "Qwen3-Next, 256 matrices, k = 64"), ("qwen3_next_8k", "Qwen3-Next, 4,096 matrices"),
          ("qwen3_next_32k", "Qwen3-Next, 16,384 matrices"), ("large_batch", "16,384 matrices, k = 32"),
          ("kimi_linear", "Kimi-Linear, 1,024 matrices, n = k = 16"),
          ("backend_ops_n128", "test-backend-ops, 8 matrices, n = 128, k = 32"),
          ("backend_ops_n128_k128", "test-backend-ops, 128 matrices, n = k = 128"),
          ("backend_ops_n256", "test-backend-ops, 8 matrices, n = 256, k = 128")]

BLOCK = re.compile(r"(<!-- (diff|timing|report|compare|ncu|microbench|sass|steps|experiment|margins|own-shapes|previous-at|shapes):? ?([^>]*?) -->\n)"
                   r"(.*?)(<!-- /\2 -->)",
                   re.S)
FIGURE = re.compile(r"(<!--f:(.*?)-->)(.*?)(<!--/f-->)", re.S)
NCU = lambda shape: ROOT / "docs" / "results" / f"{RUN}-ncu-{shape}.txt"  # noqa: E731
MICROBENCH = ROOT / "docs" / "results" / f"{RUN}-microbench.txt"
SASS = ROOT / "docs" / "results" / f"{RUN}-sass.txt"


# How the page being filled reaches docs/results/: "results" from docs/, "../results" from docs/evidence/.
RESULTS_LINK = "results"


def step_diff(previous: str, current: str) -> str:
    old = (ROOT / "steps" / previous / "solve_tri.cu").read_text().splitlines(keepends=True)
    new = (ROOT / "steps" / current / "solve_tri.cu").read_text().splitlines(keepends=True)
    lines = difflib.unified_diff(old, new, f"steps/{previous}/solve_tri.cu", f"steps/{current}/solve_tri.cu", n=2)
    return "```diff\n" + "".join(lines) + "```\n"


def steps_table() -> str:
    """The README's table of steps: each step's one idea (the first comment of its file, up to the
    full stop) and the lines its diff against the step before changes."""
    steps = sorted(d.name for d in (ROOT / "steps").iterdir() if re.match(r"\d\d_", d.name))
    lines = ["| step | one idea | lines changed (`diff -u` / `-uw`) | chapter |", "|---|---|---|---|"]

    def changed_lines(flag: str, previous: str, step: str) -> int:
        # GNU diff, so that the count is what `diff -u` (or -uw, blanks ignored) of the two files shows a reader.
        diff = subprocess.run(["diff", flag, f"steps/{previous}/solve_tri.cu", f"steps/{step}/solve_tri.cu"],
                              cwd=ROOT, capture_output=True, text=True).stdout.splitlines()
        return sum(1 for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---"))

    for i, step in enumerate(steps):
        source = (ROOT / "steps" / step / "solve_tri.cu").read_text()
        header = re.match(r"// Step \d\d: (.*?)(\.\n|\n//\n)", source, re.S).group(1)
        idea = " ".join(part.strip().lstrip("/").strip() for part in header.splitlines())
        changed = "–"
        if i > 0:
            changed = f"{changed_lines('-u', steps[i - 1], step)} / {changed_lines('-uw', steps[i - 1], step)}"
        lines.append(f"| [{step[:2]}](steps/{step}/solve_tri.cu) | {idea} | {changed} | "
                     f"[docs/{step[:2]}](docs/{step}.md) |")
    return "\n".join(lines) + "\n"


def step_timing(step: str) -> str:
    """The timing block that the step's test binary printed, from the committed log."""
    if not STEP_LOG.exists():
        raise SystemExit(f"{STEP_LOG} is missing: run the step tests on a GPU and save their output there")
    text = STEP_LOG.read_text()
    # The log holds each step binary's output after a line "=== <step> ===".
    section = re.search(rf"^=== {re.escape(step)} ===\n(.*?)(?=^=== |\Z)", text, re.S | re.M)
    if not section:
        raise SystemExit(f"no output of {step} in {STEP_LOG}")
    table = re.search(r"^timing: .*?(?=^\S|\Z)", section.group(1), re.S | re.M)
    if not table:
        raise SystemExit(f"no timing table in the output of {step} in {STEP_LOG}")
    return "```\n" + table.group(0).rstrip() + "\n```\n"


def report_section(heading: str) -> str:
    """The section of the report's output that starts with the line "== <heading>"."""
    if not REPORT_LOG.exists():
        raise SystemExit(f"{REPORT_LOG} is missing: run build/solve_tri_report on a GPU and save its output there")
    text = REPORT_LOG.read_text()
    section = re.search(rf"^== {re.escape(heading)}.*?(?=^== |^written: |\Z)", text, re.S | re.M)
    if not section:
        raise SystemExit(f"no section '== {heading}' in {REPORT_LOG}")
    return "```\n" + section.group(0).rstrip() + "\n```\n"


def run_csv(run: str = "") -> pathlib.Path:
    """The report CSV of a committed run: the run the docs quote, or one named (h100-2026-12-06)."""
    return ROOT / "docs" / "results" / f"{run or RUN}.csv"


def step_comparison(spec: str) -> str:
    """The step against its predecessor, cuBLAS and the empty kernel, from the report's CSV (of the
    run the docs quote, or of the run named after an @: "23_device_choices @h100-2026-12-06")."""
    step, _, run = (part.strip() for part in spec.partition("@"))
    csv_path = run_csv(run)
    rows = report_rows(run)
    steps = list(dict.fromkeys(r["name"] for r in rows if r["kind"] == "step"))
    if step not in steps:
        raise SystemExit(f"no step {step} in {csv_path}")
    previous = steps[steps.index(step) - 1] if steps.index(step) > 0 else None
    names = [n for n in (previous, step) if n]

    def cell(shape_id: str, name: str) -> str:
        found = {r["mode"]: r for r in rows if r["shape_id"] == shape_id and r["name"] == name}
        b2b, graph = found.get("back_to_back"), found.get("graph_replay")
        if not b2b or not b2b["us_median"]:
            return "n/a"
        text = f"{float(b2b['us_median']):,.2f} / {float(graph['us_median']):,.2f}"
        if b2b["percent_of_copy_bandwidth"] and b2b["memory_bound"] == "1":
            text += f" ({float(b2b['percent_of_copy_bandwidth']):.0f} % of copy)"
        return text

    kinds = {r["name"]: r["kind"] for r in rows}
    others = [n for n in dict.fromkeys(r["name"] for r in rows) if kinds[n] in ("cublas", "empty_kernel")]
    header = ["shape"] + [f"step {n[:2]}" for n in names] + others
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    measured = {r["shape_id"] for r in rows}
    for shape_id, title in SHAPES:
        if shape_id in measured:
            lines.append("| " + " | ".join([title] + [cell(shape_id, n) for n in names + others]) + " |")
    date = rows[0]["date"]
    samples = {mode: next((r["samples"] for r in rows if r["mode"] == mode and r["samples"]), "?")
               for mode in ("back_to_back", "graph_replay")}
    counted = (f"{samples['back_to_back']} samples" if samples["back_to_back"] == samples["graph_replay"]
               else f"{samples['back_to_back']} / {samples['graph_replay']} samples")
    return (f"us/run, back to back / graph replay (median of {counted}), from `solve_tri_report` on the "
            f"{rows[0]['gpu']}, {date} ([all figures]({RESULTS_LINK}/{csv_path.name})):\n\n" + "\n".join(lines) + "\n")


@functools.lru_cache(maxsize=None)
def report_rows(run: str = "") -> tuple:
    import csv

    with open(run_csv(run), newline="") as f:
        return tuple(csv.DictReader(f))


def report_row(shape: str, name: str, mode: str = "b2b", run: str = "") -> dict:
    key = {"b2b": "back_to_back", "graph": "graph_replay"}[mode]
    for r in report_rows(run):
        if r["shape_id"] == shape and r["name"] == name and r["mode"] == key:
            return r
    for r in report_rows(run):  # a row without timings has one line, in the first mode
        if r["shape_id"] == shape and r["name"] == name:
            return r
    raise SystemExit(f"no row {name} at {shape} ({mode}) in {run_csv(run)}")


def us_text(value: float) -> str:
    return f"{value:,.1f}" if value >= 100 else f"{value:.2f}"


def ncu_table(shape: str) -> str:
    path = NCU(shape)
    if not path.exists():
        raise SystemExit(f"{path} is missing")
    return path.read_text()


def ncu_value(shape: str, step: str, label: str) -> str:
    lines = ncu_table(shape).splitlines()
    header = next(line for line in lines if line.startswith("metric"))
    steps = header.split()[1:]
    for line in lines:
        if line.startswith(label + " ") and not line.startswith("metric"):
            cells = line[len(label):].split()
            return cells[-len(steps):][steps.index(step)]
    raise SystemExit(f"no row '{label}' in {path_name(NCU(shape))}")


def path_name(path: pathlib.Path) -> str:
    return str(path.relative_to(ROOT))


def stall_value(shape: str, step: str, reason: str) -> str:
    for line in ncu_table(shape).splitlines():
        if line.strip().startswith(f"{step}: "):
            found = re.search(rf"(?<![a-z_]){re.escape(reason)} ([0-9.]+)", line)
            if found:
                return found.group(1)
    raise SystemExit(f"no stall reason {reason} for step {step} in {path_name(NCU(shape))}")


def microbench_value(row: str, column: str) -> str:
    for line in MICROBENCH.read_text().splitlines():
        if line.startswith(row + "  ") or line.startswith(row + " -"):
            cells = line[len(row):].split()
            return cells[0] if column == "cycles" else cells[1]
    raise SystemExit(f"no row '{row}' in {path_name(MICROBENCH)}")


def sass_section(step: str) -> str:
    text = SASS.read_text()
    section = re.search(rf"^=== {re.escape(step)} ===\n(.*?)(?=^=== |\Z)", text, re.S | re.M)
    if not section:
        raise SystemExit(f"no section {step} in {path_name(SASS)}")
    return section.group(1)


def sass_value(step: str, instance: str, opcode: str) -> str:
    lines = sass_section(step).splitlines()
    for i, line in enumerate(lines):
        if instance in line and i + 1 < len(lines):
            counts = lines[i + 1]
            if opcode == "total":
                return re.search(r"(\d+) instructions", counts).group(1)
            found = re.search(rf"\b{re.escape(opcode)} (\d+)", counts)
            if not found:
                # The log lists only the most frequent opcodes; an absent one is unknown, not zero.
                raise SystemExit(f"{opcode} is not among the counts listed for {instance} in "
                                 f"section {step} of {path_name(SASS)}")
            return found.group(1)
    raise SystemExit(f"no kernel {instance} in section {step} of {path_name(SASS)}")


def grep_value(name: str, pattern: str) -> str:
    # NAME is a log of the run the docs quote (report.txt: RUN-report.txt), or a whole file name
    # of an earlier run (h200-2026-12-01-share-microbench.txt), for what that run alone measured.
    path = ROOT / "docs" / "results" / (name if re.match(r"[a-z0-9]+-\d{4}-\d\d-\d\d[-.]", name) else f"{RUN}-{name}")
    found = re.search(pattern, path.read_text(), re.M)
    if not found:
        raise SystemExit(f"no match for '{pattern}' in {path_name(path)}")
    return found.group(1)


def figure(spec: str) -> str:
    """One value for an inline figure marker (see the top of this file)."""
    if spec.startswith("grep:"):
        _, name, pattern = spec.split(":", 2)
        return grep_value(name, pattern)
    kind, *args = spec.split(":")
    kind, _, run = kind.partition("@")  # "us@h100-2026-12-06": a figure of that run's report
    if kind == "us":
        shape, name, mode = args
        return us_text(float(report_row(shape, name, mode, run)["us_median"]))
    if kind == "copy":
        shape, name = args
        return f"{float(report_row(shape, name, 'b2b', run)['percent_of_copy_bandwidth']):.1f}"
    if kind == "ratio":
        shape, a, b, mode = args
        ratio = float(report_row(shape, a, mode, run)["us_median"]) / float(report_row(shape, b, mode, run)["us_median"])
        return f"{ratio:.{3 if run else 2}f}"
    if kind == "change":
        shape, name, mode = args
        return f"{float(report_row(shape, name, mode, run)['change_percent']):+.1f}"
    if kind == "res":
        shape, name, field = args
        value = float(report_row(shape, name, 'b2b', run)[field])
        return f"{value:.1f}" if field.endswith("percent") else f"{value:.0f}"
    if kind == "nmse":
        shape, name = args
        return f"{float(report_row(shape, name, 'b2b', run)['nmse']):.2g}"
    if kind == "ncu":
        shape, step, label = args
        return ncu_value(shape, step, label)
    if kind == "stall":
        shape, step, reason = args
        return stall_value(shape, step, reason)
    if kind == "mb":
        row, column = args
        return microbench_value(row, column)
    if kind == "sass":
        step, instance, opcode = args  # instance: the template arguments, e.g. 64,1 for <(int)64, (int)1>
        return sass_value(step, "<" + ", ".join(f"(int){a}" for a in instance.split(",")) + ">", opcode)
    if kind == "copybw":
        row = next(r for r in report_rows(run) if r["kind"] == "copy")
        return f"{float(row['gib_per_s']) * 1024 ** 3 / 1e12:.3f}"
    raise SystemExit(f"unknown figure marker '{spec}'")


EXPERIMENTS = ROOT / "docs" / "results" / f"{RUN}-experiments.txt"
EXPERIMENT_SWITCH = ROOT / "docs" / "results" / f"{RUN}-experiments-switch.txt"
RESOURCES = re.compile(r"^  (\S+) +(\d+) registers, +(\d+) B local, +(\d+) blocks/SM of +(\d+) threads, grid (\d+) x (\d+)$")
TIMING_ROW = re.compile(r"^ +(?:(A\{[^}]*\} B\{[^}]*\}) +)?(\S+) +([\d.]+) +\[[^]]*\] +[\d.]+(?: +([+-][\d.]+) %)?\s*$")


@functools.lru_cache(maxsize=None)
def pair(a: str, b: str) -> str:
    """A table cell of a step's figure and its variant's: one figure where they are the same."""
    return a if a == b else f"{a} → {b}"


def timed_pair(body: str, shape: str) -> dict:
    """The two rows timed at a shape in each timing mode of a test binary's output (the step's, then the one
    timed against it), by mode: "launches back to back" and "graph replay"; a mode without both rows is left out."""
    pairs = {}
    for mode, text in re.findall(r"^timing: (launches back to back|graph replay)[^\n]*\n(.*?)(?=^timing: |\Z)", body,
                                 re.S | re.M):
        lines = text.splitlines()
        at = next((i for i, line in enumerate(lines) if line.lstrip().startswith(shape)), None)
        rows = [TIMING_ROW.match(line) for line in lines[at:at + 2]] if at is not None else []
        if len(rows) == 2 and all(rows) and rows[1].group(4):
            pairs[mode] = (rows[0], rows[1])
    return pairs


def experiment_log() -> tuple:
    return tuple(EXPERIMENTS.read_text().splitlines())


def experiment_section(name: str) -> tuple:
    """The lines of one experiment's run in the experiments log (meson test --verbose)."""
    lines = experiment_log()
    start = next((i for i, line in enumerate(lines) if f":{name} " in line and "RUNNING" in line), None)
    if start is None:
        raise SystemExit(f"no experiment {name} in {path_name(EXPERIMENTS)}")
    end = next(i for i in range(start + 1, len(lines)) if f":{name} " in lines[i])
    return lines[start:end]


def experiment_table(name: str) -> str:
    """An experiment's variant against its step at each reference shape: registers, local
    memory, blocks per SM and grid of the kernels they launch, us/run back to back, change.
    name is "STEP+EXPERIMENT"; "switch" gives the last step against its never-persistent variant
    at the batches of the switch log."""
    if name == "switch":
        return switch_table()
    step = name.split("+")[0]
    section = experiment_section(name)
    shapes, resources, title = [], {}, None
    for line in section:
        heading = re.match(r"^(\S.*) \((A\{.*\})\):$", line)
        if heading:
            title = heading.group(1)
            shapes.append((title, heading.group(2)))
            continue
        found = RESOURCES.match(line)
        if found and title:
            resources[(title, found.group(1))] = found.groups()[1:]
    times, shape = {}, None
    for line in section:
        row = TIMING_ROW.match(line)
        if row:
            shape = row.group(1) or shape
            times[(shape, row.group(2))] = (row.group(3), row.group(4))
    out = ["| shape | registers | local bytes | blocks/SM (threads) | grid | step us/run | variant us/run | change |",
           "|---|---|---|---|---|---|---|---|"]
    def grid(r: tuple) -> str:
        return r[4] if r[5] == "1" else f"{r[4]} x {r[5]}"

    for title, problem in shapes:
        base, variant = resources[(title, step)], resources[(title, name)]
        us_base, us_variant = times[(problem, step)][0], times[(problem, name)]
        out.append(f"| {title} | {pair(base[0], variant[0])} | {pair(base[1], variant[1])} | "
                   f"{pair(base[2], variant[2])} ({base[3]}) | {pair(grid(base), grid(variant))} | {us_base} | "
                   f"{us_variant[0]} | {us_variant[1]} % |")
    return "\n".join(out) + "\n"


def shape_label(n, k, batch: int) -> str:
    """A table's first cell for a shape: "n = 64, k = 6, 8 matrices"."""
    return f"n = {n}, k = {k}, {batch:,} {'matrix' if batch == 1 else 'matrices'}"


def own_shapes_table(args: str) -> str:
    """A step binary's (or an experiment's) timing of a shape of its own against the step it is timed
    with, for every "=== BINARY --n N --k K --ne2 E2 --ne3 E3 ===" section of a committed log (measure.sh
    part shared-rows): us/run of both and the change, back to back and in graph replay. args is "LOG
    BINARY", LOG a file name in docs/results/."""
    log_name, binary = args.split()
    text = (ROOT / "docs" / "results" / log_name).read_text()
    sections = re.finditer(rf"^=== {re.escape(binary)} --n (\d+) --k (\d+) --ne2 (\d+) --ne3 (\d+) ===\n(.*?)(?=^=== |\Z)",
                           text, re.S | re.M)
    out, names = [], None
    for found in sections:
        n, k, ne2, ne3, body = found.groups()
        shape = f"A{{{n},{n},{ne2},{ne3}}} B{{{k},{n},{ne2},{ne3}}}"
        cells = [shape_label(n, k, int(ne2) * int(ne3))]
        pairs = timed_pair(body, shape)
        for mode in ("launches back to back", "graph replay"):
            if mode not in pairs:
                raise SystemExit(f"no timing ({mode}) of {shape} in {log_name}'s section of {binary}")
            base, variant = pairs[mode]
            names = (base.group(2), variant.group(2))
            cells += [f"{base.group(3)} → {variant.group(3)}", f"{variant.group(4)} %"]
        out.append("| " + " | ".join(cells) + " |")
    if not out:
        raise SystemExit(f"no shape of {binary}'s own in {log_name}")
    head = [f"us/run, {names[0]} → {names[1]} ([log]({RESULTS_LINK}/{log_name})):", "",
            "| shape | back to back | change | graph replay | change |", "|---|---|---|---|---|"]
    return "\n".join(head + out) + "\n"


def previous_at_table(args: str) -> str:
    """Every experiment of a committed log at one shape: each "=== BINARY, against the previous step ==="
    section's case against its step (experiment_test.cpp), the kernels the step and the variant launch
    there (registers, the occupancy limit in blocks per SM, threads, grid), and us/run of both with the
    change, back to back and in graph replay. args is "LOG SHAPE", LOG a file name in docs/results/,
    SHAPE as the log prints it ("A{64,64,8,32} B{64,64,8,32}")."""
    log_name, shape = args.split(maxsplit=1)
    text = (ROOT / "docs" / "results" / log_name).read_text()
    sections = re.finditer(r"^=== (\S+), against the previous step ===\n(.*?)(?=^=== |\Z)", text, re.S | re.M)
    out = []
    for found in sections:
        binary, body = found.group(1), found.group(2)
        lines = body.splitlines()
        heading = next((i for i, line in enumerate(lines) if line.endswith(f"({shape}):")), None)
        rows = [RESOURCES.match(line) for line in lines[heading + 1:heading + 3]] if heading is not None else []
        # The step's row, then the variant's "STEP+EXPERIMENT", whose binary is "NN_EXPERIMENT".
        step, variant = (row.group(1) for row in rows) if len(rows) == 2 and all(rows) else ("", "")
        if variant != f"{step}+{variant.split('+')[-1]}" or binary != f"{step[:2]}_{variant.split('+')[-1]}":
            raise SystemExit(f"no resources of the step and the variant at {shape} in {log_name}'s section of {binary}")
        base, changed = rows[0].groups(), rows[1].groups()
        cells = [f"`{variant.split('+')[1]}`", pair(base[1], changed[1]),
                 f"{pair(base[3], changed[3])} ({pair(base[4], changed[4])})",
                 pair(f"{base[5]} x {base[6]}", f"{changed[5]} x {changed[6]}")]
        pairs = timed_pair(body, shape)
        for mode in ("launches back to back", "graph replay"):
            if mode not in pairs or tuple(row.group(2) for row in pairs[mode]) != (step, variant):
                raise SystemExit(f"no timing ({mode}) of {shape} in {log_name}'s section of {binary}")
            cells += [f"{pairs[mode][0].group(3)} → {pairs[mode][1].group(3)}", f"{pairs[mode][1].group(4)} %"]
        out.append("| " + " | ".join(cells) + " |")
    if not out:
        raise SystemExit(f"no section against the previous step in {log_name}")
    head = [f"At {shape}, the step → the experiment, each pair in the experiment's own binary "
            f"([log]({RESULTS_LINK}/{log_name})); blocks/SM is the occupancy limit, not the blocks resident; us/run:",
            "", "| experiment | registers | blocks/SM (threads) | grid | back to back | change | graph replay | change |",
            "|---|---|---|---|---|---|---|---|"]
    return "\n".join(head + out) + "\n"


def shapes_table(args: str) -> str:
    """Two steps at every shape of a committed run's report CSV: us/run of both and the change, in both
    modes, and in each mode the fastest step and the second step's time over its. args is "RUN A B"."""
    run, first, second = args.split()
    rows = report_rows(run)
    out = []
    for shape_id in dict.fromkeys(r["shape_id"] for r in rows if r["kind"] == "step"):
        at = [r for r in rows if r["shape_id"] == shape_id]
        cells = [shape_label(at[0]["n"], at[0]["k"], int(at[0]["batch"]))]
        fastest = []
        for mode in ("back_to_back", "graph_replay"):
            ok = {r["name"]: r for r in at
                  if r["mode"] == mode and r["kind"] == "step" and r["status"] == "ok" and r["us_median"]}
            timed = {name: float(r["us_median"]) for name, r in ok.items()}
            a, b = timed[first], timed[second]
            best = min(timed, key=timed.get)
            cells += [f"{us_text(a)} → {us_text(b)}", f"{100 * (b / a - 1):+.1f} %"]
            # [min, max] ranges that overlap are a tie (docs/method.md)
            overlap = float(ok[second]["us_min"]) <= float(ok[best]["us_max"])
            fastest.append(f"{best[:2]}, {b / timed[best]:.3f}" + (" (ranges overlap)" if best != second and overlap else ""))
        out.append("| " + " | ".join(cells + fastest) + " |")
    head = [f"us/run, {first} → {second}, on the {rows[0]['gpu']}, {rows[0]['date']} "
            f"([all figures]({RESULTS_LINK}/{run}.csv)); the fastest step of the run and step {second[:2]} over it:", "",
            "| shape | back to back | change | graph replay | change | fastest, b2b | fastest, graph |",
            "|---|---|---|---|---|---|---|"]
    return "\n".join(head + out) + "\n"


def switch_table() -> str:
    text = EXPERIMENT_SWITCH.read_text()
    step = re.search(r"^=== (\d\d)_", text, re.M).group(1)
    out = [f"| matrices (k = 64) | step {step} us/run | never persistent us/run | change |", "|---|---|---|---|"]
    for run in re.split(r"^=== ", text, flags=re.M)[1:]:
        matrices = re.match(r".*, (\d+) matrices ===", run).group(1)
        rows = [TIMING_ROW.match(line) for line in run.splitlines()]
        rows = [r for r in rows if r]
        # The last pair is the shape of the command line.
        base, variant = rows[-2], rows[-1]
        out.append(f"| {int(matrices):,} | {base.group(3)} | {variant.group(3)} | {variant.group(4)} % |")
    return "\n".join(out) + "\n"


# Pairs of steps that launch the same machine code: steps 04 and 05 everywhere (-sass.txt's last line);
# 08 and 09 at k <= 32 (their <64> and <64, 1> listings match); 18 and 19 where step 19 does not go
# persistent (its one-block-per-matrix instances are step 18's), which the report's grid column shows.
# Steps 19 to 23 launch the same machine code wherever their plans pick the same instance and grid, which the
# report's grid and block columns show, at the report's shapes (16-byte aligned): the listings of 19-20,
# 20-21, 21-22 (h200-2026-12-02-same-code-*.txt) and 22-24 (h200-2026-12-06-same-instances.txt) hold their
# instances identical, but for 21-22's run-time 16-byte ones (n = 16 at Kimi-Linear's shape) and step 24's
# n = 16 ones; 24-25 (h100-2026-12-06-every-thread-same-instances.txt) those of 64 threads at n != 16.


def same_launch(row: dict, other: dict) -> bool:
    return (row["grid_blocks"], row["threads_per_block"]) == (other["grid_blocks"], other["threads_per_block"])


IDENTICAL_PAIRS = [("04_fmaf_reciprocal", "05_const_correctness", lambda row, other: True),
                   ("08_thread_per_column", "09_warps_per_block", lambda row, other: int(row["k"]) <= 32),
                   ("18_row_per_thread_copy", "19_persistent_prefetch", lambda row, other: row["grid_blocks"] == other["grid_blocks"]),
                   ("19_persistent_prefetch", "20_any_alignment", same_launch),
                   ("20_any_alignment", "21_persistent_threshold", same_launch),
                   ("21_persistent_threshold", "22_sixteen_byte_rows",  # their run-time 16-byte instances differ
                    lambda row, other: same_launch(row, other) and int(row["n"]) == 64),
                   ("22_sixteen_byte_rows", "23_device_choices", same_launch),
                   ("23_device_choices", "24_sixteen_row_instances", lambda row, other: int(row["n"]) != 16),
                   ("24_sixteen_row_instances", "25_every_thread_copies",  # blocks of 64 threads at n != 16
                    lambda row, other: same_launch(row, other) and int(row["n"]) != 16 and
                    int(row["threads_per_block"]) == 64)]
MARGIN_RUNS = [RUN, f"{RUN}-step22"]


def margins_table(runs: str = "") -> str:
    """Per reference shape and timing mode, the largest difference between identical machine code in the
    committed report runs (those the docs quote, or the runs named: "h100-2026-12-06 h200-2026-12-06"), and the
    margin it sets: that difference rounded up to the next 0.5 %."""
    import math

    run_names = runs.split() or MARGIN_RUNS
    spreads, measured = {}, set()
    for run in run_names:
        rows = [r for r in report_rows(run) if r["us_median"]]
        index = {(r["shape_id"], r["mode"], r["name"]): r for r in rows}
        measured |= {r["shape_id"] for r in rows}
        for shape_id, _ in SHAPES:
            for mode in ("back_to_back", "graph_replay"):
                # Steps joined by identical pairs form groups of one machine code (18 to 24 at a small
                # shape, say); a group's spread is its slowest median over its fastest.
                group_of = {}
                for a, b, same in IDENTICAL_PAIRS:
                    ra, rb = index.get((shape_id, mode, a)), index.get((shape_id, mode, b))
                    if ra and rb and same(ra, rb):
                        group = group_of.get(a, [a]) + [n for n in group_of.get(b, [b]) if n not in group_of.get(a, [a])]
                        for name in group:
                            group_of[name] = group
                for group in {id(g): g for g in group_of.values()}.values():
                    times = {name: float(index[(shape_id, mode, name)]["us_median"]) for name in group}
                    fast, slow = min(times, key=times.get), max(times, key=times.get)
                    diff = (times[slow] / times[fast] - 1) * 100
                    key = (shape_id, mode)
                    if diff >= spreads.get(key, (-1, ""))[0]:
                        names = sorted(name[:2] for name in group)
                        spreads[key] = (diff, f"{slow[:2]}/{fast[:2]} of {names[0]}–{names[-1]}"
                                        if len(group) > 2 else f"{names[0]}/{names[1]}")
    lines = ["| shape | back to back: largest difference (pair) | margin | graph replay: largest difference (pair) | margin |",
             "|---|---|---|---|---|"]
    for shape_id, title in SHAPES:
        if shape_id not in measured:
            continue
        cells = [title]
        for mode in ("back_to_back", "graph_replay"):
            found = spreads.get((shape_id, mode))
            if found:
                cells += [f"{found[0]:.2f} % ({found[1]})", f"{max(0.5, math.ceil(found[0] * 2) / 2):.1f} %"]
            else:
                cells += ["no identical pair", "1.0 %"]
        lines.append("| " + " | ".join(cells) + " |")
    runs = " and ".join(f"[{run_csv(run).name}]({RESULTS_LINK}/{run_csv(run).name})" for run in run_names)
    return f"From {runs}:\n\n" + "\n".join(lines) + "\n"


def fill(text: str) -> str:
    def replace(match: re.Match) -> str:
        kind, args = match.group(2), match.group(3)
        if kind == "diff":
            body = step_diff(*args.split())
        elif kind == "timing":
            body = step_timing(*args.split())
        elif kind == "compare":
            body = step_comparison(args.strip())
        elif kind == "ncu":
            body = "```\n" + ncu_table(args.strip()).rstrip() + "\n```\n"
        elif kind == "microbench":
            body = "```\n" + MICROBENCH.read_text().rstrip() + "\n```\n"
        elif kind == "sass":
            body = "```\n" + sass_section(args.strip()).rstrip() + "\n```\n"
        elif kind == "steps":
            body = steps_table()
        elif kind == "experiment":
            body = experiment_table(args.strip())
        elif kind == "own-shapes":
            body = own_shapes_table(args.strip())
        elif kind == "previous-at":
            body = previous_at_table(args.strip())
        elif kind == "shapes":
            body = shapes_table(args.strip())
        elif kind == "margins":
            body = margins_table(args.strip())
        else:
            body = report_section(args.strip())
        return match.group(1) + body + match.group(5)

    text = BLOCK.sub(replace, text)
    return FIGURE.sub(lambda m: m.group(1) + figure(m.group(2)) + m.group(4), text)


LESSON_SECTIONS = ["The idea", "The picture", "The change", "The prediction", "The result", "Why: the evidence",
                   "What did not pay, and the limits", "Exercises"]
LESSON_PAGE = re.compile(r"^(?!00_)\d\d_[a-z0-9_]+\.md$")
LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def all_docs() -> list:
    docs = ROOT / "docs"
    return (sorted(docs.glob("*.md")) + sorted((docs / "evidence").glob("*.md")) +
            sorted((docs / "results").glob("*.md")) + [ROOT / "README.md"])


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, markup and punctuation dropped, spaces as hyphens."""
    text = re.sub(r"<!--.*?-->", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors(path: pathlib.Path) -> frozenset:
    text = FENCE.sub("", path.read_text())
    found, seen = set(), {}
    for heading in re.findall(r"^#{1,6} +(.*?) *#* *$", text, re.M):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    found.update(re.findall(r"<a (?:id|name)=\"([^\"]+)\"", text))
    return frozenset(found)


def broken_links(doc: pathlib.Path) -> list:
    """Relative links of a page whose file or anchor does not exist."""
    text = re.sub(r"<!--.*?-->", "", FENCE.sub("", doc.read_text()), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    problems = []
    for match in LINK.finditer(text):
        target = match.group(1) or match.group(2)
        if re.match(r"^[a-z]+:", target) or target.startswith("mailto:"):
            continue
        path_part, _, anchor = target.partition("#")
        path = (doc.parent / path_part).resolve() if path_part else doc
        if not path.exists():
            problems.append(f"{target} (no such file)")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            problems.append(f"{target} (no such anchor in {path.relative_to(ROOT)})")
    return problems


def lesson_problems(doc: pathlib.Path) -> list:
    """What a lesson page lacks of its shape: its sections in order, its evidence page, a link to it."""
    text = FENCE.sub("", doc.read_text())
    headings = re.findall(r"^## +(.*?) *$", text, re.M)
    problems = []
    positions = []
    for section in LESSON_SECTIONS:
        if section not in headings:
            problems.append(f"no section '## {section}'")
        else:
            positions.append(headings.index(section))
    if positions != sorted(positions):
        problems.append("sections out of order (" + ", ".join(LESSON_SECTIONS) + ")")
    evidence = doc.parent / "evidence" / doc.name
    if not evidence.exists():
        problems.append(f"no evidence page {evidence.relative_to(ROOT)}")
    elif f"evidence/{doc.name}" not in text:
        problems.append(f"no link to evidence/{doc.name}")
    return problems


def structure_problems() -> list:
    problems = []
    for doc in all_docs():
        if not doc.exists():
            continue
        name = doc.relative_to(ROOT)
        if doc.parent == ROOT / "docs" and LESSON_PAGE.match(doc.name):
            problems += [f"{name}: {p}" for p in lesson_problems(doc)]
        problems += [f"{name}: broken link {p}" for p in broken_links(doc)]
    return problems


def main() -> int:
    check = "--check" in sys.argv[1:]
    named = [pathlib.Path(arg).resolve() for arg in sys.argv[1:] if arg != "--check"]
    stale = []
    for doc in named or all_docs():
        if not doc.exists():
            continue
        text = doc.read_text()
        global RESULTS_LINK
        RESULTS_LINK = "../results" if doc.parent.name == "evidence" else "results"
        filled = fill(text)
        if filled != text:
            stale.append(doc.relative_to(ROOT))
            if not check:
                doc.write_text(filled)
    if check and stale:
        print("stale docs (run python3 docs/tools/sync_docs.py):", ", ".join(map(str, stale)))
        return 1
    if check and not named:
        problems = structure_problems()
        if problems:
            print("docs that do not hang together:\n  " + "\n  ".join(problems))
            return 1
    print(("checked" if check else "synced"), "docs;", ("stale: " + ", ".join(map(str, stale))) if stale else "all current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
