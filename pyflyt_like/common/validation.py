"""Argument validation that raises clear errors naming the argument and what is allowed."""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np


class NumericalError(RuntimeError):
    """The simulation produced a non-finite state (NaN or inf)."""


def as_float_array(name: str, value: object, shape: Sequence[int | None]) -> np.ndarray:
    """Convert ``value`` to a finite float64 array of the given shape.

    ``None`` in ``shape`` means "any length along this axis".

    Numbers of any numpy type are accepted; strings and bools are not (``"0.5"`` is a typo
    more often than a number, and ``True`` is no coordinate).

    Raises:
        TypeError: when ``value`` is not numeric.
        ValueError: when the shape differs or an entry is NaN or infinite.
    """
    try:
        raw = np.asarray(value)
        if isinstance(value, (list, tuple)) and _holds_bool(value):
            raise TypeError  # numpy reads [True, 0, 0] as integers
        if raw.dtype.kind not in _NUMERIC_KINDS or (
                raw.dtype.kind == "O" and not all(_is_number(v) for v in raw.flat)):
            raise TypeError
        array = np.array(raw, dtype=np.float64)
    except OverflowError:  # ints beyond float64 (10**400)
        raise ValueError(f"{name} must be finite (no NaN or inf), got {describe_value(value)}"
                         ) from None
    except (TypeError, ValueError) as error:
        raise TypeError(f"{name} must be a numeric array of shape {_shape_text(shape)}, "
                        f"got {describe_value(value)}") from error
    if array.ndim != len(shape) or any(
        want is not None and got != want for got, want in zip(array.shape, shape)
    ):
        raise ValueError(f"{name} must have shape {_shape_text(shape)}, got {array.shape}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite (no NaN or inf), got {array.tolist()}")
    return array


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` as a bool if it is one (Python or numpy), else raise TypeError."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return bool(value)


def check_int(name: str, value: object) -> int:
    """Return ``value`` as an int if it is one (Python or numpy, not a bool), else raise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {value!r}")
    return int(value)


def check_flight_mode(name: str, value: object, modes: Sequence[int]) -> int:
    """Return ``value`` as an int if it is one of the flight ``modes``, else raise.

    Raises:
        TypeError: ``value`` is not an int (a bool, a float, a string).
        ValueError: it is an int that is not one of ``modes``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, one of {list(modes)}, got {value!r}")
    if int(value) not in modes:
        raise ValueError(f"{name} must be one of {list(modes)}, got {value}")
    return int(value)


def _real(name: str, value: object, allowed: str) -> float:
    """``value`` as a float (inf for an int beyond float64, 10**400) if it is a real number
    of Python or numpy (not a bool), else a TypeError saying it must be ``allowed``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be {allowed}, got {describe_value(value)}")
    try:
        return float(value)
    except OverflowError:
        return math.inf


def check_finite(name: str, value: object) -> float:
    """Return ``value`` as a float if it is a finite real number (not a bool), else raise."""
    number = _real(name, value, "a finite number")
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number, got {describe_value(value)}")
    return number


def check_rng(name: str, value: object) -> np.random.Generator:
    """Return ``value`` if it is a numpy Generator, a new unseeded one if ``None``, else raise."""
    if value is None:
        return np.random.default_rng()
    if not isinstance(value, np.random.Generator):
        raise TypeError(f"{name} must be None or a numpy Generator (np.random.default_rng()), "
                        f"got {value!r}")
    return value


def check_positive_int(name: str, value: object, maximum: int | None = None) -> int:
    """Return ``value`` as an int if it is a positive integer (at most ``maximum``, if
    given), else raise.

    Raises:
        TypeError: ``value`` is not an int (``"240"``, ``240.0``, ``True``).
        ValueError: it is an int <= 0, or above ``maximum``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a positive integer, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be a positive integer <= {maximum}, got {value!r}")
    return int(value)


MAX_SEED = 2**63 - 1


def check_seed(name: str, value: object) -> int | None:
    """Return ``value`` if it is None (no seed) or an int in [0, 2**63) (Python or numpy,
    not a bool), else raise naming ``name``.

    Raises:
        TypeError: ``value`` is not an int (``1.5``, ``"3"``, ``True``).
        ValueError: it is negative or too large.
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be None or an integer >= 0, got {value!r}")
    if not 0 <= value <= MAX_SEED:
        raise ValueError(f"{name} must be None or an integer in [0, 2**63), got {value!r}")
    return int(value)


#: The share of the machine's physical memory one object may ask for.
MEMORY_SHARE = 0.5


def memory_limit_bytes() -> float:
    """Half of this machine's physical memory [bytes] (inf where the OS does not say)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): no cap
        return math.inf
    return MEMORY_SHARE * total if total > 0 else math.inf


def check_memory(what: str, n_bytes: float, hint: str = "") -> None:
    """Refuse, before anything is allocated, an object that would need more than
    :func:`memory_limit_bytes`.

    Args:
        what: the argument(s) that size it, e.g. ``"n_worlds=10**9"``.
        n_bytes: the estimated memory [bytes].
        hint: what to change, appended to the message.

    Raises:
        ValueError: naming ``what``, the estimate and the limit in GiB.
    """
    limit = memory_limit_bytes()
    if n_bytes > limit:
        message = (f"{what} needs about {n_bytes / 2**30:.3g} GiB, more than the "
                   f"{limit / 2**30:.3g} GiB allowed (half this machine's memory)")
        raise ValueError(f"{message}; {hint}" if hint else message)


def check_positive_float(name: str, value: object) -> float:
    """Return ``value`` as a float if it is finite and > 0, else raise."""
    number = _real(name, value, "a finite number > 0")
    if not math.isfinite(number) or number <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {describe_value(value)}")
    return number


def check_rate_divides(name: str, rate: object, physics_hz: int, allowed_too: str = "") -> int:
    """Return physics steps per tick for ``rate`` Hz; raise unless it is a positive int that
    divides ``physics_hz`` (the message lists the divisors, then ``allowed_too``: e.g.
    ``", or null for every physics step"``). The one check of a rate against the physics
    rate."""
    rate = check_positive_int(name, rate)
    if physics_hz % rate != 0:
        raise ValueError(f"{name}={rate} Hz must divide physics_hz={physics_hz} Hz exactly "
                         f"(allowed: {divisors_text(physics_hz)}{allowed_too})")
    return physics_hz // rate


def check_agent_hz(agent_hz: object, control_hz: int) -> int:
    """Return the control periods per agent step; raise unless ``agent_hz`` divides the
    vehicle's ``control_hz``."""
    agent_hz = check_positive_int("agent_hz", agent_hz)
    if control_hz % agent_hz:
        raise ValueError(f"agent_hz={agent_hz} must divide the vehicle's control rate "
                         f"{control_hz} Hz; allowed: {divisors_text(control_hz)}")
    return control_hz // agent_hz


def divisors_text(n: int, most: int = 24) -> str:
    """The divisors of ``n`` as text for an error message, at most ``most`` of them listed.

    Trial division stops at ``DIVISOR_SEARCH_LIMIT``: a pathological rate (``10**18``) fails
    fast with the divisors found below the limit and their cofactors, marked as partial.
    """
    small, large = [], []
    d = 1
    while d * d <= n and d <= DIVISOR_SEARCH_LIMIT:
        if n % d == 0:
            small.append(d)
            if d != n // d:
                large.append(n // d)
        d += 1
    partial = d * d <= n  # stopped at the limit: divisors between the two lists are unknown
    found = small + large[::-1]
    if not partial and len(found) <= most:
        return str(found)
    if len(found) <= most:
        head, tail = small, large[::-1]
    else:
        head, tail = found[:most // 2], found[-most // 2:]
    count = "partial list" if partial else f"{len(found)} divisors"
    return f"[{', '.join(map(str, head))}, ..., {', '.join(map(str, tail))}] ({count})"


DIVISOR_SEARCH_LIMIT = 100_000  # trial divisions at most, ~10 ms


_NUMERIC_KINDS = "iufO"  # ints, unsigned, floats; objects only if every element is a number


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_))


def _holds_bool(value: list | tuple) -> bool:
    """Whether a (nested) list or tuple holds a bool anywhere."""
    return any(isinstance(v, (bool, np.bool_)) or (isinstance(v, (list, tuple))
                                                     and _holds_bool(v)) for v in value)


def describe_value(value: object) -> str:
    """``value`` for an error message: its repr, or its type and the repr's first 57
    characters when longer than 60 (a huge string or list stays a short message)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{type(value).__name__} {text[:57]}..."


def _shape_text(shape: Sequence[int | None]) -> str:
    items = ["n" if s is None else str(s) for s in shape]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def check_unit_interval(name: str, value: object) -> float:
    """Return ``value`` as a float if it is a finite number in [0, 1] (not a bool), else raise.

    Raises:
        TypeError: ``value`` is not a real number.
        ValueError: it is NaN, infinite or outside [0, 1].
    """
    value = check_finite(name, value)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return value


def check_non_negative_float(name: str, value: object) -> float:
    """Return ``value`` as a float if it is finite and >= 0 (not a bool), else raise.

    Raises:
        TypeError: ``value`` is not a real number.
        ValueError: it is NaN, infinite or negative.
    """
    value = check_finite(name, value)
    if value < 0.0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return value


def check_positive_int_tuple(name: str, value: object) -> tuple[int, ...]:
    """Return a non-empty sequence (list, tuple) of positive ints as a tuple, else raise.

    Raises:
        TypeError: ``value`` is a string or not a sequence, or an entry is not an int (the
            entry's index is named, e.g. ``hidden_sizes[1]``).
        ValueError: it is empty or an entry is <= 0.
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{name} must be a sequence of positive ints such as (64, 64), "
                        f"got {value!r}")
    ints = tuple(check_positive_int(f"{name}[{i}]", v) for i, v in enumerate(value))
    if not ints:
        raise ValueError(f"{name} must hold at least one positive int, got ()")
    return ints


def check_choice(name: str, value: object, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of the strings ``choices``, else raise ValueError listing
    them (a non-string is never one of them, whatever it compares equal to)."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got {value!r}")
    return value


def check_float_in(name: str, value: object, low: float, high: float, *,
                   low_open: bool = False, unit: str = "") -> float:
    """Return ``value`` as a float if it is a real number (Python or numpy, not a bool) in
    ``[low, high]`` (``(low, high]`` if ``low_open``), else raise naming ``name`` and the
    interval. ``unit`` (e.g. ``" m"``) is appended to the interval in the message.

    Raises:
        TypeError: ``value`` is not a real number (``"1"``, ``True``, ``1j``, ``None``).
        ValueError: it is NaN, infinite, too large for a float (``10**400``) or outside.
    """
    interval = f"{'(' if low_open else '['}{low:g}, {high:g}]{unit}"
    number = _real(name, value, f"a number in {interval}")
    inside = (math.isfinite(number) and (low < number if low_open else low <= number)
              and number <= high)
    if not inside:
        raise ValueError(f"{name} must be a number in {interval}, got {describe_value(value)}")
    return number


def as_float_array_in_shapes(name: str, value: object,
                             shapes: Sequence[Sequence[int | None]]) -> np.ndarray:
    """Convert ``value`` to a finite float64 array of one of ``shapes`` (``None``: any
    length), as :func:`as_float_array` does for one shape; the messages list every allowed
    shape.

    Ragged nested lists, on which ``np.ndim`` itself fails, are refused like any other
    non-array, by a TypeError naming ``name``.

    Raises:
        TypeError: ``value`` is not a numeric array (strings, bools, complex, ragged).
        ValueError: its shape is none of ``shapes``, or an entry is NaN, infinite or too
            large for a float.
    """
    allowed = " or ".join(_shape_text(shape) for shape in shapes)
    try:
        ndim = np.ndim(value)
    except ValueError:  # numpy cannot make an array of it: ragged
        raise TypeError(f"{name} must be a numeric array of shape {allowed}, got the "
                        f"ragged {describe_value(value)}") from None
    try:
        array = as_float_array(name, value, (None,) * ndim)
    except TypeError:
        raise TypeError(f"{name} must be a numeric array of shape {allowed}, got "
                        f"{describe_value(value)}") from None
    except OverflowError:  # a Python int beyond the float range
        raise ValueError(f"{name} must be finite, got {describe_value(value)}") from None
    if not any(len(shape) == array.ndim and all(
            want is None or got == want for got, want in zip(array.shape, shape))
            for shape in shapes):
        raise ValueError(f"{name} must have shape {allowed}, got {array.shape}")
    return array


def names_text(names: Iterable[object]) -> str:
    """``names`` as a sorted list for a message, ``[1, 'speed']`` (keys of any type)."""
    return f"[{', '.join(sorted(repr(name) for name in names))}]"


def reject_unknown_keys(name: str, mapping: Mapping, allowed: Iterable[object],
                        noun: str = "options", allowed_text: str | None = None) -> None:
    """Raise ``ValueError`` if ``mapping`` has keys outside ``allowed``: "``name`` has
    unknown ``noun`` [...]; ``allowed_text``" (default: "``noun`` are [...]")."""
    allowed = list(allowed)
    unknown = set(mapping) - set(allowed)
    if unknown:
        raise ValueError(f"{name} has unknown {noun} {names_text(unknown)}; "
                         f"{allowed_text or f'{noun} are {allowed}'}")


#: The kinds :func:`prefixed_error` keeps, most specific first.
_PREFIXED_KINDS = (FileNotFoundError, PermissionError, TypeError, ValueError)


def prefixed_error(prefix: str, error: BaseException) -> Exception:
    """A new error saying ``"{prefix}: {error}"``, of ``error``'s kind: for an option that
    hands its value to a check and names itself in what it re-raises (``raise
    prefixed_error("world", error) from None``).

    The kind is the first of ``FileNotFoundError``, ``PermissionError``, ``TypeError`` and
    ``ValueError`` that ``error`` is an instance of (else ``ValueError``), never
    ``type(error)`` itself: a subclass's constructor may take other arguments
    (``UnicodeDecodeError`` takes five), and calling it would replace the message with a
    ``TypeError`` about the constructor.
    """
    kind = next((k for k in _PREFIXED_KINDS if isinstance(error, k)), ValueError)
    return kind(f"{prefix}: {error}")
