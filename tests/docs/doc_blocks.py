"""The code blocks of README.md and docs/*.md, as a reader would run them.

A page's blocks run in order in one folder of their own (a copy of nothing but a link to the
checkout's `examples/`), each `bash` block with `bash -e -o pipefail`, each `python` block in
a fresh interpreter, with the project's `tfport` and `python` first on PATH. What the page
says about a block, in an HTML comment on the line before it (invisible on the page):

- `<!-- not run: installs a distribution -->`, `<!-- not run: CI runs it -->` or
  `<!-- not run: run by tests/PATH -->` (that test file must exist): the block is counted,
  not run. No other reason is accepted. A block "run by tests/examples/test_examples.py"
  must be lines of the `examples/*.sh` scripts or `tfport run` lines of examples/README.md
  that test runs (`"$here/` read as `examples/`, `"$out"` and `OUT` as `out`), so the same
  commands run, once.
- `<!-- file: NAME -->` before a `python` block: the block is written to NAME (the page
  says to save it so), not run.
- `<!-- continues the block above -->` before a `python` block: it runs in the session of
  the python block above (that block and this one run as one program, at this one).

A `text` block right after a run block is what that block prints on stdout (`...` stands
for any text, as in doctest). Blocks of other languages (`json`, plain) are not commands.
"""

from __future__ import annotations

import dataclasses
import doctest
import os
import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
RUN_LANGUAGES = ("bash", "python")
NOT_RUN_REASONS = ("installs a distribution", "CI runs it", "run by tests/")

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
_DIRECTIVE = re.compile(r"<!--\s*(not run|file|continues)\b:?\s*(.*?)\s*-->\s*$")


@dataclasses.dataclass
class Block:
    """One fenced block of a page: its language, code, directive and expected output."""

    page: str
    line: int
    language: str
    code: str
    directive: str = ""
    argument: str = ""
    output: str | None = None
    end: int = 0  # offset of the closing fence in the page

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(path: pathlib.Path) -> list[Block]:
    """The page's blocks, each `text` block attached as the output of the block before it."""
    text = path.read_text()
    found: list[Block] = []
    for match in _FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        directive = _DIRECTIVE.search(before)
        language, code = match.group(1), match.group(2)
        if language == "text" and found and found[-1].language in RUN_LANGUAGES:
            if not text[found[-1].end : match.start()].strip():
                found[-1].output = code
                continue
        page = path.relative_to(REPO).as_posix() if path.is_relative_to(REPO) else path.name
        block = Block(page, line, language, code, end=match.end())
        if directive:
            block.directive, block.argument = directive.group(1), directive.group(2)
        found.append(block)
    return found


def check_directive(block: Block) -> None:
    """Fails on a `not run` reason other than the accepted ones, or a missing test file."""
    if block.directive == "not run":
        reason = block.argument
        assert reason.startswith(NOT_RUN_REASONS), f"{block.where}: not run because {reason!r}"
        if reason.startswith("run by "):
            test = REPO / reason.removeprefix("run by ").split()[0]
            assert test.is_file(), f"{block.where}: {test} does not exist"
            if test.name == "test_examples.py":
                for line in _command_lines(block.code):
                    assert runs_in_examples(line), f"{block.where}: no example runs {line!r}"
    if block.directive == "file":
        assert block.language == "python" and re.fullmatch(r"[\w./-]+", block.argument), block
    if block.directive == "continues":
        assert block.language == "python", f"{block.where}: only python blocks continue"


def _command_lines(code: str) -> list[str]:
    """A bash block's commands, without comments and quotes, spaces normalized."""
    lines = (line.split("#", 1)[0].replace('"', "") for line in code.splitlines())
    return [" ".join(line.split()) for line in lines if line.strip()]


def _example_scripts() -> str:
    """examples/*.sh as a reader in the checkout would type them (`$here/` is examples/)."""
    scripts = sorted((REPO / "examples").glob("*.sh"))
    return "\n".join(s.read_text().replace("$here/", "examples/") for s in scripts)


