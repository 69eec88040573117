#!/usr/bin/env python3
"""Fail the build on any answer that differs from upstream Placement's
without a known, accepted reason.

    difftest_gate.py --tester DIR --seeds "1 2" [--steps 400] [--db pg|sqlite]
                     [--time-limit 240]

DIR is the differential tester (its run_seeds.sh and triage.py; the
Makefile's `difftest` target passes it). The tester's own exit status says
only whether it ran; this gate reads its triage of the recorded
differences and fails (exit 1) when one is a project bug (a difference of
this service that the tester knows from before: a regression) or is
unexplained (a new one), or when a seed produced no summary. Upstream's
own bugs, harmless differences (error wording, 1 vs 1.0, ...) and what
follows from a write only upstream refused pass: docs/conformance.md's "Deliberate
differences from upstream" lists them.

Each seed sends its STEPS steps unless --time-limit seconds pass first
(the tester's own bound); the gate prints each seed's count and says when
one was cut short, so a slow run that checked less does not pass
unnoticed. CI runs this beside other steps and allows 900 s.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

# One line of the triage table: label, class, "N diffs", "M groups", seeds.
_ROW = re.compile(r"^(?P<label>.*?)\s+(?P<cls>project bug|upstream bug/artifact|harmless|-|\?)"
                  r"\s+(?P<n>\d+) diffs\s+\d+ groups")
_ACCEPTED = {"upstream bug/artifact", "harmless", "-"}


def _follows_u6(label: str, rows) -> bool:
    """A per-project /usages difference the triage files under B06 that
    upstream's U6 explains: the empty consumer upstream keeps after PUT {}
    keeps its consumer type (1.38) and owner, so a later pre-1.38 write
    that makes it hold allocations again counts them under that type and
    owner upstream, under none here. B06 itself (a pre-1.8 PUT keeping the
    owner) would also show on the consumer's own GET, which every sweep
    reads: so this is accepted only with U6 present and no such B06 row."""
    if not (label.startswith("B06 ") and "/usages" in label):
        return False
    u6 = any(other.startswith("U6 ") and n for other, _, n in rows)
    b06_direct = any(other.startswith("B06 ") and "/usages" not in other and n
                     for other, _, n in rows)
    return u6 and not b06_direct


def _seed_line(seed_dir: str) -> str:
    """The tester's first summary line for a seed: its steps sent and time,
    with a note when the time limit cut it short."""
    try:
        with open(os.path.join(seed_dir, "summary.txt")) as fh:
            first = fh.readline().strip()
    except OSError:
        return f"{os.path.basename(seed_dir)}: no summary.txt"
    head = first.split(" up=")[0]
    if "stopped by --time-limit" in first:
        head += " -- NOTE: fewer steps than asked; the machine was slow"
    return head


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tester", required=True, help="the differential tester's directory")
    parser.add_argument("--seeds", default="1 2")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--db", choices=("pg", "sqlite"), default="pg")
    parser.add_argument("--time-limit", type=float, default=240,
                        help="seconds after which each seed stops sending (the tester's bound)")
    parser.add_argument("--judge", metavar="RUNS",
                        help="judge the seed directories already in RUNS (the tester's OUT) "
                        "instead of running the seeds")
    args = parser.parse_args()

    tester = os.path.abspath(args.tester)
    python = os.path.join(os.environ.get("UPSTREAM_VENV", os.path.expanduser(
        "~/.cache/placement-difftest/upstream")), "bin", "python")
    if args.judge:
        runs = work = os.path.abspath(args.judge)
    else:
        work = tempfile.mkdtemp(prefix="difftest-gate-")
        runs = os.path.join(work, "runs")
        env = dict(os.environ, PROJECT_DIR=os.getcwd(), PROJ_DB=args.db, DIFFTEST_TMP=work,
                   OUT=runs)
        # From the scratch directory: gunicorn puts its working directory
        # first on sys.path, and this checkout's own `placement` package
        # (upstream's entry-point names) would shadow upstream's there.
        run = subprocess.run(
            [os.path.join(tester, "run_seeds.sh"), args.seeds, str(args.steps),
             "--time-limit", str(args.time_limit)], env=env, cwd=work)
        if run.returncode != 0:
            print(f"difftest gate: the tester did not run (exit {run.returncode})")
            return 1

    dirs = [os.path.join(runs, f"seed{seed}-{args.db}") for seed in args.seeds.split()]
    missing = [d for d in dirs if not os.path.exists(os.path.join(d, "summary.json"))]
    if missing:
        print(f"difftest gate: no summary for {', '.join(map(os.path.basename, missing))}")
        return 1
    for d in dirs:
        print("difftest gate:", _seed_line(d))
    triage = subprocess.run([python, os.path.join(tester, "triage.py"), *dirs,
                             "--show-unexplained", "20"],
                            capture_output=True, text=True)
    print(triage.stdout, end="")
    if triage.returncode != 0:
        print(triage.stderr, end="")
        print("difftest gate: triage failed")
        return 1

    rows, unreadable = [], []
    unexplained = None
    for line in triage.stdout.splitlines():
        if line.startswith("unexplained:"):
            unexplained = int(line.split(":")[1])
            continue
        if not line.strip() or line.startswith("  "):
            continue  # the examples listed under "unexplained:"
        row = _ROW.match(line)
        if row is None:
            unreadable.append(line)
        else:
            rows.append((row["label"], row["cls"], int(row["n"])))
    if unexplained is None or unreadable:
        print("difftest gate: cannot read the triage:", *unreadable, sep="\n  ")
        return 1
    refused = [f"{n} x {label}" for label, cls, n in rows
               if cls not in _ACCEPTED and n and not _follows_u6(label, rows)]
    if refused:
        print("difftest gate: FAILED, differences from upstream that are not accepted:",
              *refused, sep="\n  ")
        return 1
    print(f"difftest gate: passed (seeds {args.seeds}, {args.db}; results in {work})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
