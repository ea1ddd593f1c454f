"""The `tfport` command's parser: every argument has help and shows its default, every
command but `run` and `demo` takes `--json` (the commands themselves: tests/test_cli.py)."""

from __future__ import annotations

import argparse


def _arguments(parser: argparse.ArgumentParser, path: str):
    """(command path, action, parser) of every argument of every `tfport` subcommand."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield f"{path} {name}", helps.get(name), sub
                yield from _arguments(sub, f"{path} {name}")
        elif not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            yield path, action, parser


def _missing_help(parser: argparse.ArgumentParser) -> list[str]:
    missing = []
    for path, item, owner in _arguments(parser, "tfport"):
        if not isinstance(item, argparse.Action):  # a subcommand and its help line
            if not item:
                missing.append(f"{path}: no help line")
            continue
        name = "/".join(item.option_strings) or item.dest
        if not item.help or item.help == argparse.SUPPRESS:
            missing.append(f"{path} {name}: no help")
            continue
        shown = owner._get_formatter()._expand_help(item)
        if item.default not in (None, False, "", [], argparse.SUPPRESS) and "default" not in shown:
            missing.append(f"{path} {name}: default {item.default!r} not shown")
    return missing


def test_every_argument_of_every_command_has_help_and_shows_its_default():
    from tfport.cli._main import build_parser

    parser = build_parser()
    assert sum(1 for _ in _arguments(parser, "tfport")) > 60  # the walk reaches every verb
    assert _missing_help(parser) == []


def test_the_help_walk_finds_an_argument_without_help():
    parser = argparse.ArgumentParser(prog="tfport")
    verbs = parser.add_subparsers().add_parser("x", help="a verb")
    verbs.add_argument("path")
    verbs.add_argument("--n", type=int, default=3, help="count")
    assert _missing_help(parser) == ["tfport x path: no help", "tfport x --n: default 3 not shown"]


def test_every_command_but_run_and_demo_takes_json():
    """docs/index.md says so."""
    from tfport.cli._main import build_parser

    leaves = {}
    for path, item, _owner in _arguments(build_parser(), "tfport"):
        if isinstance(item, argparse.Action):
            leaves.setdefault(path, set()).update(item.option_strings)
    commands = {p for p in leaves if not any(q.startswith(p + " ") for q in leaves)}
    assert {p for p in commands if "--json" not in leaves[p]} == {"tfport run", "tfport demo"}
