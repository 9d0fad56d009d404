"""Write a documentation page for every registered Gymnasium task, from the task itself.

Each page gives the id, the class, the options with their defaults (read from the
constructors), the action and observation spaces (shapes, dtypes, bounds), the class
docstring (observation layout, reward, endings) and a frame rendered headless from a short
random rollout. mkdocs builds them through ``scripts/mkdocs_hooks.py``; run this file to
write them to a folder instead::

    python scripts/env_pages.py OUT_DIR
"""

from __future__ import annotations

import inspect
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import gymnasium
import numpy as np
from gymnasium import spaces

from pyflyt_like.envs import registry  # importing the package registers the ids

NAMESPACE = registry.NAMESPACE
ROLLOUT_STEPS = 20  # random actions before the frame is taken, so the vehicle has moved


@dataclass(frozen=True)
class EnvPage:
    task: str  # e.g. "QuadX-Hover"
    markdown: str
    image_png: bytes

    @property
    def slug(self) -> str:
        return self.task.lower()


def task_id(task: str) -> str:
    return registry.env_id(task)


def options_table(env_class: type) -> list[tuple[str, str, str]]:
    """(name, default, meaning) of every keyword the task accepts, along its class chain.

    Meanings come from the "Args:" sections of the class docstrings, nearest class first.
    """
    defaults: dict[str, str] = {}
    meanings: dict[str, str] = {}
    for cls in env_class.__mro__:
        if cls.__module__.split(".")[0] != NAMESPACE:
            continue
        for name, meaning in docstring_args(cls.__doc__ or "").items():
            meanings.setdefault(name, meaning)
        if "__init__" not in vars(cls):
            continue
        for name, parameter in inspect.signature(cls.__init__).parameters.items():
            if name == "self" or parameter.kind in (parameter.VAR_KEYWORD,
                                                    parameter.VAR_POSITIONAL):
                continue
            if name not in defaults:
                default = parameter.default
                defaults[name] = ("required" if default is inspect.Parameter.empty
                                  else f"`{default!r}`")
    return [(name, defaults[name], meanings.get(name, "")) for name in sorted(defaults)]


def docstring_args(docstring: str) -> dict[str, str]:
    """``{name: description}`` of a Google-style "Args:" section (``a, b: ...`` gives both)."""
    text = inspect.cleandoc(docstring)
    found: dict[str, str] = {}
    in_args, current = False, []
    for line in text.splitlines():
        if line.strip() == "Args:":
            in_args = True
            continue
        if in_args and line and not line.startswith(" "):
            break  # the next section
        # "**options:" entries end the previous entry too (they are not in the table)
        entry = re.match(r"^    (?:\*\*)?([\w, ]+):\s*(.*)$", line) if in_args else None
        if entry:
            current = [n.strip() for n in entry.group(1).split(",")]
            for name in current:
                found[name] = entry.group(2)
        elif in_args and current and line.startswith("      "):
            for name in current:
                found[name] += " " + line.strip()
    return {name: markdown_text(text) for name, text in found.items()}


def markdown_text(text: str) -> str:
    """Docstring markup to Markdown: ``code`` and :role:`target` become `code`."""
    text = re.sub(r":\w+:`~?\.*([\w.]+)`", lambda m: f"`{m.group(1).split('.')[-1]}`", text)
    return text.replace("``", "`")


def docstring_body(docstring: str) -> str:
    """The docstring without its "Args:" section, as Markdown."""
    kept, skipping = [], False
    for line in inspect.cleandoc(docstring).splitlines():
        if line.strip() == "Args:":
            skipping = True
            continue
        if skipping and line and not line.startswith(" "):
            skipping = False
        if not skipping:
            kept.append(line)
    return markdown_text("\n".join(kept)).strip()


