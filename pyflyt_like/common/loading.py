"""Locating and reading model files (URDF + YAML), and the one strict YAML reader of the
package's data files: vehicle and sensor models (:func:`load_yaml`) and world files
(:func:`read_yaml`, :mod:`pyflyt_like.worlds.files`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.events import AliasEvent
from yaml.nodes import MappingNode, Node, SequenceNode

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
VEHICLES_DIR = MODELS_DIR / "vehicles"

#: Largest YAML file read [bytes]. A world file of MAX_PRIMITIVES (100 000) primitives is
#: about 16 MB and takes about 35 s to read (PyYAML); a vehicle model is a few kB.
MAX_YAML_BYTES = 32 << 20
#: Deepest nesting of lists and mappings read, aliases expanded (a world file needs 4, a
#: vehicle model 5). PyYAML's composer recurses once per level: a file of 1000 "[" would
#: otherwise end in a RecursionError.
MAX_YAML_NESTING = 32
#: The most nodes that aliases (``*name``) may repeat in one file, counted with everything
#: the repeated node holds: a shared block (``<<: *defaults``) costs tens. A 1 kB "billion
#: laughs" file repeats 10^9 nodes, which PyYAML composes at once (an alias is a reference)
#: but which any later walk of the data (a check, an error message) would take hours over.
MAX_ALIAS_NODES = 10_000


def model_files(drone_model: str, model_dir: str | Path | None = None) -> tuple[Path, Path]:
    """Return ``(urdf_path, yaml_path)`` of a vehicle model.

    Args:
        drone_model: model name; files are ``<model_dir>/<drone_model>/<drone_model>.urdf|.yaml``.
        model_dir: folder holding model folders; defaults to the package's ``models/vehicles``.

    Raises:
        FileNotFoundError: when the URDF is missing, naming the path looked at. The YAML is
            optional here (a user's vehicle may keep its parameters elsewhere); vehicles that
            read it check for it.
    """
    if not isinstance(drone_model, str) or not drone_model:
        raise TypeError(f"drone_model must be a non-empty string, got {drone_model!r}")
    root = Path(model_dir) if model_dir is not None else VEHICLES_DIR
    folder = root / drone_model
    urdf, params = folder / f"{drone_model}.urdf", folder / f"{drone_model}.yaml"
    if not urdf.is_file():
        known = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        raise FileNotFoundError(
            f"model file {urdf} not found for drone_model={drone_model!r} "
            f"(models in {root}: {known})"
        )
    return urdf, params


def load_yaml(path: str | Path) -> dict[str, Any]:
    """Read a YAML mapping (:func:`read_yaml`); raise ValueError naming the file if it is
    not one."""
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise ValueError(f"{path} must contain a YAML mapping at top level")
    return data


def read_yaml(path: str | Path) -> Any:
    """The data of the YAML file ``path`` (``None`` for an empty file), read safely
    (``yaml.SafeLoader``: plain data only) and within bounds.

    Raises:
        FileNotFoundError, PermissionError, IsADirectoryError: as ``open``.
        ValueError: naming the file: larger than :data:`MAX_YAML_BYTES`; not UTF-8 text
            (a binary file); not valid YAML; nested deeper than :data:`MAX_YAML_NESTING`;
            aliases that repeat more than :data:`MAX_ALIAS_NODES` nodes or refer to
            themselves; a value PyYAML cannot build (an impossible date, an integer of
            thousands of digits).
    """
    # Read in pieces up to the bound: a device never ends, and read(MAX_YAML_BYTES + 1)
    # would take the whole 32 MiB at once, for a file of a few kB.
    pieces, size = [], 0
    with open(path, "rb") as handle:
        while piece := handle.read(1 << 16):
            size += len(piece)
            if size > MAX_YAML_BYTES:
                raise ValueError(f"{path} is larger than the MAX_YAML_BYTES={MAX_YAML_BYTES:,} "
                                 "bytes a YAML file may have")
            pieces.append(piece)
    raw = b"".join(pieces)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path} is not a UTF-8 text file (byte {error.start} is "
                         f"{raw[error.start]:#04x}): a YAML file is expected") from None
    try:
        loader = _BoundedLoader(text)  # the reader checks the characters here
    except yaml.YAMLError as error:
        raise ValueError(f"{path} is not valid YAML: {error}") from None
    loader.name = str(path)  # the marks of its messages name the file
    try:
        try:
            node = loader.get_single_node()
        except yaml.YAMLError as error:
            raise ValueError(f"{path} is not valid YAML: {error}") from None
        if node is None:
            return None
        if loader.aliases:
            check_aliases(node, path)
        try:
            return loader.construct_document(node)
        except yaml.YAMLError as error:
            raise ValueError(f"{path} is not valid YAML: {error}") from None
        except (ValueError, OverflowError) as error:  # a date 2024-13-01, a huge integer
            raise ValueError(f"{path} holds a value YAML cannot read: {error}") from None
    finally:
        loader.dispose()


class _BoundedLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses nesting deeper than :data:`MAX_YAML_NESTING` while
    it composes, and counts the aliases met (:func:`check_aliases` then bounds them)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0
        self.aliases = 0

    def compose_node(self, parent: Node | None, index: object) -> Node:
        if self.check_event(AliasEvent):
            self.aliases += 1
        elif self.depth >= MAX_YAML_NESTING:
            raise yaml.composer.ComposerError(
                None, None, f"lists and mappings nested deeper than {MAX_YAML_NESTING} levels "
                            "(MAX_YAML_NESTING)", self.peek_event().start_mark)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def check_aliases(root: Node, path: object) -> None:
    """Refuse a document whose aliases, expanded, repeat more than :data:`MAX_ALIAS_NODES`
    nodes or nest deeper than :data:`MAX_YAML_NESTING`, or that refers to itself; in time
    linear in the nodes written (each is measured once)."""
    expanded: dict[int, tuple[int, int]] = {}  # id -> (nodes, depth) with aliases expanded
    open_nodes: set[int] = set()

    def measure(node: Node) -> tuple[int, int]:
        key = id(node)
        if key in expanded:
            return expanded[key]
        if key in open_nodes:
            raise ValueError(f"{path}: an alias refers to a node that holds it (a recursive "
                             "structure), which a data file cannot have")
        open_nodes.add(key)
        if isinstance(node, SequenceNode):
            children = node.value
        elif isinstance(node, MappingNode):
            children = [item for pair in node.value for item in pair]
        else:
            children = []
        nodes, depth = 1, 1
        for child in children:
            child_nodes, child_depth = measure(child)
            nodes, depth = nodes + child_nodes, max(depth, child_depth + 1)
        if depth > MAX_YAML_NESTING:
            raise ValueError(f"{path}: aliases nest lists and mappings deeper than "
                             f"{MAX_YAML_NESTING} levels (MAX_YAML_NESTING)")
        open_nodes.discard(key)
        expanded[key] = nodes, depth
        return nodes, depth

    repeated = measure(root)[0] - len(expanded)
    if repeated > MAX_ALIAS_NODES:
        raise ValueError(f"{path}: its aliases (*name) repeat {repeated:.3g} nodes, more than "
                         f"the {MAX_ALIAS_NODES} allowed (MAX_ALIAS_NODES); write the "
                         "repeated parts out")
