"""Every command block of README.md and docs/*.md runs as written, in order, one folder per
page, and prints what the page shows (conventions: tests/docs/doc_blocks.py)."""

from __future__ import annotations

import pathlib
import re

import pytest
from doc_blocks import (
    PAGES,
    REPO,
    blocks,
    check_directive,
    check_files_of_examples,
    run_page,
    shows,
)

# README.md's commands are docs/index.md's (the package's readme), block for block: they run
# once, with index.md (test_readme_runs_what_index_runs holds them equal).
SAME_AS = {REPO / "README.md": REPO / "docs" / "index.md"}
RUN = [
    page
    for page in PAGES
    if page not in SAME_AS
    and any(b.language in ("bash", "python") and b.directive != "not run" for b in blocks(page))
]


def _run_blocks(page: pathlib.Path) -> list[tuple[str, str, str]]:
    return [
        (b.language, b.code, b.output or "")
        for b in blocks(page)
        if b.language in ("bash", "python") and b.directive != "not run"
    ]


def test_readme_runs_what_index_runs():
    for page, same in SAME_AS.items():
        assert _run_blocks(page) == _run_blocks(same), f"{page.name} and {same.name} differ"


def test_every_page_with_commands_is_run_and_directives_are_valid():
    names = [page.relative_to(REPO).as_posix() for page in RUN]
    assert "docs/index.md" in names and "docs/migration-guide.md" in names
    for page in PAGES:
        for block in blocks(page):
            check_directive(block)
        check_files_of_examples(blocks(page))
        for block in blocks(page):  # a shell block in another spelling would go unrun
            assert block.language in ("bash", "python", "text", "json", ""), block.where
        fences = [line for line in page.read_text().splitlines() if line.startswith("```")]
        assert all(re.fullmatch(r"```\w*", line) for line in fences), (page, fences)
        assert len(fences) % 2 == 0, f"{page}: a block is not closed"


def test_no_page_installs_tfport_from_the_registry():
    for page in PAGES:
        for block in blocks(page):
            for line in block.code.splitlines():
                words = line.split("#")[0].split()
                assert not ("install" in words and "tfport" in words), f"{block.where}: {line}"


def test_a_block_that_fails_or_prints_otherwise_fails(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```bash\necho one\n```\n```text\ntwo\n```\n")
    with pytest.raises(AssertionError, match="the page shows"):
        run_page(page, tmp_path)
    page.write_text("```bash\nfalse\necho after\n```\n")
    (tmp_path / "again").mkdir()
    with pytest.raises(AssertionError, match="exits 1"):
        run_page(page, tmp_path / "again")
    assert shows("a ... c\n", "a b c\n") and not shows("a\n", "b\n")


def test_a_continued_block_runs_in_the_session_of_the_block_above(tmp_path):
    page = tmp_path / "page.md"
    continued = "<!-- continues the block above -->\n```python\nprint(x + 1)\n```\n"
    page.write_text("```python\nx = 41\n```\n" + continued + "```text\n42\n```\n")
    assert [line.split(": ", 1)[1] for line in run_page(page, tmp_path)] == [
        "runs with the next block",
        "ran",
    ]


@pytest.mark.slow
@pytest.mark.parametrize("page", RUN, ids=[p.relative_to(REPO).as_posix() for p in RUN])
def test_page_commands_run_as_written(page: pathlib.Path, tmp_path):
    done = run_page(page, tmp_path)
    assert any(line.endswith("ran") for line in done), done