def runs_in_examples(line: str) -> bool:
    """Whether tests/examples runs this command: a line of an examples/*.sh script (`$out`
    read as `out`), a `tfport run` line of examples/README.md (`OUT`: any folder), or
    `bash examples/NAME.sh OUT` for a script tests/examples/test_examples.py runs.

    Example:
        >>> runs_in_examples("tfport graph inspect out/frozen.pb")
        True
        >>> runs_in_examples("tfport run examples/custom_model_fn_v1.py out/one")
        True
        >>> runs_in_examples("tfport run examples/custom_model_fn_v1.py out --flag")
        False
        >>> runs_in_examples("bash examples/upgrade_tf1_tree.sh out/upgrade")
        True
    """
    if line in _command_lines(_example_scripts().replace("$out", "out")):
        return True
    script = re.fullmatch(r"bash examples/(\w+\.sh) [\w./-]+", line)
    if script and script.group(1) in (REPO / "tests" / "examples" / "test_examples.py").read_text():
        return (REPO / "examples" / script.group(1)).is_file()
    table = (REPO / "examples" / "README.md").read_text()  # its "run with" column
    commands = re.findall(r"\| `(tfport run [^`]*)` \|", table)
    patterns = (re.escape(c).replace("OUT", r"[\w./-]+") for c in commands)
    return any(re.fullmatch(pattern, line) for pattern in patterns)


def check_files_of_examples(page: list[Block]) -> None:
    """A `file:` block whose commands an example runs is that example's file, verbatim."""
    for index, block in enumerate(page):
        later = [b for b in page[index + 1 :] if b.language in RUN_LANGUAGES]
        if block.directive == "file" and later and "tests/examples/" in later[0].argument:
            assert block.code.strip() in _example_scripts(), (
                f"{block.where}: {block.argument} is not the file an examples/*.sh writes"
            )


def environment() -> dict[str, str]:
    """The reader's shell: the project's venv first on PATH, nothing of pytest's."""
    bin_dir = str(pathlib.Path(sys.executable).parent)
    ours = ("PYTEST", "PYTHONPATH", "TF_USE_LEGACY_KERAS", "TF_CPP_MIN_LOG_LEVEL")  # conftest's
    env = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    return env


def run_page(path: pathlib.Path, folder: pathlib.Path) -> list[str]:
    """Runs the page's blocks in `folder`; returns one line per block (what happened)."""
    (folder / "examples").symlink_to(REPO / "examples")
    done = []
    page = blocks(path)
    for index, block in enumerate(page):
        check_directive(block)
        if block.language not in RUN_LANGUAGES:
            continue
        later = [b for b in page[index + 1 :] if b.language in RUN_LANGUAGES]
        if later and later[0].directive == "continues":
            later[0].code = block.code + "\n" + later[0].code
            done.append(f"{block.where}: runs with the next block")
            continue
        if block.directive == "not run":
            done.append(f"{block.where}: not run ({block.argument})")
            continue
        if block.directive == "file":
            (folder / block.argument).parent.mkdir(parents=True, exist_ok=True)
            (folder / block.argument).write_text(block.code)
            done.append(f"{block.where}: saved as {block.argument}")
            continue
        script = folder / f".block_{block.line}.{'sh' if block.language == 'bash' else 'py'}"
        script.write_text(block.code)
        command = (
            ["bash", "-e", "-o", "pipefail", str(script)]
            if block.language == "bash"
            else [sys.executable, str(script)]
        )
        proc = subprocess.run(
            command, cwd=folder, env=environment(), capture_output=True, text=True, timeout=600
        )
        script.unlink()
        assert proc.returncode == 0, (
            f"{block.where} exits {proc.returncode}\n{block.code}\n"
            f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-4000:]}"
        )
        if block.output is not None:
            assert shows(block.output, proc.stdout), (
                f"{block.where} prints\n{proc.stdout}\nthe page shows\n{block.output}"
            )
        done.append(f"{block.where}: ran")
    return done


def shows(expected: str, got: str) -> bool:
    """Whether `got` is what the page shows (`...` for any text, spaces normalized).

    Example:
        >>> shows("wrote ...\\nok\\n", "wrote /tmp/x\\nok\\n"), shows("ok\\n", "no\\n")
        (True, False)
    """
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    return doctest.OutputChecker().check_output(expected, got, flags)