def describe_space(space: spaces.Space, name: str = "") -> list[str]:
    """Markdown lines describing ``space`` (nested for Dict and Sequence)."""
    label = f"`{name}`: " if name else ""
    if isinstance(space, spaces.Dict):
        lines = [f"- {label}Dict of"]
        for key, sub in space.spaces.items():
            lines += ["  " + line for line in describe_space(sub, key)]
        return lines
    if isinstance(space, spaces.Sequence):
        inner = describe_space(space.feature_space)
        stacked = " (stacked into one array)" if space.stack else ""
        return [f"- {label}Sequence of variable length{stacked}, each element"] + [
            "  " + line for line in inner]
    if isinstance(space, spaces.Box):
        return [f"- {label}Box, shape `{space.shape}`, `{space.dtype}`, "
                f"{_bounds(space.low)} to {_bounds(space.high)}"]
    return [f"- {label}`{space}`"]


def _bounds(values: np.ndarray) -> str:
    flat = np.unique(values)
    if flat.size == 1:
        return f"`{flat[0]:g}`"
    if values.ndim == 1 and values.size <= 16:
        return "`[" + ", ".join(f"{v:g}" for v in values) + "]`"
    return f"`{flat.min():g}`…`{flat.max():g}` (per element)"


def render_frame(task: str) -> bytes:
    """PNG bytes of the task's chase-camera frame after a short seeded random rollout."""
    import matplotlib.image

    env = gymnasium.make(task_id(task), render_mode="rgb_array")
    try:
        env.reset(seed=0)
        env.action_space.seed(0)
        for _ in range(ROLLOUT_STEPS):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                break
        frame = env.render()
    finally:
        env.close()
    buffer = io.BytesIO()
    matplotlib.image.imsave(buffer, frame, format="png")
    return buffer.getvalue()


def env_page(task: str) -> EnvPage:
    env = gymnasium.make(task_id(task))
    try:
        unwrapped = env.unwrapped
        env_class = type(unwrapped)
        action, observation = env.action_space, env.observation_space
    finally:
        env.close()
    slug = task.lower()
    lines = [
        f"# {task}",
        "",
        f"![{task} after {ROLLOUT_STEPS} random steps]({slug}.png)",
        "",
        "| | |",
        "|---|---|",
        f"| id | `{task_id(task)}` |",
        f"| class | `{env_class.__module__}.{env_class.__name__}` |",
        "",
        "```python",
        "import gymnasium",
        "import pyflyt_like.envs",
        "",
        f'env = gymnasium.make("{task_id(task)}")',
        "observation, info = env.reset(seed=0)",
        "observation, reward, terminated, truncated, info = env.step(env.action_space.sample())",
        "env.close()",
        "```",
        "",
        "## Action space",
        "",
        *describe_space(action),
        "",
        "What each entry commands in each flight mode: "
        "[the action tables](../envs.md#actions-are-normalised).",
        "",
        "## Observation space",
        "",
        *describe_space(observation),
        "",
        "## Observation, reward and endings",
        "",
        docstring_body(env_class.__doc__ or ""),
        "",
        "## Options",
        "",
        "Keyword arguments of `gymnasium.make` (the shared ones are explained in "
        "[Gymnasium tasks](../envs.md)).",
        "",
        "| option | default | meaning |",
        "|---|---|---|",
        *(f"| `{name}` | {default} | {meaning} |"
          for name, default, meaning in options_table(env_class)),
        "",
        "*This page is generated from the task by `scripts/env_pages.py`.*",
        "",
    ]
    return EnvPage(task, "\n".join(lines), render_frame(task))


def all_pages() -> list[EnvPage]:
    """A page for every PyBullet task of :data:`pyflyt_like.envs.registry.PYBULLET_TASKS`."""
    return [env_page(entry.name) for entry in registry.PYBULLET_TASKS]


def main(out_dir: str) -> None:
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for page in all_pages():
        (folder / f"{page.slug}.md").write_text(page.markdown, encoding="utf-8")
        (folder / f"{page.slug}.png").write_bytes(page.image_png)
        print(folder / f"{page.slug}.md")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python scripts/env_pages.py OUT_DIR")
    main(sys.argv[1])
