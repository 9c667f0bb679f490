"""TUI benchmark: first paint against a minimal Textual app, unlock to Today, the journal list,
search from the journal screen, and keystroke latency while a slow worker runs.

    python -m benchmarks.tui_bench [--keep DIR] [--runs N]

First paint is measured twice: in a pseudo-terminal at 80x24, as a person starts the app
(``python -m companion``, until the unlock form's text reaches the terminal), and headless.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import gc
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

from benchmarks.common import row
from benchmarks.tenyear import PASSPHRASE, build

MINIMAL_TTY = """
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("hello there")

Minimal().run()
"""

MINIMAL = """
import time
from textual.app import App
from textual.widgets import Static

class Minimal(App):
    def compose(self):
        yield Static("hello")
    def on_mount(self):
        self.call_after_refresh(self.exit)

Minimal().run(headless=True, size=(100, 32))
"""

COMPANION = """
import sys
sys.path.insert(0, %r)
from companion.paths import VaultPaths
from companion.tui.app import CompanionApp

class FirstPaint(CompanionApp):
    def on_mount(self):
        super().on_mount()
        self.call_after_refresh(self.exit)

FirstPaint(VaultPaths(__import__("pathlib").Path(sys.argv[1]))).run(headless=True, size=(100, 32))
assert "anthropic" not in sys.modules, "the SDK must not load before the first paint"
"""


def process_ms(code: str, *args: str, runs: int) -> float:
    script = Path(tempfile.mkdtemp(prefix="companion-paint-")) / "paint.py"
    script.write_text(code)  # a file, so Textual can resolve CSS paths next to the class
    samples = []
    for _ in range(runs + 1):
        started = time.perf_counter()
        subprocess.run([sys.executable, str(script), *args], check=True, capture_output=True)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples[1:])


def terminal_ms(command: list[str], marker: bytes, env: dict[str, str]) -> tuple[float, float]:
    """Milliseconds from starting ``command`` in an 80x24 pseudo-terminal to ``marker``
    appearing in what it writes to the terminal, and the CPU time (user and system, all
    threads) it used until then: the process is stopped at once, then killed and reaped for
    its resource usage, which the kernel keeps to the nanosecond (less moved by other work on
    a shared machine than the wall clock)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    started = time.perf_counter()
    proc = subprocess.Popen(
        command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
    )
    os.close(slave)
    seen, painted = b"", None
    try:
        while painted is None and time.perf_counter() - started < 20:
            if select.select([master], [], [], 0.5)[0]:
                chunk = os.read(master, 65536)
                if not chunk:
                    break
                seen = seen[-len(marker) :] + chunk
                if marker in seen:
                    painted = (time.perf_counter() - started) * 1000
                    os.killpg(proc.pid, signal.SIGSTOP)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = -signal.SIGKILL  # reaped here, not by Popen
        os.close(master)
    if painted is None:
        raise RuntimeError(f"{command[1:]} never painted {marker!r}")
    return painted, (usage.ru_utime + usage.ru_stime) * 1000


def terminal_first_paint(root: Path, runs: int) -> dict[str, float]:
    """Medians of ``runs`` alternated starts of a minimal Textual app and of Companion, each
    as its own process in a pseudo-terminal, after one unmeasured start of each (bytecode
    cached). Companion's mark is the unlock form's bottom-left corner, drawn with the whole
    form (its text is split by the cursor and styles)."""
    script = Path(tempfile.mkdtemp(prefix="companion-paint-")) / "minimal.py"
    script.write_text(MINIMAL_TTY)
    # Bytecode cached, as after an install: the unmeasured first start writes any missing
    # .pyc (a shell with PYTHONDONTWRITEBYTECODE would otherwise compile our modules on every
    # start, while Textual's were compiled by pip).
    skip = ("ANTHROPIC_API_KEY", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in skip}
    env.update(
        TERM="xterm-256color",
        COLORTERM="truecolor",
        COMPANION_HOME=str(root),
        PYTHONPATH=str(Path(__file__).resolve().parent.parent),
    )
    # As a person starts it: the installed `companion` command (python -m when not installed).
    script_path = Path(sys.executable).with_name("companion")
    command = [str(script_path)] if script_path.exists() else [sys.executable, "-m", "companion"]
    samples: dict[str, list[float]] = {"minimal": [], "ours": [], "minimal cpu": [], "ours cpu": []}
    for i in range(runs + 1):
        minimal = terminal_ms([sys.executable, str(script)], b"hello there", env)
        ours = terminal_ms(command, "╰".encode(), env)
        if i:
            samples["minimal"].append(minimal[0])
            samples["minimal cpu"].append(minimal[1])
            samples["ours"].append(ours[0])
            samples["ours cpu"].append(ours[1])
    return {name: statistics.median(values) for name, values in samples.items()}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def painted_after(app, started: float, ready) -> float:  # type: ignore[no-untyped-def]
    """Milliseconds from ``started`` to the first paint at which ``ready()`` held."""
    app.first_ready_paint = None
    app.paint_probe = ready
    while app.first_ready_paint is None:
        await asyncio.sleep(0.0005)
    app.paint_probe = None
    return (app.first_ready_paint - started) * 1000


