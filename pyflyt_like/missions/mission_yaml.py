"""Reading mission YAML strictly: the file checks, the decoding and a stricter SafeLoader.

:func:`load_mission_file` and :func:`load_mission_text` turn a file or a string into plain
data, raising :class:`~pyflyt_like.missions.errors.MissionError` with a one-line message
for everything PyYAML would accept silently or fail on obscurely:

- a path that is a folder, not a regular file, unreadable, or larger than
  :data:`MAX_FILE_BYTES`;
- bytes that are not UTF-8 (the message gives the byte offset and line);
- a key given twice in one mapping (PyYAML keeps the last one without a word);
- nesting deeper than :data:`MAX_NESTING` (PyYAML's composer recurses once per level);
- aliases that repeat more than ``MAX_ALIAS_NODES`` nodes or refer to themselves (as every
  data file: :func:`pyflyt_like.common.loading.check_aliases`);
- values PyYAML cannot build (an impossible date, an integer of thousands of digits).

The loader also reads ``1e3`` and ``2.5E-4`` as numbers, as YAML 1.2 does (PyYAML, following
YAML 1.1, reads an exponent without a dot or without a sign as text).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode

from pyflyt_like.common.loading import check_aliases

from .errors import MissionError

MAX_FILE_BYTES = 1 << 20
"""Largest mission file read [bytes] (1 MiB: some 30 000 waypoints)."""

MAX_NESTING = 20
"""Deepest nesting of lists and mappings read (a mission needs 6)."""

_MERGE_TAG = "tag:yaml.org,2002:merge"
_FLOAT_TAG = "tag:yaml.org,2002:float"
# Numbers with an exponent that YAML 1.1's float pattern misses: 1e3, 1E-4, 2.5e3, 1.e+3.
_EXPONENT_FLOAT = re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")


class MissionYAMLError(yaml.MarkedYAMLError):
    """A problem found while reading the YAML; ``problem`` is one line, ``problem_mark`` where."""


def _line(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}"


class MissionLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses duplicate keys and deep nesting, and reads ``1e3``.

    Duplicate keys are checked when a mapping is constructed, on the keys written in it
    (keys merged in with ``<<: *anchor`` may be overridden, as YAML intends).
    """

    def __init__(self, stream: str):
        super().__init__(stream)
        self._depth = 0
        self._checked: set[int] = set()

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self._depth >= MAX_NESTING:
            mark = self.peek_event().start_mark
            raise MissionYAMLError(problem=f"lists and mappings nested deeper than {MAX_NESTING} "
                                           "levels (a mission needs at most 6)",
                                   problem_mark=mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def flatten_mapping(self, node: MappingNode) -> None:
        # SafeConstructor.construct_mapping calls this first, and merging calls it on the
        # merged mappings before they are built: node.value is still as written here.
        if id(node) not in self._checked:
            self._checked.add(id(node))
            self._check_duplicate_keys(node)
        super().flatten_mapping(node)

    def construct_mapping(self, node: Any, deep: bool = False) -> dict:
        if isinstance(node, MappingNode) and id(node) not in self._checked:
            self._checked.add(id(node))
            self._check_duplicate_keys(node)
        return super().construct_mapping(node, deep=deep)

    def _check_duplicate_keys(self, node: MappingNode) -> None:
        first: dict[Any, tuple[int, Any]] = {}
        for index, (key_node, _) in enumerate(node.value):
            if key_node.tag == _MERGE_TAG:
                continue
            key = self.construct_object(key_node, deep=True)
            try:
                earlier, earlier_node = first.setdefault(key, (index, key_node))
            except TypeError:  # unhashable: construct_mapping reports it
                continue
            if earlier != index:  # (the same alias used twice as a key is a duplicate too)
                raise MissionYAMLError(
                    problem=f"duplicate key {_short(key)} at {_line(key_node.start_mark)} "
                            f"(first at {_line(earlier_node.start_mark)}); give each key "
                            "once in a mapping",
                    problem_mark=key_node.start_mark)

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, OverflowError) as error:  # e.g. a date 2024-13-01, a huge integer
            reason = str(error).split(";")[0]
            raise MissionYAMLError(problem=f"cannot read the value {_short(node.value)} at "
                                           f"{_line(node.start_mark)}: {reason}",
                                   problem_mark=node.start_mark) from None


MissionLoader.add_implicit_resolver(_FLOAT_TAG, _EXPONENT_FLOAT, list("-+0123456789"))


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def load_mission_text(text: str, source: str) -> Any:
    """Parse mission YAML ``text`` with :class:`MissionLoader`; ``source`` prefixes errors."""
    loader = None
    try:
        loader = MissionLoader(text)  # the reader checks the characters here
        node = loader.get_single_node()
        if node is None:
            return None
        # aliases bounded as in every data file: a "billion laughs" file is refused at once
        check_aliases(node, source)
        return loader.construct_document(node)
    except ValueError as error:  # check_aliases'
        raise MissionError(str(error)) from None
    except MissionYAMLError as error:
        raise MissionError(f"{source}: {error.problem}") from None
    except yaml.reader.ReaderError as error:
        line = text.count("\n", 0, error.position) + 1
        raise MissionError(f"{source}: character #x{error.character:04x} at line {line} is not "
                           "allowed in YAML (control characters must not appear in the "
                           "file)") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at {_line(mark)}" if mark else ""
        problem = getattr(error, "problem", None) or "invalid YAML"
        raise MissionError(f"{source}: YAML syntax error{where}: {problem}") from None
    finally:
        if loader is not None:
            loader.dispose()


def load_mission_file(path: str | Path) -> Any:
    """Read a mission file as plain data; every problem is a one-line ``MissionError``."""
    path = Path(path)
    try:
        if path.is_dir():
            raise MissionError(f"mission file {path} is a directory, not a file")
        if not path.exists():
            raise MissionError(f"mission file {path} not found")
        if not path.is_file():
            raise MissionError(f"mission file {path} is not a regular file")
        with path.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except PermissionError:
        raise MissionError(f"mission file {path} cannot be read: permission denied") from None
    except OSError as error:
        raise MissionError(f"mission file {path} cannot be read: "
                           f"{error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise MissionError(f"mission file {path} is larger than {MAX_FILE_BYTES} bytes "
                           "(1 MiB); a mission is a few kilobytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise MissionError(f"mission file {path} is not UTF-8 text: byte "
                           f"0x{data[error.start]:02x} at offset {error.start} (line {line}) "
                           "cannot be decoded; save the file as UTF-8") from None
    return load_mission_text(text, str(path))
