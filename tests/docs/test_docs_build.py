"""The docs build is strict for real: the Makefile's `mkdocs build` command fails on a broken
cross-reference, in a page and in a docstring example, and passes on a clean site."""

from __future__ import annotations

import pathlib
import re
import shlex
import subprocess
import sys
import textwrap

import pytest
import yaml

REPO = pathlib.Path(__file__).resolve().parents[2]

MODULE = '''\
"""A module for the docs build test.

{section}:
    >>> [1, 2][0]
    1
"""
'''


def _makefile_mkdocs_commands() -> dict[str, str]:
    """{target: its `mkdocs build` command line} for each Makefile target that builds docs."""
    commands, target = {}, ""
    for line in (REPO / "Makefile").read_text().splitlines():
        match = re.match(r"^([\w-]+):", line)
        if match:
            target = match.group(1)
        elif line.startswith("\t") and "mkdocs build" in line:
            commands[target] = line.split("#")[0].strip()
    return commands


def _build(tmp_path: pathlib.Path, page: str, section: str) -> subprocess.CompletedProcess:
    """Runs the Makefile's lint command on a one-page site with the project's mkdocs.yml."""
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text(page)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "docsprobe.py").write_text(MODULE.format(section=section))
    config.update(docs_dir="docs", site_dir="site", nav=[{"Home": "index.md"}])
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "mkdocstrings" in plugin:
            plugin["mkdocstrings"]["handlers"]["python"]["paths"] = ["src"]
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    words = shlex.split(_makefile_mkdocs_commands()["lint"])
    assert words[0] == "$(VENV)/bin/mkdocs", words
    command = [sys.executable, "-m", "mkdocs", *words[1:]]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)


def test_makefile_builds_docs_strictly_and_keeps_the_warnings():
    commands = _makefile_mkdocs_commands()
    assert set(commands) == {"lint", "docs"}, commands
    for command in commands.values():
        words = shlex.split(command)
        assert "--strict" in words, command
        assert not {"-q", "--quiet"} & set(words), f"-q drops what --strict counts: {command}"


@pytest.mark.parametrize(
    "page, section",
    [
        ("# Home\n\nSee [the parser][docsprobe.no_such_name].\n", "Examples"),
        # an `Example:` section is Markdown: `[1, 2][0]` reads as a reference to `0`
        ("# Home\n\n::: docsprobe\n", "Example"),
    ],
    ids=["page", "docstring"],
)
def test_a_broken_cross_reference_fails_the_build(tmp_path, page, section):
    proc = _build(tmp_path, page, section)
    assert proc.returncode != 0, proc.stderr
    assert "Could not find cross-reference target" in proc.stderr, proc.stderr


def test_a_clean_site_builds(tmp_path):
    page = textwrap.dedent(
        """\
        # Home

        See [the module][docsprobe].

        ::: docsprobe
        """
    )
    proc = _build(tmp_path, page, "Examples")  # a code block: no reference
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "site" / "index.html").is_file()