def instrument(app) -> None:  # type: ignore[no-untyped-def]
    """Note the first paint (to the headless terminal) at which the probe holds."""
    display = app._display
    app.paint_probe, app.first_ready_paint = None, None

    def wrapped(screen, renderable):  # type: ignore[no-untyped-def]
        result = display(screen, renderable)
        probe = app.paint_probe
        if renderable is not None and probe is not None and app.first_ready_paint is None:
            try:
                ready = probe()
            except Exception:  # the screen is still being built
                ready = False
            if ready:
                app.first_ready_paint = time.perf_counter()
        return result

    app._display = wrapped


async def in_app(root: Path, runs: int) -> None:
    from textual import events

    from companion.paths import VaultPaths
    from companion.tui.app import CompanionApp
    from companion.tui.screens.journal import JournalScreen
    from companion.tui.screens.today import TodayScreen
    from companion.vault import Vault, keys
    from companion.vault.maintenance import verify

    paths = VaultPaths(root)
    Vault.unlock(paths, PASSPHRASE).close()  # today's backup, outside the timings
    with Vault.unlock(paths, PASSPHRASE, daily_backup=False) as vault:
        header = vault.header
    kdf = statistics.median(
        _timed(lambda: keys.open_with_passphrase(header, PASSPHRASE)) for _ in range(3)
    )
    unlocks, lists, searches, keys_ms = [], [], [], []
    overs: list[float] = []  # Enter to Today less that unlock's own key derivation
    # The key derivation of each unlock, timed where it runs: Argon2 moves by 20% from one
    # minute to the next on a shared machine, so "KDF + 150" is read run by run as well.
    derived: list[float] = []
    open_data_key = keys.open_data_key

    def timed_open(*args, **kwargs):  # type: ignore[no-untyped-def]
        began = time.perf_counter()
        try:
            return open_data_key(*args, **kwargs)
        finally:
            derived.append((time.perf_counter() - began) * 1000)

    keys.open_data_key = timed_open  # type: ignore[assignment]
    rss: list[float] = []
    for _ in range(runs):
        app = CompanionApp(paths)
        async with app.run_test(size=(100, 32)) as pilot:
            instrument(app)
            # A person takes a second or more to type a passphrase; the app uses that time.
            while "today" not in app._screen_stacks:
                await asyncio.sleep(0.01)
            await pilot.pause()
            app.screen.query_one("#passphrase").value = PASSPHRASE
            started = time.perf_counter()
            derived.clear()
            app.post_message(events.Key("enter", None))
            unlocks.append(
                await painted_after(app, started, lambda a=app: isinstance(a.screen, TodayScreen))
            )
            overs.append(unlocks[-1] - derived[0])
            await app.warmed.wait()  # prewarming finishes in the background
            await pilot.pause()
            if not rss:  # resident memory 10 s after Today, index open and the SDK imported
                import anthropic  # noqa: F401

                await asyncio.sleep(10)
                rss.append(resident_mib())

            def journal_listed(a=app) -> bool:  # type: ignore[no-untyped-def]
                screen = a.screen
                return isinstance(screen, JournalScreen) and bool(
                    screen.query_one("#entries").option_count
                )

            started = time.perf_counter()
            app.post_message(events.Key("f5", None))
            lists.append(await painted_after(app, started, journal_listed))
            await pilot.pause()
            screen = app.screen
            started = time.perf_counter()
            screen.query_one("#search").value = "sponsor kitchen"
            # Results painted: the list shows this search (comparing first rows hung when the
            # newest entry was also the best match).
            searches.append(
                await painted_after(app, started, lambda s=screen: s.listed == "sponsor kitchen")
            )
            await pilot.press("f6")
            await pilot.pause()
            message = app.screen.query_one("#message")
            message.focus()
            await pilot.pause()
            vault = app.vault
            # A second of decrypting in a thread, GIL and all, as extraction would do.
            app.run_worker(lambda v=vault: verify(v), thread=True)
            for _ in range(40):
                before = len(message.value)
                started = time.perf_counter()
                app.post_message(events.Key("a", "a"))
                keys_ms.append(
                    await painted_after(app, started, lambda m=message, b=before: len(m.value) > b)
                )
            await app.workers.wait_for_complete()
        fresh_process()
    keys.open_data_key = open_data_key  # type: ignore[assignment]
    print(f"\nIn the app on the ten-year vault ({runs} runs; keystrokes: {len(keys_ms)})")
    row("key derivation alone", kdf)
    row(
        "unlock: Enter to Today painted",
        statistics.median(unlocks),
        target=f"target <= {kdf + 150:,.0f} ms (KDF + 150)",
    )
    row(
        "open the journal list (F5 to painted)", statistics.median(lists), target="target <= 100 ms"
    )
    row(
        "search from the journal screen (typed to painted)",
        statistics.median(searches),
        target="target <= 30 ms",
    )
    row(
        "unlock: Enter to Today less its own key derivation",
        statistics.median(overs),
        target="target <= 150 ms (each run: " + ", ".join(f"{o:.0f}" for o in overs) + ")",
    )
    print(
        "  each run: Enter to Today "
        + ", ".join(f"{u:.0f}" for u in unlocks)
        + " ms; search "
        + ", ".join(f"{s:.1f}" for s in searches)
        + " ms"
    )
    row(
        "resident memory, 10 s after Today (this process)",
        rss[0],
        unit="MiB",
        target="target <= 200 MiB",
    )
    row("keystroke to screen, p50, slow worker running", statistics.median(keys_ms))
    row(
        "keystroke to screen, p95, slow worker running",
        percentile(keys_ms, 95),
        target="target <= 50 ms",
    )


