"""The one strict YAML reader of the data files (vehicle and sensor models, world files):
pyflyt_like.common.loading.read_yaml / load_yaml. Every refusal is a ValueError naming
the file, in well under a second, never a UnicodeDecodeError, a RecursionError or a hang."""

from __future__ import annotations

import pytest

from pyflyt_like.common import loading
from pyflyt_like.common.loading import (
    MAX_ALIAS_NODES,
    MAX_YAML_NESTING,
    load_yaml,
    model_files,
    read_yaml,
)


def _laughs(levels: int) -> str:
    """A "billion laughs" file: each level a list of nine aliases of the one before
    (9**levels strings from a few hundred bytes)."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        alias = f"*a{level - 1}"
        lines.append(f"a{level}: &a{level} [{', '.join([alias] * 9)}]")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("content", "match"), [
    (bytes(range(256)) * 4, r"is not a UTF-8 text file \(byte 128 is 0x80\): a YAML file is "
                            r"expected"),
    (b"\xff\xfe" + "a: 1\n".encode("utf-16-le"), "is not a UTF-8 text file"),
    (_laughs(9).encode(), rf"its aliases \(\*name\) repeat 4\.9e\+08 nodes, more than the "
                          rf"{MAX_ALIAS_NODES} allowed"),
    (_laughs(9).encode() + b"forest: *a8\n", r"repeat 9\.26e\+08 nodes"),
    (b"[" * 5000 + b"]" * 5000, rf"nested deeper than {MAX_YAML_NESTING} levels"),
    ("".join(f"a{i}: &a{i} [{f'*a{i - 1}' if i else 1}]\n" for i in range(60)).encode(),
     rf"aliases nest lists and mappings deeper than {MAX_YAML_NESTING} levels"),
    (b"a: &a [*a]\n", "an alias refers to a node that holds it"),
    (b"a: [1, 2\n", "is not valid YAML"),
    (b"a: 1\x00\n", "is not valid YAML: unacceptable character #x0000"),
    (b"a: 1\n---\nb: 2\n", "is not valid YAML: expected a single document"),
    (b"when: 2024-13-01\n", "holds a value YAML cannot read: month must be in 1..12"),
    (b"n: " + b"7" * 5000 + b"\n", "holds a value YAML cannot read: Exceeds the limit"),
])
def test_a_bad_yaml_file_is_a_value_error_naming_it_at_once(tmp_path, content, match):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=match) as caught:
        read_yaml(path)
    assert str(caught.value).startswith(str(path))


def test_a_file_larger_than_the_bound_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    monkeypatch.setattr(loading, "MAX_YAML_BYTES", 1000)
    path = tmp_path / "big.yaml"
    path.write_text("a: 1\n" * 300)
    with pytest.raises(ValueError, match=r"big\.yaml is larger than the MAX_YAML_BYTES=1,000 "
                                         r"bytes a YAML file may have"):
        read_yaml(path)
    path.write_text("a: 1\n" * 100)
    assert read_yaml(path) == {"a": 1}


def test_shared_blocks_and_merge_keys_still_load(tmp_path):
    path = tmp_path / "merge.yaml"
    path.write_text("base: &b {x: 1, y: [1, 2]}\nitems:\n  - {<<: *b, z: 3}\n  - *b\n")
    assert read_yaml(path) == {"base": {"x": 1, "y": [1, 2]},
                               "items": [{"x": 1, "y": [1, 2], "z": 3}, {"x": 1, "y": [1, 2]}]}
    # the rocket's fins share one block of defaults through an alias
    rocket = load_yaml(model_files("rocket")[1])
    assert rocket["surfaces"][0]["link"] == "finlet_pos_x"
    assert rocket["surfaces"][0].keys() >= rocket["surface_defaults"].keys()


def test_load_yaml_wants_a_mapping_and_missing_files_stay_file_not_found(tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text("- 1\n")
    with pytest.raises(ValueError, match="must contain a YAML mapping at top level"):
        load_yaml(path)
    (tmp_path / "empty.yaml").write_text("")
    assert read_yaml(tmp_path / "empty.yaml") is None
    with pytest.raises(FileNotFoundError):
        read_yaml(tmp_path / "missing.yaml")