def fresh_process() -> None:
    """Between two apps in this one process, what a new process would start from: the last
    app's objects collected and nothing of it frozen. Left in place, its 60,000 objects made a
    228-276 ms full collection that landed on the next unlock now and then (a person's next
    unlock is a new process, or follows a lock, which collects)."""
    gc.unfreeze()
    gc.collect()


def resident_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _timed(fn) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--keep", type=Path, help="ten-year vault folder (built if missing)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--paint", action="store_true", help="only the first-paint figures")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="companion-tui-bench-")) / "vault"
    if not (root / "vault.db").exists():
        build(root)
    runs = max(7, args.runs)
    print(f"Start to first paint in an 80x24 pseudo-terminal ({runs} alternated runs, medians)")
    paint = terminal_first_paint(root, runs)
    row("minimal Textual app", paint["minimal"])
    row("companion, unlock form", paint["ours"])
    row("ratio", paint["ours"] / paint["minimal"], unit="", target="target <= 1.25")
    row("CPU time until then, minimal app", paint["minimal cpu"])
    row("CPU time until then, companion", paint["ours cpu"])
    row("CPU ratio", paint["ours cpu"] / paint["minimal cpu"], unit="")
    print("Start to first paint (whole process, headless)")
    minimal = process_ms(MINIMAL, runs=args.runs)
    ours = process_ms(
        COMPANION % str(Path(__file__).resolve().parent.parent), str(root), runs=args.runs
    )
    row("minimal Textual app", minimal)
    row("companion, unlock screen", ours)
    row("ratio", ours / minimal, unit="", target="target <= 1.25")
    if args.paint:
        return
    asyncio.run(in_app(root, max(2, args.runs // 2)))


if __name__ == "__main__":
    main()
